/*
 * cursor.h - bounds-checked little-endian reads from a byte buffer.
 *
 * A cursor never reads outside [p, end).  A read past the end, or a LEB128
 * that does not fit in 64 bits, sets the sticky `bad` flag, leaves the
 * cursor at `end` and yields 0; callers check `bad` once after a group of
 * reads instead of after every field.  x86_64 only: reads are little-endian.
 */
#ifndef EHELF_COMMON_CURSOR_H
#define EHELF_COMMON_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "ehelf reads little-endian ELF files on a little-endian host");

typedef struct cursor {
	const uint8_t *p;   /* next byte to read */
	const uint8_t *end; /* one past the last readable byte */
	bool bad;           /* set by any out-of-bounds or overflowing read */
} cursor;

static inline cursor cursor_make(const void *p, size_t n)
{
	return (cursor){ (const uint8_t *)p, (const uint8_t *)p + n, false };
}

static inline size_t cur_left(const cursor *c)
{
	return (size_t)(c->end - c->p);
}

static inline bool cur_fail(cursor *c)
{
	c->bad = true;
	c->p = c->end;
	return false;
}

/* Ensure N more bytes are readable; sets `bad` and returns false if not. */
static inline bool cur_need(cursor *c, size_t n)
{
	return cur_left(c) >= n ? true : cur_fail(c);
}

static inline void cur_skip(cursor *c, size_t n)
{
	if (cur_need(c, n))
		c->p += n;
}

static inline uint8_t cur_u8(cursor *c)
{
	return cur_need(c, 1) ? *c->p++ : 0;
}

#define CURSOR_FIXED_READ(name, type)                                    \
	static inline type name(cursor *c)                               \
	{                                                                \
		type v = 0;                                              \
		if (cur_need(c, sizeof v)) {                             \
			memcpy(&v, c->p, sizeof v);                      \
			c->p += sizeof v;                                \
		}                                                        \
		return v;                                                \
	}
CURSOR_FIXED_READ(cur_u16, uint16_t)
CURSOR_FIXED_READ(cur_u32, uint32_t)
CURSOR_FIXED_READ(cur_u64, uint64_t)
CURSOR_FIXED_READ(cur_s16, int16_t)
CURSOR_FIXED_READ(cur_s32, int32_t)
CURSOR_FIXED_READ(cur_s64, int64_t)
#undef CURSOR_FIXED_READ

/* Unsigned LEB128.  Bits beyond 64 must be zero, else `bad` is set. */
static inline uint64_t cur_uleb(cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (c->p >= c->end)
			return cur_fail(c), 0;
		uint8_t b = *c->p++;
		uint64_t low = b & 0x7f;
		if (shift < 64) {
			if (shift > 57 && (low >> (64 - shift)) != 0)
				return cur_fail(c), 0;
			v |= low << shift;
		} else if (low != 0) {
			return cur_fail(c), 0;
		}
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

/* Signed LEB128.  Values outside int64_t set `bad`. */
static inline int64_t cur_sleb(cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (c->p >= c->end)
			return cur_fail(c), 0;
		b = *c->p++;
		uint64_t low = b & 0x7f;
		if (shift < 63) {
			v |= low << shift;
		} else if (shift == 63) {
			/* only the sign bit is left: 0x00 or 0x7f */
			if (low != 0 && low != 0x7f)
				return cur_fail(c), 0;
			v |= low << 63;
		} else if (low != 0 && low != 0x7f) {
			return cur_fail(c), 0;
		}
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

#endif
