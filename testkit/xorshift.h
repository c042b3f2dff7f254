/*
 * xorshift.h - the tests' pseudo-random numbers: xorshift64 (Marsaglia),
 * deterministic from the seed in *STATE (nonzero), so that a failing run
 * repeats.
 */
#ifndef EHELF_TESTS_XORSHIFT_H
#define EHELF_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif
