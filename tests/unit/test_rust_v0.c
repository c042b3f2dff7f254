/*
 * test_rust_v0.c - Rust v0 symbol names (tools/ehelf-perf/perfdata/rust_v0.c) as
 * perf 6.1 prints them.  The expected names are libiberty's (c++filt of
 * binutils 2.40, the demangler perf calls) without its verbose parts, crate
 * disambiguators and const type suffixes: real names of Rust 1.95's
 * standard library and a program, and made-up ones for every production
 * (paths, impls, closures, generics, every type constructor, consts,
 * binders, dyn with associated types, backrefs, punycode identifiers).  Then robustness: every
 * truncation and many corruptions of them give a name or NULL, never a
 * crash (also under ASan+UBSan), and nesting is bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "../../testkit/xorshift.h"
#include "../../tools/ehelf-perf/perfdata/rust_v0.h"
#include "unit.h"

static const struct {
	const char *mangled, *want;
} cases[] = {
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
	{ "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed3BoxDINtNtNtCsgEmfK2I1SDS_4core3ops8function5FnMutuEp6OutputINtNtB1c_6result6ResultuNtNtNtCsjrHSEGnQ3l9_3std2io5error5ErrorENtNtB1c_6marker4SyncNtB32_4SendEL_EE8grow_oneB2s_",
	  "<alloc::raw_vec::RawVec<alloc::boxed::Box<dyn core::ops::function::FnMut<(), Output = core::result::Result<(), std::io::error::Error>> + core::marker::Sync + core::marker::Send>>>::grow_one" },
	{ "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio6STDOUT",
	  "std::io::stdio::STDOUT" },
	{ "_RNvNtCsjrHSEGnQ3l9_3std5panic14SHOULD_CAPTURE",
	  "std::panic::SHOULD_CAPTURE" },
	{ "_RNvCsfLfy6EI15iL_7___rustc19___rust_alloc_zeroed",
	  "__rustc::__rust_alloc_zeroed" },
	{ "_RNvNtCsgY6Mt91CT9J_14rustc_demangle2v010basic_type",
	  "rustc_demangle::v0::basic_type" },
	{ "_RNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook0B5_",
	  "std::panicking::default_hook::{closure#0}" },
	{ "_RNvNtCsgEmfK2I1SDS_4core9panicking19panic_cannot_unwind",
	  "core::panicking::panic_cannot_unwind" },
	{ "_RNvXsC_NtNtCsgEmfK2I1SDS_4core3fmt3numyNtB7_8LowerHex3fmt",
	  "<u64 as core::fmt::LowerHex>::fmt" },
	{ "_RNvXNtNtNtCsgEmfK2I1SDS_4core3fmt3num3imphNtB6_7Display3fmt",
	  "<u8 as core::fmt::Display>::fmt" },
	{ "_RNvNtNtNtCsjrHSEGnQ3l9_3std12backtrace_rs9symbolize5gimli4mmap",
	  "std::backtrace_rs::symbolize::gimli::mmap" },
	{ "_RNvNtNtNtNtCsjrHSEGnQ3l9_3std3sys4args4unix3imp15ARGV_INIT_ARRAY",
	  "std::sys::args::unix::imp::ARGV_INIT_ARRAY" },
	{ "_RNvMs2_NtCsgY6Mt91CT9J_14rustc_demangle2v0NtB5_6Parser11hex_nibbles",
	  "<rustc_demangle::v0::Parser>::hex_nibbles" },
	{ "_RNCNvNtNtNtCsjrHSEGnQ3l9_3std3sys11personality3gcc14find_eh_action0B9_",
	  "std::sys::personality::gcc::find_eh_action::{closure#0}" },
	{ "_RNvXs7_NtCsjrHSEGnQ3l9_3std2fsRNtB5_4FileNtNtB7_2io4Read14read_to_string",
	  "<&std::fs::File as std::io::Read>::read_to_string" },
	{ "_RNvNvNtNtCsjrHSEGnQ3l9_3std3sys4exit18unique_thread_exit17EXITING_THREAD_ID",
	  "std::sys::exit::unique_thread_exit::EXITING_THREAD_ID" },
	{ "_RNvYNtNtNtCsgEmfK2I1SDS_4core3fmt8builders10PadAdapterNtB6_5Write9write_fmtB8_",
	  "<core::fmt::builders::PadAdapter as core::fmt::Write>::write_fmt" },
	{ "_RNvXs3_NtNtNtCsjrHSEGnQ3l9_3std3sys5stdio4unixNtB5_6StderrNtNtBb_2io5Write5write",
	  "<std::sys::stdio::unix::Stderr as std::io::Write>::write" },
	{ "_RNvYINtNtCslNYArtu3iFV_5alloc3vec3VechENtNtCsjrHSEGnQ3l9_3std2io5Write9write_fmtBF_",
	  "<alloc::vec::Vec<u8> as std::io::Write>::write_fmt" },
	{ "_RNvXsq_NtCslNYArtu3iFV_5alloc6stringNtB5_6StringNtNtCsgEmfK2I1SDS_4core3fmt7Display3fmt",
	  "<alloc::string::String as core::fmt::Display>::fmt" },
	{ "_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner14grow_amortizedCsduwmD7cSIQq_5gimli",
	  "<alloc::raw_vec::RawVecInner>::grow_amortized" },
	{ "_RNvXs9_NtNtCsjrHSEGnQ3l9_3std2io5implsINtNtCslNYArtu3iFV_5alloc3vec3VechENtB7_5Write5writeB9_",
	  "<alloc::vec::Vec<u8> as std::io::Write>::write" },
	{ "_RNvXs_NvMs_NtNtCslNYArtu3iFV_5alloc3ffi5c_strNtB9_7CString3newRShNtB4_11SpecNewImpl13spec_new_impl",
	  "<&[u8] as <alloc::ffi::c_str::CString>::new::SpecNewImpl>::spec_new_impl" },
	{ "_RNvXs1i_NtCsgEmfK2I1SDS_4core3fmtRNtNtNtB8_5panic8location8LocationNtB6_7Display3fmtCsjrHSEGnQ3l9_3std",
	  "<&core::panic::location::Location as core::fmt::Display>::fmt" },
	{ "_RNvXsa_NtNtCsduwmD7cSIQq_5gimli4read6abbrevNtB5_10AttributesNtNtNtCsgEmfK2I1SDS_4core3ops5deref5Deref5deref",
	  "<gimli::read::abbrev::Attributes as core::ops::deref::Deref>::deref" },
	{ "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecNtNtCsjrHSEGnQ3l9_3std9backtrace15BacktraceSymbolE8grow_oneBQ_",
	  "<alloc::raw_vec::RawVec<std::backtrace::BacktraceSymbol>>::grow_one" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtNtNtNtNtCsjrHSEGnQ3l9_3std12backtrace_rs9symbolize5gimli3elf6ObjectEBQ_",
	  "core::ptr::drop_in_place::<std::backtrace_rs::symbolize::gimli::elf::Object>" },
	{ "_RNvMsn_NtCslNYArtu3iFV_5alloc4syncINtB5_3ArcNtNtNtCsduwmD7cSIQq_5gimli4read6abbrev13AbbreviationsE9drop_slowCsjrHSEGnQ3l9_3std",
	  "<alloc::sync::Arc<gimli::read::abbrev::Abbreviations>>::drop_slow" },
	/* made up, one production each */
	{ "_RNvCs1234_3foo3bar", "foo::bar" },
	{ "_RNvCs1234_3foo3bar.llvm.123", "foo::bar" },
	{ "_RINvCs1234_3foo3barKj5_EB2_", "foo::bar::<5>" },
	{ "_RINvCs1234_3foo3barKb1_EB2_", "foo::bar::<true>" },
	{ "_RINvCs1234_3foo3barKc61_EB2_", "foo::bar::<'a'>" },
	{ "_RINvCs1234_3foo3barKpEB2_", "foo::bar::<_>" },
	{ "_RINvCs1234_3foo3barKanb_EB2_", "foo::bar::<-11>" },
	{ "_RNvNCNvCs1234_3foo3bar0s_4test", "foo::bar::{closure#0}::test" },
	{ "_RINvCs1234_3foo3barAhj4_EB2_", "foo::bar::<[u8; 4]>" },
	{ "_RINvCs1234_3foo3barShEB2_", "foo::bar::<[u8]>" },
	{ "_RINvCs1234_3foo3barThmEEB2_", "foo::bar::<(u8, u32)>" },
	{ "_RINvCs1234_3foo3barThEEB2_", "foo::bar::<(u8,)>" },
	{ "_RINvCs1234_3foo3barRhEB2_", "foo::bar::<&u8>" },
	{ "_RINvCs1234_3foo3barQhEB2_", "foo::bar::<&mut u8>" },
	{ "_RINvCs1234_3foo3barPhEB2_", "foo::bar::<*const u8>" },
	{ "_RINvCs1234_3foo3barOhEB2_", "foo::bar::<*mut u8>" },
	{ "_RINvCs1234_3foo3barFhmEuEB2_", "foo::bar::<fn(u8, u32)>" },
	{ "_RINvCs1234_3foo3barFhEmEB2_", "foo::bar::<fn(u8) -> u32>" },
	{ "_RINvCs1234_3foo3barFUKCEuEB2_", "foo::bar::<unsafe extern \"C\" fn()>" },
	{ "_RINvCs1234_3foo3barDNtCs1234_3foo5TraitEL_EB2_",
	  "foo::bar::<dyn foo::Trait>" },
	{ "_RNvMCs1234_3fooNtB2_3Foo3new", "<foo::Foo>::new" },
	{ "_RNvXCs1234_3fooNtB2_3FooNtB2_5Trait3new", "<foo::Foo as foo::Trait>::new" },
	{ "_RNvYNtCs1234_3foo3FooNtB4_5Trait3new", "<foo::Foo as foo::Trait>::new" },
	{ "_RINvCs1234_3foo3barFG_RL0_hEuEB2_", "foo::bar::<for<'a> fn(&'a u8)>" },
	/* punycode identifiers ("u"): before the last '_' the ASCII part,
	 * after it the encoded code points; libiberty prints UTF-8 */
	{ "_RNvCslYkRFNSxkJC_5crateu6f_1gaa", "crate::f\xc3\xb6\xc3\xb6" },
	{ "_RNvNvCslYkRFNSxkJC_5crateu6f_1gaa3fun", "crate::f\xc3\xb6\xc3\xb6::fun" },
	{ "_RNvCslYkRFNSxkJC_5crateu3t2g", "crate::\xe2\x84\x9d" },
	{ "_RNvCslYkRFNSxkJC_5crateu10wgv71a119e",
	  "crate::\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e" },
	{ "_RNvCslYkRFNSxkJC_5crateu6a__yka", "crate::a_\xc3\xbc" },
	{ "_RNvCslYkRFNSxkJC_5crateu13ncd_ska2e7a2c", "crate::\xc3\x9cn\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9" },
	{ "_RNvCslYkRFNSxkJC_5crateu7p61h2ao", "crate::\xf0\x9d\x94\x98\xf0\x9d\x94\xab\xf0\x9d\x94\xa6" },
	{ "_RNCNvCslYkRFNSxkJC_5crateu6f_1gaa0B3_", "crate::f\xc3\xb6\xc3\xb6::{closure#0}" },
	/* ending inside a delta: libiberty prints the identifier empty */
	{ "_RNvCslYkRFNSxkJC_5crateu4zzzz", "crate::" },
};

