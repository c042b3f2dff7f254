/*
 * ehelf-perf - the samples of a `perf record --call-graph dwarf` file,
 * their user stacks unwound with eh_elfs: `ehelf-perf script` prints them as
 * `perf script -F comm,tid,time,event,ip,sym,symoff,dso --no-inline` does,
 * or as folded stacks for flame graphs.  Before unwinding, the eh_elfs
 * the recording needs are fetched from $EHELF_URLS (ehelf_perf/prefetch.h);
 * files missing here come from debuginfod (ehelf_perf/dso.h); --no-fetch
 * turns both off.
 *
 * Exit status: 0 success, 1 unreadable or malformed input (or a write
 * error), 2 bad usage.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfdata/perf_data.h"
#include "ehelf_perf/dso.h"
#include "ehelf_perf/outbuf.h"
#include "ehelf_perf/prefetch.h"
#include "ehelf_perf/procs.h"
#include "ehelf_perf/recorded_ids.h"
#include "ehelf_perf/script.h"
#include "ehelf_perf/stdin_spool.h"
#include "resolve.h"

/* Bytes of each sample's stack copy read before unwinding it: the rest,
 * when the frames reach it, is read then (perf_reader_partial_stacks). */
#define PARTIAL_STACK 2048

static void usage(FILE *out)
{
	fputs("Usage: ehelf-perf script [-i FILE] [--folded] [--no-progress]\n"
	      "                         [--no-fetch]\n"
	      "\n"
	      "Print the samples of a perf.data file made by `perf record\n"
	      "--call-graph dwarf`, with their user stacks unwound by eh_elfs\n"
	      "(found by build-ID under $EHELF_PATH, then /usr/lib/ehelf, then\n"
	      "the cache $EHELF_CACHE_PATH, else ~/.cache/ehelf; DWARF CFI\n"
	      "through libdw for files without one), in the layout of\n"
	      "`perf script -F comm,tid,time,event,ip,sym,symoff,dso --no-inline`.\n"
	      "Before unwinding, the eh_elfs of every build-ID the recording\n"
	      "names that are not found so are fetched into the cache, in\n"
	      "parallel, from the servers of $EHELF_URLS (space-separated;\n"
	      "none: no fetching), and must be signed by a key of\n"
	      "$EHELF_TRUSTED_KEYS (else /etc/ehelf/trusted-keys); a stream\n"
	      "(-i -) is then kept in a temporary file to be read twice.\n"
	      "A mapped file missing here (a recording from another machine)\n"
	      "is read from perf's build-ID cache, else, with $DEBUGINFOD_URLS\n"
	      "set, fetched from debuginfod servers (the executable, and its\n"
	      "debuginfo for symbols), as perf does.\n"
	      "Kernel frames come from the samples' callchains; recordings\n"
	      "with frame-pointer callchains (-g) or none print as perf prints\n"
	      "them; compressed recordings (perf record -z) are read too.\n"
	      "Kernel symbols and the vDSO come from perf's build-ID cache\n"
	      "($PERF_BUILDID_DIR, else perf's buildid.dir setting, else\n"
	      "~/.debug) as perf reads them.  Parsed\n"
	      "symbol tables (and a copy of our vDSO) are kept in\n"
	      "$XDG_CACHE_HOME/ehelf (~/.cache/ehelf) for the next runs.\n"
	      "\n"
	      "  -i, --input FILE  the perf.data file (default perf.data; - reads\n"
	      "                    standard input, as `perf record -o -` writes it)\n"
	      "  -f, --folded      print folded stacks instead, one line per\n"
	      "                    distinct stack: comm;outermost;...;innermost COUNT\n"
	      "                    (as FlameGraph's stackcollapse-perf.pl makes them)\n"
	      "      --no-progress no progress line on standard error\n"
	      "      --no-fetch    fetch nothing: neither eh_elfs ($EHELF_URLS)\n"
	      "                    nor missing files (debuginfod)\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "Exit status: 0 success, 1 unreadable or malformed input, 2 usage.\n",
	      out);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* "\rehelf-perf: 12.3 of 45.6 MiB (27%), 12345 samples" on standard error. */
static void progress(perf_reader *r, uint64_t samples, bool last)
{
	uint64_t done, total;
	perf_reader_progress(r, &done, &total);
	if (total)
		fprintf(stderr, "\rehelf-perf: %.1f of %.1f MiB (%d%%), %llu samples ",
			done / 1048576.0, total / 1048576.0,
			(int)(100.0 * (double)done / (double)total),
			(unsigned long long)samples);
	else
		fprintf(stderr, "\rehelf-perf: %.1f MiB, %llu samples ", done / 1048576.0,
			(unsigned long long)samples);
	if (last)
		fputc('\n', stderr);
}

/* "\rehelf-perf: fetching eh_elfs: 12/40" on standard error; *ARG (a
 * bool) tells whether the line is left unfinished. */
static void fetch_progress(void *arg, size_t done, size_t total)
{
	bool *open = arg;
	fprintf(stderr, "\rehelf-perf: fetching eh_elfs: %zu/%zu ", done, total);
	*open = done < total;
	if (!*open)
		fputc('\n', stderr);
}

/* Before unwinding: the eh_elfs of the build-IDs INPUT names, fetched
 * into the cache from $EHELF_URLS (nothing without it), with a progress
 * line when SHOW_PROGRESS, and a line on what was refused or failed.
 * Returns 0, or 1 when standard input was lost (it could not be
 * spooled); anything else only warns. */
static int fetch_eh_elfs(const char *input, bool show_progress)
{
	/* the configuration the unwinding resolves eh_elfs with */
	const fetch_config *c = resolve_config();
	ehelf_err err = { 0 };
	if (!c) {
		fprintf(stderr, "ehelf-perf: not fetching eh_elfs: %s\n",
			ehelf_last_error());
		return 0;
	}
	if (!c->urls || !c->urls[0])
		return 0;
	if (!strcmp(input, "-") && stdin_spool(&err) < 0) {
		fprintf(stderr, "ehelf-perf: %s\n", err.msg);
		return 1;
	}
	id_list ids = { 0 };
	prefetch_result res;
	/* a malformed input: the unwinding pass says so; fetch what was
	 * found before */
	recorded_ids(input, &ids, &err);
	bool line_open = false;
	if (prefetch(c, &ids, show_progress ? fetch_progress : NULL, &line_open,
		     &res, &err) < 0)
		fprintf(stderr, "%sehelf-perf: fetching eh_elfs: %s\n",
			line_open ? "\n" : "", err.msg);
	else if (res.refused || res.failed)
		fprintf(stderr, "ehelf-perf: %zu of %zu eh_elfs fetched; %zu "
			"refused%s%s%s, %zu failed%s%s%s\n", res.fetched,
			res.asked, res.refused, res.refused ? " (" : "",
			res.refused_why, res.refused ? ")" : "", res.failed,
			res.failed ? " (" : "", res.failed_why,
			res.failed ? ")" : "");
	id_list_free(&ids);
	return 0;
}

static int handle(perf_reader *r, procs *p, script_ctx *sc, const perf_event *ev)
{
	return ev->kind == PERF_EV_SAMPLE ? script_sample(sc, ev)
					  : procs_record(p, r, ev);
}

static int run(const char *input, bool folded, bool show_progress, bool fetch)
{
	ehelf_err err = { 0 };
	if (fetch && fetch_eh_elfs(input, show_progress) != 0)
		return 1;
	perf_reader *r = perf_reader_open(input, &err);
	if (!r) {
		fprintf(stderr, "ehelf-perf: %s\n", err.msg);
		return 1;
	}
	/* only the part of each stack copy that the frames span, mostly
	 * (docs/perf.md, "Performance") */
	if (perf_reader_partial_stacks(r, PARTIAL_STACK) < 0) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		perf_reader_close(r);
		return 1;
	}
	dso_table *dsos = dso_table_new();
	if (dsos)
		dso_table_use_debuginfod(dsos, fetch);
	procs *p = dsos ? procs_new(dsos) : NULL;
	static outbuf out;
	ob_init(&out, stdout);
	script_ctx sc;
	int status = 0;
	if (!p || script_init(&sc, r, p, &out, folded) < 0) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		procs_free(p);
		dso_table_free(dsos);
		perf_reader_close(r);
		return 1;
	}
	double next = now() + 0.25;
	uint64_t events = 0;
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		if (handle(r, p, &sc, &ev) < 0) {
			fprintf(stderr, "ehelf-perf: out of memory\n");
			status = 1;
			break;
		}
		if (show_progress && (++events & 4095) == 0 && now() >= next) {
			progress(r, sc.samples, false);
			next = now() + 0.25;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "%sehelf-perf: %s\n", show_progress ? "\n" : "", err.msg);
		status = 1;
	}
	if (folded && status == 0 && script_print_folded(&sc) < 0) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		status = 1;
	}
	if (show_progress && status == 0)
		progress(r, sc.samples, true);
	const char *dfail = dso_table_debuginfod_failure(dsos);
	if (dfail) /* files were missing here: their symbols are too */
		fprintf(stderr, "ehelf-perf: files missing here were not asked "
			"of $DEBUGINFOD_URLS: %s\n", dfail);
	if (ob_flush(&out) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "ehelf-perf: write error on standard output\n");
		status = 1;
	}
	script_fini(&sc);
	procs_free(p);
	dso_table_free(dsos);
	perf_reader_close(r);
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_NO_PROGRESS = 256, OPT_NO_FETCH };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "folded", no_argument, NULL, 'f' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "no-fetch", no_argument, NULL, OPT_NO_FETCH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "script") != 0) {
		fprintf(stderr, "ehelf-perf: %s\n", argc < 2 ? "missing command"
				: "unknown command (the command is: script)");
		usage(stderr);
		return 2;
	}
	const char *input = "perf.data";
	bool folded = false, show_progress = isatty(2), fetch = true;
	int c;
	optind = 2;
	while ((c = getopt_long(argc, argv, "i:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'f': folded = true; break;
		case OPT_NO_PROGRESS: show_progress = false; break;
		case OPT_NO_FETCH: fetch = false; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ehelf-perf: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return run(input, folded, show_progress, fetch);
}
