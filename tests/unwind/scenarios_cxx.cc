// scenarios_cxx.cc - the libstdc++ scenarios of scenarios.h.
#include <algorithm>
#include <dlfcn.h>
#include <stdexcept>
#include <unwind.h>
#include <vector>

#include "scenarios.h"

static thread_local bool probe_in_personality;

/* The C++ personality routine, interposed: called by libgcc's unwinder
 * while the exception is searched for, it probes once with
 * _Unwind_RaiseException and __cxa_throw on the stack, then hands over. */
extern "C" _Unwind_Reason_Code
__gxx_personality_v0(int version, _Unwind_Action actions,
		     _Unwind_Exception_Class cls, _Unwind_Exception *ex,
		     _Unwind_Context *ctx)
{
	using fn = _Unwind_Reason_Code (*)(int, _Unwind_Action,
					   _Unwind_Exception_Class,
					   _Unwind_Exception *, _Unwind_Context *);
	static fn real = (fn)dlsym(RTLD_NEXT, "__gxx_personality_v0");
	if (probe_in_personality) {
		probe_in_personality = false;
		probe("exception in flight");
	}
	return real(version, actions, cls, ex, ctx);
}

namespace {

struct ProbeOnDestroy {
	// a cleanup run while the exception propagates
	~ProbeOnDestroy() { probe("cleanup"); }
};

__attribute__((noinline)) void thrower(int n)
{
	ProbeOnDestroy p;
	if (n > 0)
		throw std::runtime_error("unwinding");
}

} // namespace

extern "C" void scen_cxx(void)
{
	std::vector<int> v;
	for (int i = 0; i < 64; i++)
		v.push_back((i * 7919) % 64);
	int calls = 0;
	std::sort(v.begin(), v.end(), [&calls](int a, int b) {
		if (calls++ == 10)
			probe("std::sort");
		return a < b;
	});
	try {
		probe_in_personality = true;
		thrower(1);
	} catch (const std::exception &) {
	}
}
