/* A recursive program for run-perf-tests.sh, linked with lld: its PT_LOADs
 * share file pages (the executable one starts inside the first page), so
 * that a mapping's file offset alone does not tell which segment it maps. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long down(int depth, unsigned long x)
{
	if (depth == 0)
		return leaf(x);
	unsigned long r = down(depth - 1, x + (unsigned long)depth);
	return r ^ (r >> 7);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	unsigned long s = 0;
	for (long i = 0; i < n; i++)
		s += down((int)(i % 24), (unsigned long)i);
	printf("%lu\n", s);
	return 0;
}
