// throw.cc - exception-heavy C++ for ehelf-perf's tests: exceptions thrown
// through a recursion of a varying depth and caught, in a loop, so that
// samples fall in libstdc++'s throw, in libgcc's unwinder (its two phases,
// its FDE search) and in libgcc installing the catch block, whose last
// instructions move the stack pointer under CFI that still names slots
// below it.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static int __attribute__((noinline)) descend(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom");
	return descend(n - 1) + 1;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 100000, caught = 0;
	for (long i = 0; i < rounds; i++) {
		try {
			descend(int(i % 24));
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::printf("%ld\n", caught);
	return caught == rounds ? 0 : 1;
}
