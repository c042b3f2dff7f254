/*
 * cfi_build.h - builds .eh_frame / .debug_frame byte images for unit tests:
 * a growable byte buffer with little-endian and LEB128 appenders and
 * length back-patching.
 */
#ifndef EHELF_TESTS_CFI_BUILD_H
#define EHELF_TESTS_CFI_BUILD_H

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct bbuf {
	uint8_t d[8192];
	size_t n;
} bbuf;

static inline void b_u8(bbuf *b, uint8_t v) { b->d[b->n++] = v; }
static inline void b_bytes(bbuf *b, const void *p, size_t n)
{
	memcpy(b->d + b->n, p, n);
	b->n += n;
}
static inline void b_u16(bbuf *b, uint16_t v) { b_bytes(b, &v, 2); }
static inline void b_u32(bbuf *b, uint32_t v) { b_bytes(b, &v, 4); }
static inline void b_u64(bbuf *b, uint64_t v) { b_bytes(b, &v, 8); }
static inline void b_uleb(bbuf *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		b_u8(b, byte | (v ? 0x80 : 0));
	} while (v);
}
static inline void b_sleb(bbuf *b, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;
		v >>= 7; /* arithmetic shift */
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
			b_u8(b, byte);
			return;
		}
		b_u8(b, byte | 0x80);
	}
}
static inline void b_str(bbuf *b, const char *s) { b_bytes(b, s, strlen(s) + 1); }

/* Start a 32-bit-length entry: returns the offset of its length field. */
static inline size_t b_begin32(bbuf *b)
{
	size_t at = b->n;
	b_u32(b, 0);
	return at;
}
static inline void b_end32(bbuf *b, size_t at)
{
	uint32_t len = (uint32_t)(b->n - at - 4);
	memcpy(b->d + at, &len, 4);
}
/* 64-bit length: 0xffffffff then 8 bytes. */
static inline size_t b_begin64(bbuf *b)
{
	size_t at = b->n;
	b_u32(b, 0xffffffff);
	b_u64(b, 0);
	return at;
}
static inline void b_end64(bbuf *b, size_t at)
{
	uint64_t len = b->n - at - 12;
	memcpy(b->d + at + 4, &len, 8);
}
/* Pad an entry with DW_CFA_nop to a multiple of 8 from its start. */
static inline void b_pad(bbuf *b, size_t at)
{
	while ((b->n - at) % 8)
		b_u8(b, 0);
}

/* A CIE of CFA rsp+8, return address at CFA-8: for .eh_frame (EH)
 * "zR" with pc-relative 4-byte addresses ("zRS", a signal frame's, with
 * SIGNAL), else version 4 with 8-byte addresses.  Returns its offset. */
static inline size_t b_cie_rsp8(bbuf *b, bool eh, bool signal)
{
	size_t at = b_begin32(b);
	b_u32(b, eh ? 0 : DW_CIE_ID_32);
	b_u8(b, eh ? 1 : 4);
	b_str(b, !eh ? "" : signal ? "zRS" : "zR");
	if (!eh) {
		b_u8(b, 8);
		b_u8(b, 0);
	}
	b_uleb(b, 1); b_sleb(b, -8);
	if (eh) {
		b_u8(b, 16);
		b_uleb(b, 1);
		b_u8(b, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	} else {
		b_uleb(b, 16);
	}
	b_u8(b, DW_CFA_def_cfa); b_uleb(b, 7); b_uleb(b, 8);
	b_u8(b, DW_CFA_offset | 16); b_uleb(b, 1);
	b_pad(b, at);
	b_end32(b, at);
	return at;
}

#endif