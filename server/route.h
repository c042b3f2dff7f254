/*
 * route.h - what a request's path names, before anything touches the file
 * system: an artifact of one build-ID (/buildid/HEX/eh_elf, .../eh_elf.sig),
 * the metrics, the status page, or nothing we serve.
 *
 * The path is the one libmicrohttpd hands over: percent-decoded, without
 * the query.  A build-ID is accepted only as docs/design.md fixes it (even
 * length, 2..128 characters, [0-9a-f]), so "..", "/", NUL bytes, uppercase
 * and anything a decoder turned into those are refused here.
 */
#ifndef EHELF_SERVER_ROUTE_H
#define EHELF_SERVER_ROUTE_H

#include "../common/buildid.h"

typedef enum route_kind {
	ROUTE_EHELF,      /* /buildid/HEX/eh_elf */
	ROUTE_SIG,        /* /buildid/HEX/eh_elf.sig */
	ROUTE_METRICS,    /* /metrics */
	ROUTE_STATUS,     /* / */
	ROUTE_REPO,       /* /debian/REST: a file of the apt repository */
	ROUTE_BAD_ID,     /* /buildid/X/... with X not a valid build-ID: 400 */
	ROUTE_BAD_PATH,   /* /debian/REST with REST not a plain relative path
			   * (empty, "." or ".." components, //, characters
			   * outside [A-Za-z0-9._+~:=@,/-]): 400 */
	ROUTE_UNKNOWN,    /* anything else: 404 */
} route_kind;

enum { ROUTE_REPO_MAX = 1024 };

typedef struct route {
	route_kind kind;
	char hex[BUILDID_HEX_MAX + 1];  /* ROUTE_EHELF, ROUTE_SIG */
	char rel[ROUTE_REPO_MAX];       /* ROUTE_REPO: REST, relative */
} route;

/* Classify PATH (NUL-terminated; its length LEN, which differs from
 * strlen(PATH) when the decoded path held a NUL byte). */
void route_parse(const char *path, size_t len, route *r);

/* Short label of a route for metrics: "eh_elf", "sig", "metrics",
 * "status", "repo", "bad_id", "bad_path", "other". */
const char *route_label(route_kind k);

#endif
