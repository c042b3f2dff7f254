/*
 * status_page.h - what GET / and GET /metrics show: the store's totals,
 * uptime, upstreams, the builds running and waiting, as a short HTML page
 * (no script, no external resource) or as Prometheus text.
 */
#ifndef EHELF_SERVER_STATUS_PAGE_H
#define EHELF_SERVER_STATUS_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"

typedef struct status_info {
	const char *store;
	const char *upstream;       /* NULL: no on-demand builds */
	const char *signing_key;    /* key ID, or NULL */
	bool ondemand;
	bool have_totals;           /* the index answered */
	uint64_t ehelfs, ehelf_bytes, packages;
	int running, queued;
	const metrics *metrics;
} status_info;

void status_write_html(const status_info *si, FILE *out);
void status_write_metrics(const status_info *si, FILE *out);

#endif
