/*
 * ehelf-find - the eh_elf of one build-ID through libehelf's resolution
 * chain (resolve.h: $EHELF_PATH, /usr/lib/ehelf, the cache, then the
 * servers of $EHELF_URLS into the cache), as debuginfod-find does for
 * debug files: its local path on stdout.
 *
 * Exit status: 0 found, 1 not found (or an error), 2 bad usage or a
 * malformed build-ID, 3 refused (present or sent, but not trusted,
 * malformed or for another build-ID), 4 no server answered in time.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../common/buildid.h"
#include "../../common/elf_file.h"
#include "../../client-lib/fetch.h"
#include "../../client-lib/resolve.h"

enum { EXIT_NOT_FOUND = 1, EXIT_USAGE = 2, EXIT_REFUSED = 3, EXIT_FAILED = 4 };

static void usage(FILE *out)
{
	fputs("Usage: ehelf-find [-v] BUILDID | ELF-FILE\n"
	      "\n"
	      "Find the eh_elf of a build-ID (lowercase hex), or of an ELF file's,\n"
	      "as libehelf does, and print its local path: in each store of\n"
	      "$EHELF_PATH, in /usr/lib/ehelf, in the cache ($EHELF_CACHE_PATH,\n"
	      "else $XDG_CACHE_HOME/ehelf, else ~/.cache/ehelf), else fetched into\n"
	      "the cache from the servers of $EHELF_URLS.  What is fetched or\n"
	      "cached must be signed by a key of $EHELF_TRUSTED_KEYS (else\n"
	      "/etc/ehelf/trusted-keys); see docs/trust.md for EHELF_TIMEOUT,\n"
	      "EHELF_PROGRESS, EHELF_VERBOSE and the rest.\n"
	      "\n"
	      "  -v, --verbose  show where it looked, and each request\n"
	      "  -h, --help     this help\n"
	      "\n"
	      "Exit status: 0 found, 1 not found, 2 bad usage or a malformed\n"
	      "build-ID, 3 refused (not trusted, malformed, for another build-ID),\n"
	      "4 no server answered in time.\n", out);
}

static void trace(void *arg, resolve_place place, const char *file,
		  const char *outcome)
{
	if (*(const bool *)arg)
		fprintf(stderr, "ehelf-find: %s: %s: %s\n",
			resolve_place_name(place), file, outcome ? outcome : "found");
}

/* The build-ID ARG names (itself, or an ELF file's) into HEX. */
static int build_id_of(const char *arg, char *hex, size_t n)
{
	struct stat st;
	if (buildid_valid_hex(arg) || stat(arg, &st) != 0) {
		if (!buildid_valid_hex(arg)) {
			fprintf(stderr, "ehelf-find: '%s' is neither a build-ID "
				"(2 to 128 lowercase hex digits, an even number) "
				"nor a file\n", arg);
			return -1;
		}
		snprintf(hex, n, "%s", arg);
		return 0;
	}
	elf_file f;
	ehelf_err err;
	const uint8_t *id;
	int len = -1;
	if (elf_file_open(&f, arg, &err) < 0) {
		fprintf(stderr, "ehelf-find: %s\n", err.msg);
		return -1;
	}
	if ((len = elf_file_build_id(&f, &id)) > 0)
		buildid_to_hex(id, (size_t)len, hex, n);
	elf_file_close(&f);
	if (len <= 0)
		fprintf(stderr, "ehelf-find: %s: no GNU build-ID\n", arg);
	return len > 0 ? 0 : -1;
}

/* Found: its path on stdout. */
static int found(ehelf_object *o, const resolve_result *r)
{
	ehelf_object_close(o);
	printf("%s\n", r->path);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool verbose = false;
	int opt;
	while ((opt = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		if (opt == 'v') {
			verbose = true;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	char hex[BUILDID_HEX_MAX + 1];
	if (build_id_of(argv[optind], hex, sizeof hex) < 0)
		return EXIT_USAGE;
	fetch_config c;
	ehelf_err err;
	if (fetch_config_load(&c, &err) < 0) {
		fprintf(stderr, "ehelf-find: %s\n", err.msg);
		return EXIT_NOT_FOUND;
	}
	c.verbose |= verbose;
	resolve_result r;
	ehelf_object *o = resolve_open(hex, &c, &r, trace, &verbose);
	int rc = EXIT_NOT_FOUND;
	fetch_status st = FETCH_NOT_FOUND;
	char why[1][256] = { "" };
	const char *ids[1] = { hex };
	if (o) {
		rc = found(o, &r);
	} else if (!c.urls[0]) {
		fprintf(stderr, "ehelf-find: %s: %s%s\n", hex, r.refused ? r.why
			: "not found", r.refused ? "" : " (and no server: "
			"EHELF_URLS is not set)");
		rc = r.refused ? EXIT_REFUSED : EXIT_NOT_FOUND;
	} else if (fetch_ids(&c, ids, 1, &st, why, &err) < 0) {
		fprintf(stderr, "ehelf-find: %s: %s\n", hex, err.msg);
	} else if (st == FETCH_CACHED) {
		o = resolve_open(hex, &c, &r, trace, &verbose);
		if (o)
			rc = found(o, &r);
		else
			fprintf(stderr, "ehelf-find: %s: fetched, then refused: "
				"%s\n", hex, r.why);
		rc = o ? 0 : EXIT_REFUSED;
	} else {
		/* a refusal here (a local file) tells more than "not found" */
		bool local = st == FETCH_NOT_FOUND && r.refused;
		fprintf(stderr, "ehelf-find: %s: %s: %s\n", hex,
			local ? "refused" : fetch_status_str(st),
			local ? r.why : why[0]);
		rc = local || st == FETCH_REFUSED ? EXIT_REFUSED
		     : st == FETCH_FAILED ? EXIT_FAILED : EXIT_NOT_FOUND;
	}
	fetch_config_free(&c);
	return rc;
}
