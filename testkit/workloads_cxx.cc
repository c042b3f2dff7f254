// workloads_cxx.cc - the C++ workload of workloads.h: strings, a map,
// string streams and sorting through libstdc++, and exceptions thrown
// through a few frames and caught (libgcc's unwinder).
#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads.h"

namespace {

__attribute__((noinline)) int parse(const std::string &s)
{
	std::istringstream in(s);
	int v = 0;
	if (!(in >> v) || v % 13 == 0)
		throw std::invalid_argument("unlucky: " + s);
	return v;
}

__attribute__((noinline)) int checked(const std::string &s, int depth)
{
	return depth ? checked(s, depth - 1) + 1 : parse(s);
}

} // namespace

extern "C" unsigned long work_cxx(double seconds)
{
	unsigned long sum = 0;
	double end = cpu_now() + seconds;
	unsigned x = 7;
	do {
		std::map<std::string, int> counts;
		std::vector<std::string> names;
		for (int i = 0; i < 2000; i++) {
			x = x * 1103515245 + 12345;
			std::ostringstream os;
			os << "key-" << (x >> 20) % 500 << '-' << i % 7;
			names.push_back(os.str());
			counts[names.back()]++;
		}
		std::sort(names.begin(), names.end());
		for (const auto &n : names) {
			try {
				sum += (unsigned long)checked(std::to_string(n.size() * 37 + counts[n]), 3);
			} catch (const std::exception &e) {
				sum += std::string(e.what()).size();
			}
		}
	} while (cpu_now() < end);
	return sum;
}