/* not v0 names, or not ones this demangler prints */
static const char *const refused[] = {
	"_ZN3foo3bar17h0123456789abcdefE", "main", "_R", "_RNvCs1234_3foo",
	"_RNvCskK7mfDs1mzF_1m4work$LT$", "_RNvCs1234_3foou3caf_4abc",
	"_RNvNCNvCs1234_3foo3bars0_0B4_", "_RB_", "_RNvB0_3foo",
	"_RINvCs1234_3foo3barKjg_EB2_",
	/* punycode: nothing encoded after the '_', a bad digit */
	"_RNvCslYkRFNSxkJC_5crateu1__", "_RNvCslYkRFNSxkJC_5crateu2x_",
	"_RNvCslYkRFNSxkJC_5crateu3_A1b",
};

/* "B<base62>" for position AT (base62: 0 is "_", N is N-1 in digits and
 * "_") */
static void backref_code(size_t at, char *out)
{
	static const char digits[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char tmp[16];
	int k = 0;
	*out++ = 'B';
	if (at > 0) {
		size_t v = at - 1;
		do {
			tmp[k++] = digits[v % 62];
			v /= 62;
		} while (v);
		while (k)
			*out++ = tmp[--k];
	}
	*out++ = '_';
	*out = '\0';
}

int main(void)
{
	int n = (int)(sizeof cases / sizeof cases[0]);
	for (int i = 0; i < n; i++) {
		char *got = rust_v0_demangle(cases[i].mangled);
		CHECK(got != NULL);
		if (got)
			CHECK_STR(got, cases[i].want);
		free(got);
	}
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		char *got = rust_v0_demangle(refused[i]);
		CHECK(got == NULL);
		free(got);
	}

	/* every truncation, and random corruptions: a name or NULL */
	uint64_t rng = 0x2545f4914f6cdd1dull;
	char buf[1024];
	unsigned named = 0, refusedn = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(cases[i].mangled);
		for (size_t cut = 0; cut < len && cut < sizeof buf; cut++) {
			memcpy(buf, cases[i].mangled, cut);
			buf[cut] = '\0';
			char *got = rust_v0_demangle(buf);
			got ? named++ : refusedn++;
			free(got);
		}
		static const char alphabet[] =
			"_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
		for (int k = 0; k < 400 && len < sizeof buf; k++) {
			memcpy(buf, cases[i].mangled, len + 1);
			for (int j = 0; j < 3; j++)
				buf[2 + xorshift64(&rng) % (len - 2)] =
					alphabet[xorshift64(&rng) % (sizeof alphabet - 1)];
			char *got = rust_v0_demangle(buf);
			got ? named++ : refusedn++;
			free(got);
		}
	}
	CHECK(named > 0 && refusedn > 0);

	/* nesting is bounded: 100,000 references to u8, and a backref loop */
	size_t deep = 100000;
	char *p = malloc(deep + 32);
	CHECK(p != NULL);
	if (p) {
		strcpy(p, "_RINvCs1234_3foo3bar");
		size_t at = strlen(p);
		memset(p + at, 'R', deep);
		strcpy(p + at + deep, "hEB2_");
		CHECK(rust_v0_demangle(p) == NULL);
		free(p);
	}
	CHECK(rust_v0_demangle("_RNvB_3foo") == NULL);
	/* backrefs doubling the work at each level (2^60 in all), inside
	 * an impl path, which is parsed without printing: the work is
	 * bounded, NULL comes back at once */
	char *e = malloc(4096);
	CHECK(e != NULL);
	if (e) {
		strcpy(e, "_RNvMINvCs_3foo3bar");
		size_t prev = strlen(e) - 2 + 0; /* L0's position after "_R" */
		strcat(e, "ThhE");
		for (int level = 1; level < 60; level++) {
			size_t here = strlen(e) - 2;
			char ref[24];
			backref_code(prev, ref);
			strcat(e, "T");
			strcat(e, ref);
			strcat(e, ref);
			strcat(e, "E");
			prev = here;
		}
		strcat(e, "Eh3new");
		char *got = rust_v0_demangle(e);
		CHECK(got == NULL);
		free(got);
		free(e);
	}
	printf("test_rust_v0: %d names, %zu refused; %u mutants named, %u refused\n",
	       n, sizeof refused / sizeof refused[0], named, refusedn);
	UNIT_DONE("test_rust_v0");
}
