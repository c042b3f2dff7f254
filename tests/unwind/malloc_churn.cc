/*
 * malloc_churn.cc - a malloc-heavy workload for the profilers of
 * run-sigsafe-tests.sh and bench/sigsafe-bench.sh (gperftools, heaptrack):
 * ROUNDS rounds of C++ containers growing and shrinking (libstdc++'s
 * operator new over malloc), C strings made and freed at the bottom of a
 * recursion, and qsort (libc) over them, so that allocations and samples
 * are met in this program, in libstdc++ and in libc.  Deterministic: the
 * same allocations in every run.  Prints a checksum.
 * Usage: malloc-churn ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <map>
#include <string>
#include <vector>

static __attribute__((noinline)) unsigned strings(int round, int depth, char **out, int n)
{
	if (depth > 0) {
		unsigned s = strings(round, depth - 1, out, n);
		__asm__ volatile("" ::: "memory");
		return s;
	}
	unsigned s = 0;
	for (int i = 0; i < n; i++) {
		out[i] = (char *)malloc(24 + (size_t)(i % 40));
		snprintf(out[i], 24, "%d-%d", round * 31 + i * 7, i);
		s += (unsigned char)out[i][0];
	}
	return s;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static __attribute__((noinline)) unsigned containers(int round)
{
	std::vector<std::string> v;
	std::map<int, std::string> m;
	for (int i = 0; i < 200; i++) {
		v.push_back(std::to_string(round + i) + " of the strings grown here");
		m[i * 13 % 97] = v.back();
	}
	unsigned s = 0;
	for (auto &e : m)
		s += (unsigned)e.second.size();
	return s;
}

static __attribute__((noinline)) unsigned one_round(int round)
{
	char *p[64];
	unsigned s = strings(round, 6, p, 64);
	qsort(p, 64, sizeof p[0], by_text);
	for (int i = 0; i < 64; i++)
		free(p[i]);
	return s + containers(round);
}

int main(int argc, char **argv)
{
	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: malloc-churn ROUNDS\n");
		return 2;
	}
	int rounds = atoi(argv[1]);
	unsigned s = 0;
	for (int r = 0; r < rounds; r++)
		s += one_round(r);
	printf("checksum %u\n", s);
	return 0;
}
