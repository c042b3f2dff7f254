/* Calls of varied depth (6 to 14 frames of walk under a, b and main), a
 * tree of call paths: built with frame pointers, a program whose
 * `--call-graph fp` and `--call-graph dwarf` recordings have the same
 * stacks (argument 1: iterations, default 100000, about 0.2 s). */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 200; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long walk(int depth, unsigned long x)
{
	if (depth == 0)
		return leaf(x);
	unsigned long r = (x & 1) ? walk(depth - 1, x >> 1) : walk(depth - 1, x + 3);
	return r + ((depth & 3) ? leaf(r) : 0);
}

__attribute__((noinline)) static void a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += walk(6 + (int)(i % 9), i);
}

__attribute__((noinline)) static void b(unsigned long n)
{
	a(n);
	sink++;
}

int main(int argc, char **argv)
{
	b(argc > 1 ? strtoul(argv[1], NULL, 10) : 100000);
	printf("%lu\n", sink);
	return 0;
}
