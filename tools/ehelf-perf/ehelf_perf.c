/*
 * ehelf-perf - the samples of a `perf record --call-graph dwarf` file,
 * their user stacks unwound with eh_elfs: `ehelf-perf script` prints them as
 * `perf script -F comm,tid,time,event,ip,sym,symoff,dso --no-inline` does,
 * or as folded stacks for flame graphs.  Before unwinding, the eh_elfs
 * the recording needs are fetched from $EHELF_URLS (ehelf_perf/prefetch.h);
 * files missing here come from debuginfod (ehelf_perf/dso.h); --no-fetch
 * turns both off.  `ehelf-perf inject` writes the recording again with
 * those stacks as frame-pointer callchains (ehelf_perf/inject.h), for
 * perf report and every other reader of perf.data files.
 *
 * Exit status: 0 success, 1 unreadable or malformed input (or a write
 * error), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfdata/perf_data.h"
#include "perfdata/perf_write.h"
#include "ehelf_perf/dso.h"
#include "ehelf_perf/inject.h"
#include "ehelf_perf/outbuf.h"
#include "ehelf_perf/prefetch.h"
#include "ehelf_perf/procs.h"
#include "ehelf_perf/recorded_ids.h"
#include "ehelf_perf/script.h"
#include "ehelf_perf/stdin_spool.h"
#include "../../client-lib/resolve.h"

/* Bytes of each sample's stack copy read before unwinding it, at first:
 * the rest, when the frames reach it, is read then
 * (perf_reader_partial_stacks); then fitted to what the samples' frames
 * span (script.h: tune). */
#define PARTIAL_STACK 2048

static void usage(FILE *out)
{
	fputs("Usage: ehelf-perf script [-i FILE] [--folded] [--no-progress]\n"
	      "                         [--no-fetch] [--summary] [--json]\n"
	      "       ehelf-perf inject [-i IN] [-o OUT] [--no-progress]\n"
	      "                         [--no-fetch] [--no-summary] [--json]\n"
	      "\n"
	      "script: print the samples of a perf.data file made by `perf record\n"
	      "--call-graph dwarf`, with their user stacks unwound by eh_elfs\n"
	      "(found by build-ID under $EHELF_PATH, then /usr/lib/ehelf, then\n"
	      "the cache $EHELF_CACHE_PATH, else ~/.cache/ehelf; DWARF CFI\n"
	      "through libdw for files without one), in the layout of\n"
	      "`perf script -F comm,tid,time,event,ip,sym,symoff,dso --no-inline`.\n"
	      "inject: write the recording again (IN, default perf.data; OUT,\n"
	      "default perf.ehelf.data; - for either: a pipe, as perf record\n"
	      "-o - writes it) with each sample's user stack, unwound so, as\n"
	      "its callchain and its register and stack copies left out: `perf\n"
	      "report -i OUT` (and perf script, perf annotate, hotspot) then\n"
	      "unwind nothing; a compressed recording (-z) is written plain;\n"
	      "OUT appears only when complete (written under a temporary name\n"
	      "next to it, then renamed).\n"
	      "Before unwinding, the eh_elfs of every build-ID the recording\n"
	      "names, and of every file its processes map executable, that are\n"
	      "not found so are fetched into the cache, in\n"
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
	      "A summary (samples, frames, how each step was made, why stacks\n"
	      "stopped, files unwound without an eh_elf) goes to standard error:\n"
	      "always for inject, for script on a terminal or with --summary.\n"
	      "\n"
	      "  -i, --input FILE  the perf.data file (default perf.data; - reads\n"
	      "                    standard input, as `perf record -o -` writes it)\n"
	      "  -o, --output FILE inject: the file written (- : standard output,\n"
	      "                    in pipe mode)\n"
	      "  -f, --folded      script: print folded stacks instead, one line per\n"
	      "                    distinct stack: comm;outermost;...;innermost COUNT\n"
	      "                    (as FlameGraph's stackcollapse-perf.pl makes them)\n"
	      "      --no-progress no progress line on standard error\n"
	      "      --no-fetch    fetch nothing: neither eh_elfs ($EHELF_URLS)\n"
	      "                    nor missing files (debuginfod)\n"
	      "      --summary     script: the summary even off a terminal\n"
	      "      --no-summary  no summary\n"
	      "      --json        the summary as one JSON object (one line)\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "Exit status: 0 success (a pipe recording cut short too: what\n"
	      "precedes the cut is printed or written, and where it stopped said),\n"
	      "1 unreadable or malformed input (the message names the byte\n"
	      "offset; inject leaves no OUT), 2 usage.\n",
	      out);
}

/* The process's umask, left as it was. */
static mode_t umask_now(void)
{
	mode_t m = umask(022);
	umask(m);
	return m;
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

/* What both commands read with: the recording, its processes and files,
 * the frames of its samples. */
typedef struct session {
	perf_reader *r;
	dso_table *dsos;
	procs *p;
	script_ctx sc;
	bool sc_ok;
	bool show_progress;
} session;

static void session_close(session *s)
{
	if (s->sc_ok)
		script_fini(&s->sc);
	procs_free(s->p);
	dso_table_free(s->dsos);
	perf_reader_close(s->r);
}

/* 0, or 1 after a message. */
static int session_open(session *s, const char *input, bool fetch,
			bool show_progress, outbuf *out, bool folded)
{
	ehelf_err err = { 0 };
	memset(s, 0, sizeof *s);
	s->show_progress = show_progress;
	if (fetch && fetch_eh_elfs(input, show_progress) != 0)
		return 1;
	s->r = perf_reader_open(input, &err);
	if (!s->r) {
		fprintf(stderr, "ehelf-perf: %s\n", err.msg);
		return 1;
	}
	/* only the part of each stack copy that the frames span, mostly
	 * (docs/perf.md, "Performance") */
	if (perf_reader_partial_stacks(s->r, PARTIAL_STACK) < 0 ||
	    !(s->dsos = dso_table_new())) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		return 1;
	}
	dso_table_use_debuginfod(s->dsos, fetch);
	if (!(s->p = procs_new(s->dsos)) ||
	    script_init(&s->sc, s->r, s->p, out, folded) < 0) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		return 1;
	}
	s->sc_ok = true;
	s->sc.tune = s->r; /* the part read first fitted to the spans */
	return 0;
}

