// deep_stack_cxx.cc - the libstdc++ levels of bench-unwind's deep stack:
// writing to an ostream goes through libstdc++'s inserters into a stream
// buffer whose xsputn calls the next level.
#include <ostream>
#include <streambuf>

namespace {

class NextLevel : public std::streambuf {
public:
	NextLevel(int n, void (*next)(int)) : n_(n), next_(next) {}

protected:
	std::streamsize xsputn(const char *s, std::streamsize len) override
	{
		(void)s;
		if (!called_) {
			called_ = true;
			next_(n_);
		}
		return len;
	}

private:
	int n_;
	void (*next_)(int);
	bool called_ = false;
};

} // namespace

extern "C" void through_libstdcxx(int n, void (*next)(int))
{
	NextLevel buf(n, next);
	std::ostream os(&buf);
	os << "level";
}
