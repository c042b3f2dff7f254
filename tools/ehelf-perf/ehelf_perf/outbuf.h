/*
 * outbuf.h - buffered text output without printf in the hot path: what
 * ehelf-perf prints for millions of frames.
 */
#ifndef EHELF_PERF_TOOL_OUTBUF_H
#define EHELF_PERF_TOOL_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct outbuf {
	FILE *f;
	char buf[1 << 16];
	size_t n;
	int error;          /* a write failed (errno) */
	uint64_t flushes;   /* times buf was written out (and emptied) */
} outbuf;

void ob_init(outbuf *o, FILE *f);
/* Write what is buffered; 0 or -1 (o->error set). */
int ob_flush(outbuf *o);

void ob_mem(outbuf *o, const char *s, size_t n);
void ob_str(outbuf *o, const char *s);
void ob_char(outbuf *o, char c);
/* V in lowercase hex, right-aligned in WIDTH columns (0: no padding). */
void ob_hex(outbuf *o, uint64_t v, int width);
/* V in decimal, right-aligned in WIDTH columns, or zero-padded to WIDTH
 * digits when ZEROS. */
void ob_dec(outbuf *o, uint64_t v, int width, int zeros);

#endif