/* Every event of S through EACH(ARG, event): 0, or 1 after a message
 * (ERR_NOMEM from EACH: "out of memory", another error its message). */
static int session_run(session *s, int (*each)(void *, const perf_event *,
					       ehelf_err *),
		       void *arg)
{
	ehelf_err err = { 0 };
	double next = now() + 0.25;
	uint64_t events = 0;
	perf_event ev;
	int rc, status = 0;
	while ((rc = perf_reader_next(s->r, &ev, &err)) > 0) {
		if ((rc = each(arg, &ev, &err)) < 0) {
			fprintf(stderr, "%sehelf-perf: %s\n",
				s->show_progress ? "\n" : "",
				rc == ERR_NOMEM ? "out of memory" : err.msg);
			return 1;
		}
		if (s->show_progress && (++events & 4095) == 0 && now() >= next) {
			progress(s->r, s->sc.samples, false);
			next = now() + 0.25;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "%sehelf-perf: %s\n", s->show_progress ? "\n" : "",
			err.msg);
		status = 1;
	}
	if (s->show_progress && status == 0)
		progress(s->r, s->sc.samples, true);
	const char *dfail = dso_table_debuginfod_failure(s->dsos);
	if (dfail) /* files were missing here: their symbols are too */
		fprintf(stderr, "ehelf-perf: files missing here were not asked "
			"of $DEBUGINFOD_URLS: %s\n", dfail);
	return status;
}

/* A stream cut short: where, and that what preceded it was DONE. */
static void say_cut(const session *s, const char *done)
{
	const char *cut = perf_reader_cut(s->r);
	if (cut)
		fprintf(stderr, "ehelf-perf: %s: the stream stops there; the %llu "
			"samples before it were %s\n", cut,
			(unsigned long long)s->sc.stats.samples, done);
}

static int script_each(void *arg, const perf_event *ev, ehelf_err *err)
{
	session *s = arg;
	(void)err;
	return ev->kind == PERF_EV_SAMPLE ? script_sample(&s->sc, ev)
					  : procs_record(s->p, s->r, ev);
}

static int run_script(const char *input, bool folded, bool show_progress,
		      bool fetch, int summary, bool json)
{
	static outbuf out;
	ob_init(&out, stdout);
	session s;
	int status = session_open(&s, input, fetch, show_progress, &out, folded);
	if (status == 0)
		status = session_run(&s, script_each, &s);
	if (folded && status == 0 && script_print_folded(&s.sc) < 0) {
		fprintf(stderr, "ehelf-perf: out of memory\n");
		status = 1;
	}
	if (ob_flush(&out) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "ehelf-perf: write error on standard output\n");
		status = 1;
	}
	if (s.sc_ok && status == 0) {
		say_cut(&s, "printed");
		if (summary > 0 || json)
			unwind_stats_print(&s.sc.stats, "script", json, stderr);
	}
	session_close(&s);
	return status;
}

/* ---- inject's output: under a temporary name until complete ------------ */

static char tmp_path[4096]; /* the temporary being written, or "" */

