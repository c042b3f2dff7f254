/*
 * ehelf-stats - the statistics of a corpus ehelf-batch compiled: sizes,
 * rules, FDEs, rule sets, compile time and packages, from its database
 * (store/schema.sql, version 3), as text tables, JSON, CSV files or one
 * HTML page.  Every table says how its figures were computed.
 *
 * Exit status: 0 success, 1 a database it cannot use (missing, not an
 * ehelf database, of another version, damaged) or an output it cannot
 * write, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render_csv.h"
#include "render_html.h"
#include "render_json.h"
#include "render_text.h"
#include "report.h"
#include "stats_db.h"

#define DEFAULT_DB "build/store/ehelf.sqlite"
enum { DEFAULT_TOP = 20, MAX_TOP = 1000000 };

static void usage(FILE *out)
{
	fputs("Usage: ehelf-stats [--db FILE] [--json] [--text] [--csv DIR]\n"
	      "                   [--html OUT.html] [--top N]\n"
	      "\n"
	      "The statistics of the eh_elfs ehelf-batch compiled, from its database:\n"
	      "sizes (programs, .eh_frame, eh_elfs), rule kinds and coverage, DWARF\n"
	      "operations, FDE rows and sizes, rule sets, compile time, packages, and\n"
	      "eh_elfs against .eh_frame, SFrame and frame pointers.  Each table says\n"
	      "how its figures were computed.  Archive-wide figures count each\n"
	      "distinct build-ID once.\n"
	      "\n"
	      "  -d, --db FILE     the database (default: " DEFAULT_DB ", which\n"
	      "                    `make run` builds; ehelf-batch writes\n"
	      "                    STORE/ehelf.sqlite); opened read-only\n"
	      "      --json        one JSON object with every table on stdout\n"
	      "      --csv DIR     one CSV file per table, DIR/ID.csv (DIR created)\n"
	      "      --html FILE   one self-contained HTML page (- for stdout)\n"
	      "      --text        text tables on stdout (the default when no other\n"
	      "                    output is asked for)\n"
	      "  -n, --top N       rows of the top-packages and commonest-rule-set\n"
	      "                    tables (default 20)\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "The outputs carry the date they were made (SOURCE_DATE_EPOCH, when set,\n"
	      "instead of now: the same database then gives the same bytes).\n"
	      "\n"
	      "Exit status: 0 success, 1 a database it cannot use or an output it\n"
	      "cannot write, 2 usage.\n", out);
}

typedef struct opts {
	const char *db, *html, *csv;
	bool json, text;
	int top;
} opts;

/* Parse ARGV into O.  Returns 0, 1 for --help (done), or 2 (bad usage,
 * said on stderr). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option longs[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "html", required_argument, NULL, 'H' },
		{ "csv", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "text", no_argument, NULL, 'T' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (opts){ .db = DEFAULT_DB, .top = DEFAULT_TOP };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:h", longs, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'H': o->html = optarg; break;
		case 'C': o->csv = optarg; break;
		case 'J': o->json = true; break;
		case 'T': o->text = true; break;
		case 'n': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > MAX_TOP) {
				fprintf(stderr, "ehelf-stats: --top %s: not a number from "
					"1 to %d\n", optarg, MAX_TOP);
				return 2;
			}
			o->top = (int)v;
			break;
		}
		case 'h': usage(stdout); return 1;
		case ':':
			fprintf(stderr, "ehelf-stats: %s needs an argument\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "ehelf-stats: unknown option %s\n",
				argv[optind - 1]);
			fputs("Try 'ehelf-stats --help'.\n", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ehelf-stats: unexpected argument %s (the database "
			"is named with --db)\n", argv[optind]);
		return 2;
	}
	if (o->html && strcmp(o->html, "-") == 0 && (o->json || o->text)) {
		fputs("ehelf-stats: --html - and --json or --text would share "
		      "stdout: choose one\n", stderr);
		return 2;
	}
	if (o->json && o->text) {
		fputs("ehelf-stats: --json and --text both write stdout: choose "
		      "one\n", stderr);
		return 2;
	}
	if (!o->json && !o->html && !o->csv)
		o->text = true;
	return 0;
}

static int write_html(const char *path, const stats_report *r, ehelf_err *err)
{
	if (strcmp(path, "-") == 0)
		return render_html(stdout, r, err);
	/* written beside, then renamed: a reader never sees half a page */
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return err_set(err, ERR_IO, "%s: path too long", path);
	FILE *out = fopen(tmp, "w");
	if (!out)
		return err_set(err, ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
	int rc = render_html(out, r, err);
	if (fclose(out) != 0 && rc == 0)
		rc = err_set(err, ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_set(err, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if (rc < 0) {
		remove(tmp);
		return err_prefix(err, "%s", path);
	}
	return 0;
}

int main(int argc, char **argv)
{
	opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : 2;

	ehelf_err err = { 0 };
	stats_db db;
	if (stats_db_open(&db, o.db, o.top, &err) < 0) {
		fprintf(stderr, "ehelf-stats: %s\n", err.msg);
		return 1;
	}
	stats_report r = { 0 };
	rc = report_build(&db, &r, &err);
	stats_db_close(&db);
	/* the path as the outputs show it: valid UTF-8, like every text */
	char *shown = stats_text_sanitize(o.db);
	r.database = shown ? shown : "?";
	if (rc == 0) {
		/* SOURCE_DATE_EPOCH, when set, makes the outputs reproducible */
		const char *sde = getenv("SOURCE_DATE_EPOCH");
		char *end = NULL;
		errno = 0;
		long long epoch = sde && *sde ? strtoll(sde, &end, 10) : -1;
		time_t now = end && !*end && epoch >= 0 && errno == 0
			     ? (time_t)epoch : time(NULL);
		struct tm tm;
		if (!gmtime_r(&now, &tm)) { /* a year beyond struct tm's */
			now = time(NULL);
			gmtime_r(&now, &tm);
		}
		strftime(r.generated, sizeof r.generated, "%Y-%m-%d %H:%M UTC", &tm);
		if (o.csv)
			rc = render_csv(o.csv, &r, &err);
		if (rc == 0 && o.html)
			rc = write_html(o.html, &r, &err);
		if (rc == 0 && o.json)
			rc = render_json(stdout, &r, &err);
		if (rc == 0 && o.text)
			rc = render_text(stdout, &r, &err);
	}
	stats_report_free(&r);
	free(shown);
	if (rc < 0) {
		fprintf(stderr, "ehelf-stats: %s\n", err.msg);
		return 1;
	}
	return 0;
}
