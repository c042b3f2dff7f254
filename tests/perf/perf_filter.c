/*
 * perf_filter - a copy of a perf.data file without the samples a list
 * names: every record and feature carried over as ehelf-perf inject
 * carries them (file or pipe layout as the input's; compressed records
 * written plain), the samples as recorded but for those left out.  For
 * comparing what perf makes of two recordings sample for sample, leaving
 * out the samples known to differ (each explained elsewhere).
 * The list: one line per sample to drop, "TID SECS.USECS EVENT" as perf
 * script's header gives them (-F tid,time,event).
 * Usage: perf_filter IN OUT LIST
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/ehelf-perf/ehelf_perf/inject.h"

typedef struct droplist {
	char **keys;
	size_t n;
	size_t dropped;
} droplist;

static bool keep(void *arg, const perf_event *ev)
{
	droplist *d = arg;
	char key[256];
	snprintf(key, sizeof key, "%" PRIu32 " %" PRIu64 ".%06" PRIu64 " %s",
		 ev->tid, ev->time / 1000000000u, ev->time % 1000000000u / 1000,
		 ev->sample.attr ? ev->sample.attr->name : "?");
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->keys[i], key)) {
			d->dropped++;
			return false;
		}
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: perf_filter IN OUT LIST\n");
		return 2;
	}
	droplist d = { 0 };
	FILE *f = fopen(argv[3], "r");
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		d.keys = realloc(d.keys, (d.n + 1) * sizeof *d.keys);
		d.keys[d.n++] = strdup(line);
	}
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	fclose(f);
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "perf_filter: %s\n", err.msg);
		return 1;
	}
	bool pipe = perf_reader_is_pipe(r);
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dso_table *dsos = dso_table_new();
	procs *p = dsos ? procs_new(dsos) : NULL;
	script_ctx sc;
	inject_copy copy = { keep, &d };
	perf_writer *w = fd >= 0 ? perf_writer_new(fd, pipe, argv[2], &err) : NULL;
	injector *in = NULL;
	int rc = fd < 0 || !p || script_init(&sc, r, p, NULL, false) < 0 || !w ||
		 !(in = inject_new(r, &sc, w, pipe, &copy, &err)) ? -1 : 0;
	perf_event ev;
	while (rc == 0 && (rc = perf_reader_next(r, &ev, &err)) > 0)
		rc = inject_event(in, &ev, &err) < 0 ? -1 : 0;
	if (rc == 0)
		rc = inject_finish(in, &err) < 0 ? -1 : 0;
	if (rc < 0)
		fprintf(stderr, "perf_filter: %s\n", err.msg[0] ? err.msg : "failed");
	else
		fprintf(stderr, "perf_filter: %zu of %zu listed samples left out\n",
			d.dropped, d.n);
	inject_free(in);
	perf_writer_free(w);
	perf_reader_close(r);
	return rc < 0 || d.dropped != d.n;
}
