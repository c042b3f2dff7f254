// cold_cxx.cc - the C++ workload of the cold sampling benchmark: deep
// template recursion (Level<N> calls Level<N-1>, 24 distinct functions
// deep), each level sorting, hashing and mapping strings through libstdc++
// over a working set of several MiB (evicting the caches between samples).
#include <algorithm>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

double cpu_now()
{
	timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct State {
	std::vector<std::string> names;
	std::unordered_map<std::string, unsigned> counts;
	std::map<std::string, unsigned> ordered;
	uint64_t x = 0x9e3779b97f4a7c15ull;
};

template <int N, typename T> struct Level {
	__attribute__((noinline)) static unsigned long run(State &s, T salt)
	{
		unsigned long sum = Level<N - 1, T>::run(s, salt + (T)N);
		if (N % 6 == 0) { // some work on the way out too, at each depth
			std::sort(s.names.begin() + (N * 997) % 1000,
				  s.names.begin() + (N * 997) % 1000 + 20000);
			sum += s.names[(size_t)N * 31].size();
		}
		return sum + (unsigned long)salt;
	}
};

template <typename T> struct Level<0, T> {
	__attribute__((noinline)) static unsigned long run(State &s, T salt)
	{
		unsigned long sum = 0;
		for (int i = 0; i < 20000; i++) {
			s.x ^= s.x << 13, s.x ^= s.x >> 7, s.x ^= s.x << 17;
			std::string &n = s.names[s.x % s.names.size()];
			n[4] = (char)('a' + (s.x >> 32) % 26);
			sum += ++s.counts[n];
			if (i % 8 == 0)
				sum += ++s.ordered[n];
		}
		return sum + (unsigned long)salt;
	}
};

} // namespace

extern "C" unsigned long work_cxx(double seconds)
{
	State s;
	for (int i = 0; i < 200000; i++)
		s.names.push_back("name" + std::string(1, 'a' + i % 26) +
				  std::to_string(i * 7919 % 200000) + "-with-a-longer-tail");
	unsigned long sum = 0;
	double end = cpu_now() + seconds;
	do {
		sum += Level<24, long>::run(s, 1);
		if (s.counts.size() > 400000) {
			s.counts.clear();
			s.ordered.clear();
		}
	} while (cpu_now() < end);
	return sum;
}
