/* workload.c - the C program perf records in the perf-libunwind tests
 * and bench (built without frame pointers): qsort with a callback,
 * snprintf, malloc.  Usage: workload N ROUNDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static long work(int n, int rounds)
{
	int *v = malloc((size_t)n * sizeof *v);
	long s = 0;
	if (!v)
		return -1;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			v[i] = (int)(((long)i * 7919 + r) % 100003);
		qsort(v, (size_t)n, sizeof *v, cmp);
		char buf[64];
		for (int i = 0; i < n; i += 97) {
			snprintf(buf, sizeof buf, "%d", v[i]);
			s += (long)strlen(buf);
		}
	}
	free(v);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	int rounds = argc > 2 ? atoi(argv[2]) : 40;
	if (n <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: workload N ROUNDS (both > 0)\n");
		return 2;
	}
	printf("%ld\n", work(n, rounds));
	return 0;
}
