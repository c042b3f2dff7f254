/*
 * unwind_abi.cc - the C++ exception ABI (_Unwind_*) as a program linked
 * with libunwind, with libgcc alone or with libehelf-unwind meets it
 * (tests/unwind/run-unwind-abi-tests.sh runs it as built, preloaded and
 * relinked, and compares the outputs).
 *
 * Prints one line per check:
 *   caught: an exception thrown three frames down, through two frames
 *           whose destructors run on the way (their landing pads call
 *           _Unwind_Resume from this program), and the destructors' count;
 *   rethrown: the same caught, rethrown with `throw;` and caught again;
 *   thread: the same in a std::thread;
 *   backtrace: the frames _Unwind_Backtrace gives from three frames down,
 *           each as symbol+offset (this program is linked -rdynamic) or
 *           module+offset ("program" for this one), and whether each frame's CFA is above the last;
 *   enclosing: _Unwind_FindEnclosingFunction of a pc in this program;
 * and with --libunwind-names, the backtrace again through
 * __libunwind_Unwind_Backtrace (looked up with dlsym).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

#include <stdexcept>
#include <string>
#include <thread>

static int destroyed;

struct counted {
	~counted() { destroyed++; }
};

static __attribute__((noinline)) void thrower(int depth)
{
	counted c;
	if (depth == 0)
		throw std::runtime_error("from the bottom");
	thrower(depth - 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

static std::string catch_one(void)
{
	destroyed = 0;
	try {
		thrower(2);
	} catch (const std::exception &e) {
		return std::string(e.what()) + " after " + std::to_string(destroyed) +
		       " destructors";
	}
	return "nothing caught";
}

static std::string rethrow_one(void)
{
	try {
		try {
			thrower(1);
		} catch (const std::exception &) {
			throw;
		}
	} catch (const std::exception &e) {
		return std::string("again: ") + e.what();
	}
	return "nothing caught";
}

static void main_program(void)
{
}

/* a frame as symbol+offset, or module basename+offset */
static void print_pc(FILE *out, unsigned long pc)
{
	Dl_info di;
	if (!dladdr((void *)pc, &di) || !di.dli_fname) {
		fprintf(out, " ?");
		return;
	}
	if (di.dli_sname && di.dli_saddr) {
		fprintf(out, " %s+0x%lx", di.dli_sname, pc - (unsigned long)di.dli_saddr);
		return;
	}
	Dl_info self;
	const char *slash = strrchr(di.dli_fname, '/');
	const char *name = slash ? slash + 1 : di.dli_fname;
	if (dladdr((void *)&main_program, &self) && self.dli_fbase == di.dli_fbase)
		name = "program"; /* the same whichever way it was linked */
	fprintf(out, " %s+0x%lx", name, pc - (unsigned long)di.dli_fbase);
}

struct trace {
	unsigned long pcs[64], cfas[64];
	int n;
};

static _Unwind_Reason_Code one_frame(struct _Unwind_Context *c, void *arg)
{
	trace *t = (trace *)arg;
	if (t->n == 64)
		return _URC_END_OF_STACK;
	int before = 0;
	t->pcs[t->n] = _Unwind_GetIPInfo(c, &before);
	t->cfas[t->n] = _Unwind_GetCFA(c);
	t->n++;
	return _URC_NO_REASON;
}

typedef _Unwind_Reason_Code (*backtrace_fn)(_Unwind_Trace_Fn, void *);

static __attribute__((noinline)) void print_backtrace(const char *label,
						       backtrace_fn bt, int depth)
{
	if (depth > 0) {
		print_backtrace(label, bt, depth - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	trace t;
	t.n = 0;
	bt(one_frame, &t);
	bool rising = true;
	printf("%s:", label);
	for (int i = 0; i < t.n; i++) {
		print_pc(stdout, t.pcs[i]);
		if (i > 0 && t.cfas[i] < t.cfas[i - 1])
			rising = false;
	}
	printf(" (%d frames, CFAs %s)\n", t.n, rising ? "rising" : "NOT RISING");
}

int main(int argc, char **argv)
{
	printf("caught: %s\n", catch_one().c_str());
	printf("rethrown: %s\n", rethrow_one().c_str());
	std::string in_thread;
	std::thread th([&in_thread] { in_thread = catch_one(); });
	th.join();
	printf("thread: %s\n", in_thread.c_str());
	print_backtrace("backtrace", _Unwind_Backtrace, 3);
	void *f = _Unwind_FindEnclosingFunction((void *)((unsigned long)&catch_one + 4));
	printf("enclosing: %s\n", f == (void *)&catch_one ? "catch_one" : "another");
	if (argc > 1 && strcmp(argv[1], "--libunwind-names") == 0) {
		backtrace_fn bt = (backtrace_fn)dlsym(RTLD_DEFAULT,
						      "__libunwind_Unwind_Backtrace");
		if (bt)
			print_backtrace("backtrace", bt, 3);
		else
			printf("no __libunwind_Unwind_Backtrace\n");
	}
	return 0;
}