static void drop_tmp_and_die(int sig)
{
	if (tmp_path[0])
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A temporary file next to PATH (same file system, for the rename). */
static int open_tmp(const char *path)
{
	char dir[4096], base[4096];
	snprintf(dir, sizeof dir, "%s", path);
	snprintf(base, sizeof base, "%s", path);
	if (snprintf(tmp_path, sizeof tmp_path, "%s/.%s.tmp-XXXXXX", dirname(dir),
		     basename(base)) >= (int)sizeof tmp_path) {
		tmp_path[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	struct sigaction sa = { .sa_handler = drop_tmp_and_die };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	int fd = mkostemp(tmp_path, O_CLOEXEC);
	if (fd < 0)
		tmp_path[0] = '\0';
	else
		fchmod(fd, 0644 & ~umask_now());
	return fd;
}

typedef struct inject_run {
	session *s;
	injector *in;
} inject_run;

static int inject_each(void *arg, const perf_event *ev, ehelf_err *err)
{
	inject_run *ir = arg;
	return inject_event(ir->in, ev, err);
}

static int run_inject(const char *input, const char *output, bool show_progress,
		      bool fetch, int summary, bool json)
{
	bool to_pipe = !strcmp(output, "-");
	if (!to_pipe && !strcmp(input, output)) {
		fprintf(stderr, "ehelf-perf: inject: the output must not be the "
			"input (%s)\n", input);
		return 2;
	}
	session s;
	int status = session_open(&s, input, fetch, show_progress, NULL, false);
	int fd = -1;
	perf_writer *w = NULL;
	injector *in = NULL;
	ehelf_err err = { 0 };
	if (status == 0) {
		fd = to_pipe ? STDOUT_FILENO : open_tmp(output);
		if (fd < 0) {
			fprintf(stderr, "ehelf-perf: %s: cannot create a file next "
				"to it: %s\n", output, strerror(errno));
			status = 1;
		}
	}
	if (status == 0 &&
	    (!(w = perf_writer_new(fd, to_pipe, to_pipe ? "<stdout>" : output, &err)) ||
	     !(in = inject_new(s.r, &s.sc, w, to_pipe, NULL, &err)))) {
		fprintf(stderr, "ehelf-perf: %s\n", err.msg);
		status = 1;
	}
	if (status == 0) {
		inject_run ir = { &s, in };
		status = session_run(&s, inject_each, &ir);
	}
	if (status == 0 && inject_finish(in, &err) < 0) {
		fprintf(stderr, "ehelf-perf: %s\n", err.msg);
		status = 1;
	}
	if (status == 0 && !to_pipe && rename(tmp_path, output) < 0) {
		fprintf(stderr, "ehelf-perf: %s: rename: %s\n", output,
			strerror(errno));
		status = 1;
	}
	if (!to_pipe && fd >= 0) {
		if (status != 0)
			unlink(tmp_path);
		tmp_path[0] = '\0';
		close(fd);
	}
	if (status == 0) {
		say_cut(&s, "written");
		if (summary != 0 || json) {
			unwind_stats_print(&s.sc.stats, "inject", json, stderr);
			if (!json)
				fprintf(stderr, "  build-ID table: %zu files "
					"added that only callchains reach\n",
					inject_added_build_ids(in));
		}
	}
	inject_free(in);
	perf_writer_free(w);
	session_close(&s);
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_NO_PROGRESS = 256, OPT_NO_FETCH, OPT_SUMMARY, OPT_NO_SUMMARY,
	       OPT_JSON };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "folded", no_argument, NULL, 'f' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "no-fetch", no_argument, NULL, OPT_NO_FETCH },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	bool inject = argc >= 2 && !strcmp(argv[1], "inject");
	if (argc < 2 || (strcmp(argv[1], "script") != 0 && !inject)) {
		fprintf(stderr, "ehelf-perf: %s\n", argc < 2 ? "missing command"
				: "unknown command (the commands are: script, inject)");
		usage(stderr);
		return 2;
	}
	const char *input = "perf.data", *output = NULL;
	bool folded = false, show_progress = isatty(2), fetch = true, json = false;
	/* -1: default (script: on a terminal; inject: always) */
	int summary = -1;
	int c;
	optind = 2;
	while ((c = getopt_long(argc, argv, "i:o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'o': output = optarg; break;
		case 'f': folded = true; break;
		case OPT_NO_PROGRESS: show_progress = false; break;
		case OPT_NO_FETCH: fetch = false; break;
		case OPT_SUMMARY: summary = 1; break;
		case OPT_NO_SUMMARY: summary = 0; break;
		case OPT_JSON: json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ehelf-perf: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if ((inject && folded) || (!inject && output)) {
		fprintf(stderr, "ehelf-perf: %s is not an option of %s\n",
			inject ? "--folded" : "--output", argv[1]);
		usage(stderr);
		return 2;
	}
	if (summary == 0)
		json = false;
	if (inject)
		return run_inject(input, output ? output : "perf.ehelf.data",
				  show_progress, fetch, summary, json);
	if (summary < 0)
		summary = isatty(2);
	return run_script(input, folded, show_progress, fetch, summary, json);
}
