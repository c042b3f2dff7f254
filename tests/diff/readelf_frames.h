/*
 * readelf_frames.h - runs binutils `readelf --debug-dump=frames-interp` on a
 * file and hands each FDE's table to a callback, as readelf printed it.
 *
 * Strings are readelf's: CFA "rsp+8"/"exp", registers "c-16", "v+8", a
 * register name, "exp", "vexp", "s", "u"; "" when readelf has no column
 * for the register.  Columns above 16 are counted in `extra`.
 */
#ifndef EHELF_TESTS_READELF_FRAMES_H
#define EHELF_TESTS_READELF_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RE_NCOLS = 17, RE_STR = 24 };

typedef struct re_row {
	uint64_t loc;
	char cfa[RE_STR];
	char col[RE_NCOLS][RE_STR];
	unsigned extra; /* non-'u' rules in columns > 16 */
} re_row;

typedef struct re_fde {
	char section[32];     /* ".eh_frame", ".debug_frame" */
	uint64_t offset;      /* of the entry */
	uint64_t cie;         /* offset of its CIE */
	uint64_t lo, hi;
	const re_row *rows;   /* as printed; may be empty */
	size_t nrows;
	const re_row *cie_row;/* the CIE's initial row, or NULL */
} re_fde;

/* Called for every FDE; a non-zero return stops the run and is returned. */
typedef int (*re_fde_fn)(void *arg, const re_fde *fde);

/* Run readelf on PATH.  Returns the callback's stop value, 0 when all FDEs
 * were delivered, or -1 with a message in ERRBUF. */
int readelf_frames(const char *path, re_fde_fn fn, void *arg, char *errbuf,
		   size_t errlen);

#endif
