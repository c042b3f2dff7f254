// templates.cc - C++ for cc1plus to chew on (tests/perf/record-workloads.sh):
// SCALE levels of recursive template instantiation over std::map,
// std::vector, std::string and std::sort.
#include <algorithm>
#include <map>
#include <string>
#include <vector>
template <int N> struct W {
	std::map<std::string, std::vector<int>> m;
	int run(const std::string &s) {
		int n = (int)(s.find(std::to_string(N)) % 7);
		auto &v = m[s];
		v.push_back(n);
		std::sort(v.begin(), v.end());
		return n + W<N - 1>().run(s);
	}
};
template <> struct W<0> { int run(const std::string &) { return 0; } };
int f(const std::string &s) { return W<SCALE>().run(s); }
