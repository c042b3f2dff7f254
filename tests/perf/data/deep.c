/* A recursion DEPTH calls deep (argument 1, default 300) under main, the
 * work at its bottom: stacks of more frames than perf's 127. */
#include <stdlib.h>

__attribute__((noinline)) unsigned long deep(unsigned long n, unsigned long x)
{
	if (n == 0) {
		for (unsigned long i = 0; i < 3000; i++)
			x = x * 6364136223846793005ul + i;
		return x;
	}
	return deep(n - 1, x + n) * 3 + 1;
}

int main(int argc, char **argv)
{
	unsigned long s = 0, depth = argc > 1 ? strtoul(argv[1], NULL, 0) : 300;
	for (int i = 0; i < 30000; i++)
		s += deep(depth, s);
	return s == 42;
}
