/*
 * unit.h - the smallest test harness that reports well: CHECK macros that
 * print the failing expression with file and line and count failures;
 * UNIT_DONE() ends main() with the right status.
 */
#ifndef EHELF_TESTS_UNIT_H
#define EHELF_TESTS_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond)                                                          \
	do {                                                                 \
		unit_checks++;                                               \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,  \
				__LINE__, #cond);                            \
			unit_failures++;                                     \
		}                                                            \
	} while (0)

#define CHECK_U64(a, b)                                                      \
	do {                                                                 \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);             \
		unit_checks++;                                               \
		if (a_ != b_) {                                              \
			fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64    \
				" != 0x%" PRIx64 "\n", __FILE__, __LINE__, #a,  \
				#b, a_, b_);                                 \
			unit_failures++;                                     \
		}                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *a_ = (a), *b_ = (b);                             \
		unit_checks++;                                               \
		if (strcmp(a_, b_) != 0) {                                   \
			fprintf(stderr, "%s:%d: %s == %s failed:\n  got:  "     \
				"'%s'\n  want: '%s'\n", __FILE__, __LINE__, #a, \
				#b, a_, b_);                                 \
			unit_failures++;                                     \
		}                                                            \
	} while (0)

/* True when NEEDLE occurs in HAY; for checking error messages. */
#define CHECK_CONTAINS(hay, needle) CHECK(strstr((hay), (needle)) != NULL)

/* A test that made no check has not run: it fails. */
#define UNIT_DONE(name)                                                      \
	do {                                                                 \
		fprintf(stderr, "%s: %d checks, %d failed%s\n", name,         \
			unit_checks, unit_failures,                          \
			unit_checks ? "" : ": no check made");               \
		return unit_failures || !unit_checks ? 1 : 0;                \
	} while (0)

/* $EHELF_BUILD, the build directory (its programs and fixtures) that
 * scripts/run-unit-tests.sh gives every test; a test that needs it fails
 * without it, it is never skipped. */
static inline const char *unit_build_dir(const char *name)
{
	const char *build = getenv("EHELF_BUILD");
	if (!build || !build[0]) {
		fprintf(stderr, "%s: EHELF_BUILD unset: run it through "
			"scripts/run-unit-tests.sh BUILD (make unit)\n", name);
		exit(1);
	}
	return build;
}

#endif
