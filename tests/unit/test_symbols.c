/*
 * test_symbols.c - tools/ehelf-perf/perfdata/symbols.h on this machine's ELF files:
 * libc through its separate debug file (libc6-dbg), libstdc++'s .dynsym
 * (demangled C++ names, PLT entries), this test's own executable (.symtab
 * and .dynsym), kallsyms, and bad inputs.  Every sized function symbol is
 * looked up at its start, middle and last byte and must come back as
 * itself or as the alias perf keeps (computed here by brute force from
 * the symbol table, read independently with libelf); gaps must come back
 * empty, size-0 symbols extended to the next one.
 *
 * tests/perf/run-symbols-tests.sh checks the same tables against perf
 * itself; this test pins the rules on real files without perf.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/ehelf-perf/perfdata/symbols.h"
#include "../../common/buildid.h"
#include "../../common/elf_file.h"
#include "unit.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

/* ---- an independent reading of a symbol table --------------------------- */

struct rsym {
	const char *name;
	uint64_t start, size;
	unsigned type, bind, order;
	bool kept;		/* perf would load it (the rules restated) */
};

struct ref {
	elf_file f;
	struct rsym *s;
	size_t n;
	uint64_t *maxend;	/* max end of the sized kept symbols 0..i */
};

static int cmp_rsym(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The symbols of section TABLE of PATH, in address order (then table
 * order); false if PATH has no such table. */
static bool ref_read(struct ref *r, const char *path, const char *table)
{
	memset(r, 0, sizeof *r);
	if (elf_file_open(&r->f, path, NULL) != 0)
		return false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(r->f.elf, scn)) != NULL) {
		gelf_getshdr(scn, &sh);
		const char *n = elf_strptr(r->f.elf, r->f.shstrndx, sh.sh_name);
		if (n && strcmp(n, table) == 0 && sh.sh_type != SHT_NOBITS)
			break;
	}
	if (!scn) {
		elf_file_close(&r->f);
		return false;
	}
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh.sh_size / sh.sh_entsize;
	r->s = calloc(count, sizeof *r->s);
	for (size_t i = 0; i < count; i++) {
		GElf_Sym y;
		gelf_getsym(d, (int)i, &y);
		struct rsym *q = &r->s[r->n];
		q->name = elf_strptr(r->f.elf, sh.sh_link, y.st_name);
		q->start = y.st_value;
		q->size = y.st_size;
		q->type = GELF_ST_TYPE(y.st_info);
		q->bind = GELF_ST_BIND(y.st_info);
		q->order = (unsigned)i;
		if (!q->name || !*q->name || y.st_shndx == SHN_UNDEF ||
		    y.st_shndx >= SHN_LORESERVE)
			continue;
		GElf_Shdr ssh;
		Elf_Scn *sec = elf_getscn(r->f.elf, y.st_shndx);
		if (!sec || !gelf_getshdr(sec, &ssh) || !(ssh.sh_flags & SHF_ALLOC))
			continue;
		const char *sn = elf_strptr(r->f.elf, r->f.shstrndx, ssh.sh_name);
		unsigned vis = GELF_ST_VISIBILITY(y.st_other);
		q->kept = q->type == STT_FUNC || q->type == STT_GNU_IFUNC ||
			  q->type == STT_OBJECT ||
			  (q->type == STT_NOTYPE && vis != STV_HIDDEN &&
			   vis != STV_INTERNAL && sn &&
			   (strstr(sn, "text") || strstr(sn, "data")));
		r->n++;
	}
	qsort(r->s, r->n, sizeof *r->s, cmp_rsym);
	r->maxend = calloc(r->n + 1, sizeof *r->maxend);
	for (size_t i = 0; i < r->n; i++) {
		uint64_t e = r->s[i].kept && r->s[i].size ?
			     r->s[i].start + r->s[i].size : 0;
		r->maxend[i] = i && r->maxend[i - 1] > e ? r->maxend[i - 1] : e;
	}
	return true;
}

static void ref_free(struct ref *r)
{
	free(r->maxend);
	free(r->s);
	elf_file_close(&r->f);
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's pick among the kept symbols starting at S[I] (one table, names
 * printed as stored): the sized one (a size-0 symbol last at its address
 * is extended), then non-weak, global, fewer leading underscores, longer
 * name, first. */
static const struct rsym *best_alias(const struct ref *r, size_t i)
{
	const struct rsym *best = NULL;
	bool best_sized = false;
	size_t j = i;
	while (j > 0 && r->s[j - 1].start == r->s[i].start)
		j--;
	size_t last = j;
	for (size_t k = j; k < r->n && r->s[k].start == r->s[i].start; k++)
		if (r->s[k].kept)
			last = k;
	for (; j < r->n && r->s[j].start == r->s[i].start; j++) {
		const struct rsym *c = &r->s[j];
		if (!c->kept)
			continue;
		bool sized = c->size > 0 || j == last;
		if (!best) {
			best = c;
			best_sized = sized;
			continue;
		}
		int pick = 0;	/* >0: C wins, <0: BEST stays */
		if (sized != best_sized)
			pick = sized ? 1 : -1;
		else if ((c->bind == STB_WEAK) != (best->bind == STB_WEAK))
			pick = best->bind == STB_WEAK ? 1 : -1;
		else if ((c->bind == STB_GLOBAL) != (best->bind == STB_GLOBAL))
			pick = c->bind == STB_GLOBAL ? 1 : -1;
		else if (underscores(c->name) != underscores(best->name))
			pick = underscores(c->name) < underscores(best->name) ? 1 : -1;
		else if (strlen(c->name) != strlen(best->name))
			pick = strlen(c->name) > strlen(best->name) ? 1 : -1;
		if (pick > 0) {
			best = c;
			best_sized = sized;
		}
	}
	return best;
}

/* Does a kept symbol other than the aliases of S[I] (same start) start in
 * (start, ADDR] or cover ADDR?  Then perf's tree decides; not checked
 * here.  (A size-0 symbol before S[I] extends no further than S[I].) */
static bool contested(const struct ref *r, size_t i, uint64_t addr)
{
	uint64_t start = r->s[i].start;
	size_t first = i;
	while (first > 0 && r->s[first - 1].start == start)
		first--;
	for (size_t j = first; j < r->n && r->s[j].start <= addr; j++)
		if (r->s[j].kept && r->s[j].start != start)
			return true;
	return first > 0 && r->maxend[first - 1] > addr;
}

/* ---- libc: the debug file's .symtab, perf's alias choice ----------------- */

static const char *libc_debug_path(char *buf, size_t n)
{
	elf_file f;
	const uint8_t *id;
	char hex[BUILDID_HEX_MAX + 1];
	if (elf_file_open(&f, LIBC, NULL) != 0)
		return NULL;
	int len = elf_file_build_id(&f, &id);
	if (len > 0)
		buildid_to_hex(id, (size_t)len, hex, sizeof hex);
	elf_file_close(&f);
	if (len <= 0)
		return NULL;
	snprintf(buf, n, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static void check_sized_functions(const symtab *t, const struct ref *r,
				  bool exact_alias, long *checked)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rsym *f = &r->s[i];
		if ((f->type != STT_FUNC && f->type != STT_GNU_IFUNC) ||
		    !f->kept || f->size == 0)
			continue;
		uint64_t probe[3] = { f->start, f->start + f->size / 2,
				      f->start + f->size - 1 };
		for (int k = 0; k < 3; k++) {
			if (contested(r, i, probe[k]))
				continue;
			uint64_t off = ~0ull;
			const char *got = symtab_find(t, probe[k], &off);
			CHECK(got != NULL);
			if (!got)
				continue;
			CHECK_U64(off, probe[k] - f->start);
			if (exact_alias)
				CHECK_STR(got, best_alias(r, i)->name);
			(*checked)++;
		}
	}
}

static void test_libc(void)
{
	char dbg[512];
	bool have_dbg = libc_debug_path(dbg, sizeof dbg) != NULL;
	CHECK(have_dbg);
	if (!have_dbg) {
		fprintf(stderr, "test_symbols: no debug file of libc under "
			"/usr/lib/debug/.build-id: install libc6-dbg "
			"(scripts/install-deps.sh)\n");
		return;
	}
	ehelf_err err = { 0 };
	symtab *t = symtab_load_elf(LIBC, NULL, 0, &err);
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	struct ref r;
	CHECK(ref_read(&r, dbg, ".symtab"));

	/* the debug file's local symbols, absent from libc.so.6 itself */
	const struct rsym *local = NULL, *zero = NULL;
	for (size_t i = 0; i < r.n; i++) {
		if (strcmp(r.s[i].name, "__libc_start_call_main") == 0)
			local = &r.s[i];
		if (strcmp(r.s[i].name, "__restore_rt") == 0)
			zero = &r.s[i];
	}
	CHECK(local != NULL);
	uint64_t off;
	if (local) {
		CHECK_STR(symtab_find(t, local->start + 5, &off) ?: "(none)",
			  "__libc_start_call_main");
		CHECK_U64(off, 5);
	}
	/* size 0: extends to the next symbol */
	CHECK(zero != NULL && zero->size == 0);
	if (zero) {
		const struct rsym *next = zero + 1;
		while (next < r.s + r.n && (!next->kept || next->start == zero->start))
			next++;
		CHECK_STR(symtab_find(t, next->start - 1, &off) ?: "(none)",
			  "__restore_rt");
		CHECK_U64(off, next->start - 1 - zero->start);
		CHECK(strcmp(symtab_find(t, next->start, NULL) ?: "",
			     "__restore_rt") != 0);
	}
	/* aliases: write, __write (weak), __libc_write, __GI___libc_write
	 * (local): non-weak, then the longer name (as `perf script` prints
	 * write(2) calls) */
	const struct rsym *w = NULL;
	for (size_t i = 0; i < r.n; i++)
		if (strcmp(r.s[i].name, "__libc_write") == 0)
			w = &r.s[i];
	CHECK(w != NULL);
	if (w)
		CHECK_STR(symtab_find(t, w->start, NULL) ?: "(none)",
			  "__GI___libc_write");

	long checked = 0;
	check_sized_functions(t, &r, true, &checked);
	CHECK(checked > 10000);

	/* gaps: the padding after a function, before the next symbol */
	long gaps = 0;
	for (size_t i = 0; i + 1 < r.n; i++) {
		const struct rsym *f = &r.s[i];
		uint64_t end = f->start + f->size;
		size_t next = i + 1;
		while (next < r.n && !r.s[next].kept)
			next++;
		if (!f->kept || f->type != STT_FUNC || !f->size || next == r.n ||
		    r.s[next].start <= end || r.maxend[i] > end ||
		    (i > 0 && r.s[i - 1].start == f->start))
			continue;	/* not alone, or no gap after it */
		CHECK(symtab_find(t, end, NULL) == NULL);
		CHECK(symtab_find(t, r.s[next].start - 1, NULL) == NULL);
		gaps++;
	}
	CHECK(gaps > 10);
	fprintf(stderr, "test_symbols: libc: %zu symbols, %ld lookups, %ld "
		"gaps\n", symtab_size(t), checked, gaps);
	ref_free(&r);
	symtab_free(t);
}

/* ---- libstdc++: .dynsym, demangled names, PLT ----------------------------- */

static uint64_t dynsym_addr(const struct ref *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->s[i].name, name) == 0)
			return r->s[i].start;
	return 0;
}

static void test_libstdcxx(void)
{
	ehelf_err err = { 0 };
	symtab *t = symtab_load_elf(LIBSTDCXX, NULL, 0, &err);
	symtab *all = symtab_load_elf_flags(LIBSTDCXX, NULL, 0, SYMTAB_ALIASES,
					    &err);
	CHECK(t != NULL && all != NULL);
	if (!t || !all)
		return;
	CHECK(symtab_size(all) > symtab_size(t));
	struct ref r;
	CHECK(ref_read(&r, LIBSTDCXX, ".dynsym"));

	/* perf's default demangling: no parameters, no return type */
	static const struct { const char *mangled, *printed; } names[] = {
		{ "_ZNSo3putEc", "std::ostream::put" },
		{ "_ZNSolsEi", "std::ostream::operator<<" },
		{ "_ZNKSt6locale4nameB5cxx11Ev", "std::locale::name[abi:cxx11]" },
		{ "_ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
		  "std::__ostream_insert<char, std::char_traits<char> >" },
		{ "_ZNSt6localeC2Ev", "std::locale::locale" },
		{ "_ZNSt6localeD1Ev", "std::locale::~locale" },
		{ "_ZTVSt9bad_alloc", "vtable for std::bad_alloc" },
		{ "_ZThn16_NSdD1Ev", "non-virtual thunk to std::basic_iostream<char, "
		  "std::char_traits<char> >::~basic_iostream()" },
		{ "_ZNKSt7codecvtIcc11__mbstate_tE6do_outERS0_PKcS4_RS4_PcS6_RS6_",
		  "std::codecvt<char, char, __mbstate_t>::do_out" },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		uint64_t a = dynsym_addr(&r, names[i].mangled), off;
		CHECK(a != 0);
		if (!a)
			continue;
		/* the alias perf keeps may be another name: look it up
		 * among the aliases of that address */
		bool found = false;
		for (size_t k = 0; k < symtab_size(all); k++) {
			uint64_t start;
			const char *n = symtab_symbol(all, k, &start, NULL);
			if (start == a && strcmp(n, names[i].printed) == 0)
				found = true;
		}
		if (!found)
			fprintf(stderr, "  no alias printed '%s'\n", names[i].printed);
		CHECK(found);
		CHECK(symtab_find(t, a, &off) != NULL);
		CHECK_U64(off, 0);
	}

	/* every kept name is one of the aliases at its address */
	long checked = 0;
	check_sized_functions(t, &r, false, &checked);
	CHECK(checked > 5000);

	/* PLT entries: NAME@plt, 16 bytes, after .plt's first entry */
	size_t plts = 0;
	for (size_t k = 0; k < symtab_size(t); k++) {
		uint64_t start, size;
		const char *n = symtab_symbol(t, k, &start, &size);
		size_t len = strlen(n);
		if (len < 4 || strcmp(n + len - 4, "@plt") != 0)
			continue;
		plts++;
		CHECK_U64(size, 16);
		CHECK(strncmp(n, "_Z", 2) != 0);	/* demangled too */
	}
	CHECK(plts > 100);
	ref_free(&r);
	symtab_free(all);
	symtab_free(t);
}

/* ---- this executable: .symtab and .dynsym, PLT ---------------------------- */

__attribute__((noinline, used)) int unit_symbols_marker(int x);
__attribute__((noinline, used)) int unit_symbols_marker(int x)
{
	return x * 3 + (int)strlen("marker");
}

static void test_self(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	exe[n] = '\0';
	ehelf_err err = { 0 };
	symtab *t = symtab_load_elf(exe, NULL, 0, &err);
	CHECK(t != NULL);
	struct ref r;
	CHECK(ref_read(&r, exe, ".symtab"));
	if (!t || !r.s)
		return;
	uint64_t a = dynsym_addr(&r, "unit_symbols_marker"), off;
	CHECK(a != 0);
	CHECK_STR(symtab_find(t, a + 2, &off) ?: "(none)", "unit_symbols_marker");
	CHECK_U64(off, 2);
	CHECK_STR(symtab_find(t, dynsym_addr(&r, "main"), &off) ?: "(none)",
		  "main");
	long checked = 0;
	check_sized_functions(t, &r, false, &checked);
	CHECK(checked > 100);
	size_t plts = 0;
	for (size_t k = 0; k < symtab_size(t); k++) {
		const char *s = symtab_symbol(t, k, NULL, NULL);
		plts += strstr(s, "@plt") != NULL;
	}
	CHECK(plts > 5);
	ref_free(&r);
	symtab_free(t);
}

/* ---- kallsyms ----------------------------------------------------------- */

struct ksym {
	uint64_t addr;
	char name[128];
	bool module;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void test_kallsyms(void)
{
	ehelf_err err = { 0 };
	symtab *t = symtab_load_kallsyms(&err);
	CHECK(t != NULL);
	if (!t)
		return;
	if (symtab_size(t) == 0) {
		fprintf(stderr, "test_symbols: kallsyms addresses hidden\n");
		symtab_free(t);
		return;
	}
	/* the symbols perf keeps (types T, W, D, B), by address */
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t n = 0, cap = 1 << 16;
	struct ksym *k = malloc(cap * sizeof *k);
	char line[1024], type;
	unsigned long long addr;
	while (f && k && fgets(line, sizeof line, f)) {
		char name[512];
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 ||
		    !strchr("TtWwDdBb", type))
			continue;
		if (n == cap)
			k = realloc(k, (cap *= 2) * sizeof *k);
		k[n].addr = addr;
		snprintf(k[n].name, sizeof k[n].name, "%s", name);
		k[n++].module = strchr(line, '[') != NULL;
	}
	if (f)
		fclose(f);
	qsort(k, n, sizeof *k, cmp_ksym);
	/* the last byte before each symbol belongs to the one before */
	long checked = 0;
	for (size_t i = 1; i < n; i++) {
		if (k[i].module || k[i - 1].module ||
		    k[i].addr == k[i - 1].addr)
			continue;
		uint64_t off = ~0ull;
		const char *got = symtab_find(t, k[i].addr - 1, &off);
		CHECK(got != NULL);
		CHECK_U64(off, k[i].addr - 1 - k[i - 1].addr);
		if (i + 1 < n && k[i + 1].addr != k[i].addr &&
		    k[i - 1].addr != (i > 1 ? k[i - 2].addr : 0))
			CHECK_STR(got ?: "(none)", k[i - 1].name);
		checked++;
	}
	CHECK(checked > 1000);
	fprintf(stderr, "test_symbols: kallsyms: %zu symbols, %ld lookups\n",
		symtab_size(t), checked);
	free(k);
	symtab_free(t);
}

/* ---- saved tables ------------------------------------------------------- */

/* Do A and B hold the same symbols and answer lookups alike? */
static void check_same_table(const symtab *a, const symtab *b)
{
	CHECK_U64(symtab_size(b), symtab_size(a));
	for (size_t i = 0; i < symtab_size(a) && i < symtab_size(b); i++) {
		uint64_t sa, za, sb, zb, oa = 0, ob = 0;
		const char *na = symtab_symbol(a, i, &sa, &za);
		const char *nb = symtab_symbol(b, i, &sb, &zb);
		CHECK_STR(nb, na);
		CHECK_U64(sb, sa);
		CHECK_U64(zb, za);
		for (uint64_t d = 0; d < 3; d++) {
			const char *fa = symtab_find(a, sa + d * za / 2, &oa);
			const char *fb = symtab_find(b, sa + d * za / 2, &ob);
			CHECK(fa == NULL ? fb == NULL : fb && !strcmp(fa, fb));
			CHECK_U64(ob, oa);
		}
	}
}

/* The saved table of ELF file PATH, in DIR. */
static void test_saved_elf(const char *dir, const char *path)
{
	ehelf_err err = { 0 };
	symtab *made = symtab_load_elf(path, NULL, 0, &err);
	CHECK(made != NULL);
	elf_file f;
	const uint8_t *id;
	char hex[BUILDID_HEX_MAX + 1], saved[512];
	CHECK(elf_file_open(&f, path, NULL) == 0);
	int n = elf_file_build_id(&f, &id);
	CHECK(n > 0 && buildid_to_hex(id, (size_t)n, hex, sizeof hex) > 0);
	elf_file_close(&f);
	snprintf(saved, sizeof saved, "%s/%s.tab", dir, hex);
	unlink(saved);
	symtab *first = symtab_load_elf_saved(path, NULL, 0, dir, &err);
	struct stat st;
	CHECK(first != NULL && stat(saved, &st) == 0);
	symtab *again = symtab_load_elf_saved(path, NULL, 0, dir, &err);
	CHECK(again != NULL);
	if (made && first && again) {
		check_same_table(made, first);
		check_same_table(made, again);
	}
	/* the saved one is mapped back, not made again */
	struct stat st2;
	CHECK(stat(saved, &st2) == 0 && st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec &&
	      st2.st_ino == st.st_ino);
	/* a table saved from other files (another key) is made again */
	int fd = open(saved, O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, "x", 1, 16) == 1);
	close(fd);
	symtab *remade = symtab_load_elf_saved(path, NULL, 0, dir, &err);
	CHECK(remade != NULL);
	if (made && remade)
		check_same_table(made, remade);
	CHECK(stat(saved, &st2) == 0 && st2.st_ino != st.st_ino);
	symtab_free(remade);
	symtab_free(again);
	symtab_free(first);
	symtab_free(made);
	unlink(saved);
}

static void test_saved(void)
{
	char dir[] = "/tmp/test_symbols_saved.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char text[512], tab[512];
	snprintf(text, sizeof text, "%s/kallsyms", dir);
	snprintf(tab, sizeof tab, "%s/k.tab", dir);
	/* a kallsyms of our own: kernel symbols, aliases, a size-0 end,
	 * symbols perf drops (types a, r), modules */
	FILE *f = fopen(text, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T startup_64\n"
	      "ffffffff81000040 t secondary_startup_64\n"
	      "ffffffff81000100 W weak_one\n"
	      "ffffffff81000200 a absolute_one\n"
	      "ffffffff81000300 r rodata_one\n"
	      "ffffffff81002000 D some_data\n"
	      "ffffffff81003000 B some_bss\n"
	      "ffffffffc0000000 t mod_fn\t[mod]\n"
	      "ffffffffc0000100 T mod_fn2\t[mod]\n", f);
	fclose(f);
	ehelf_err err = { 0 };
	symtab *t = symtab_load_kallsyms_file(text, &err);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_U64(symtab_size(t), 7);	/* one of the aliases; no a, r */
	uint64_t off = 0;
	CHECK_STR(symtab_find(t, 0xffffffffc0000104ull, &off) ?: "(none)",
		  "mod_fn2");
	CHECK_U64(off, 4);

	uint64_t key[SYMTAB_KEY_WORDS] = { 1, 2, 3, 4 };
	CHECK(symtab_save(t, key, tab, &err) == 0);
	struct stat st;
	CHECK(stat(tab, &st) == 0 && (st.st_mode & 0777) == 0600);
	symtab *u = symtab_load_saved(tab, key, &err);
	CHECK(u != NULL);
	if (u)
		check_same_table(t, u);
	symtab_free(u);

	/* another key, a missing file: make it again */
	uint64_t other[SYMTAB_KEY_WORDS] = { 1, 2, 3, 5 };
	CHECK(symtab_load_saved(tab, other, &err) == NULL);
	CHECK(err.code == ERR_NOTFOUND);
	snprintf(text, sizeof text, "%s/absent.tab", dir);
	CHECK(symtab_load_saved(text, key, &err) == NULL);
	CHECK(err.code == ERR_NOTFOUND);
	/* what a power loss can leave of a table written unflushed: an
	 * empty file, or zeros of its size; both are made again */
	snprintf(text, sizeof text, "%s/lost.tab", dir);
	for (int how = 0; how < 2; how++) {
		FILE *z = fopen(text, "w");
		CHECK(z != NULL);
		if (!z)
			break;
		for (off_t k = 0; how == 1 && k < st.st_size; k++)
			fputc(0, z);
		fclose(z);
		CHECK(symtab_load_saved(text, key, &err) == NULL);
		CHECK(err.code == ERR_NOTFOUND);
	}
	unlink(text);
	/* an empty table (nothing usable in the source) is saved and mapped
	 * back as empty, not taken for a damaged one and made every time */
	snprintf(text, sizeof text, "%s/nothing", dir);
	FILE *nf = fopen(text, "w");
	CHECK(nf != NULL);
	if (nf) {
		fputs("0000000000000000 r not_a_function\n", nf);
		fclose(nf);
		symtab *none = symtab_load_kallsyms_file(text, &err);
		CHECK(none != NULL && symtab_size(none) == 0);
		char ntab[600];
		snprintf(ntab, sizeof ntab, "%s/nothing.tab", dir);
		CHECK(none && symtab_save(none, key, ntab, &err) == 0);
		symtab *back = symtab_load_saved(ntab, key, &err);
		CHECK(back != NULL && symtab_size(back) == 0);
		uint64_t o;
		CHECK(back && symtab_find(back, 0x1000, &o) == NULL);
		symtab_free(back);
		symtab_free(none);
		unlink(ntab);
		unlink(text);
	}

	/* damaged: truncated, and an interval naming a symbol out of range */
	int fd = open(tab, O_RDWR);
	CHECK(fd >= 0);
	char *whole = malloc((size_t)st.st_size);
	CHECK(whole && pread(fd, whole, (size_t)st.st_size, 0) == st.st_size);
	CHECK(ftruncate(fd, st.st_size - 1) == 0);
	CHECK(symtab_load_saved(tab, key, &err) == NULL);
	CHECK(err.code == ERR_FORMAT);
	CHECK_CONTAINS(err.msg, tab);
	/* iv_sym follows iv_start and the syms: its first entry is found
	 * as the 4 bytes after them (header 72 bytes, as saved_table.c lays
	 * the file out) */
	uint64_t nsyms, niv;
	memcpy(&nsyms, whole + 48, 8);
	memcpy(&niv, whole + 56, 8);
	size_t at = 72 + niv * 8 + nsyms * 24;
	int32_t bad = (int32_t)nsyms;
	memcpy(whole + at, &bad, 4);
	/* and the first symbol's name past the pool (its raw offset is the
	 * 4 bytes after its start and end) */
	uint64_t pool_size;
	memcpy(&pool_size, whole + 64, 8);
	uint32_t far = (uint32_t)pool_size + 100;
	memcpy(whole + 72 + niv * 8 + 16, &far, 4);
	CHECK(pwrite(fd, whole, (size_t)st.st_size, 0) == st.st_size);
	close(fd);
	/* checked at lookup, not at load: the damaged parts answer nothing,
	 * the others as before */
	symtab *d = symtab_load_saved(tab, key, &err);
	CHECK(d != NULL);
	if (d) {
		uint64_t first;
		memcpy(&first, whole + 72, 8);
		CHECK(symtab_find(d, first, &off) == NULL);
		CHECK(symtab_symbol(d, 0, NULL, NULL) == NULL);
		for (size_t i = 1; i < symtab_size(t); i++) {
			uint64_t a, b, sa, sb;
			const char *x = symtab_symbol(t, i, &a, &sa);
			const char *y = symtab_symbol(d, i, &b, &sb);
			CHECK(y && !strcmp(x, y) && a == b && sa == sb);
		}
		symtab_free(d);
	}
	free(whole);

	/* an ELF file's table, with names demangled on first use and PLT
	 * entries, saved under its build-ID: made the first time, mapped
	 * back the next, the same names either way */
	test_saved_elf(dir, LIBSTDCXX);
	test_saved_elf(dir, LIBC);

	/* the real one, when this machine shows its addresses */
	symtab *k = symtab_load_kallsyms(&err);
	if (k && symtab_size(k) > 0) {
		CHECK(symtab_save(k, key, tab, &err) == 0);
		symtab *v = symtab_load_saved(tab, key, &err);
		CHECK(v != NULL);
		if (v)
			check_same_table(k, v);
		symtab_free(v);
	}
	symtab_free(k);
	symtab_free(t);
	unlink(tab);
	snprintf(text, sizeof text, "%s/kallsyms", dir);
	unlink(text);
	rmdir(dir);
}

/* ---- bad inputs --------------------------------------------------------- */

static void test_errors(void)
{
	ehelf_err err = { 0 };
	CHECK(symtab_load_elf("/nonexistent/libfoo.so", NULL, 0, &err) == NULL);
	CHECK(err.code == ERR_IO);
	CHECK_CONTAINS(err.msg, "/nonexistent/libfoo.so");

	char tmp[] = "/tmp/test_symbols.XXXXXX";
	int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	CHECK(write(fd, "not an ELF file at all\n", 23) == 23);
	close(fd);
	memset(&err, 0, sizeof err);
	CHECK(symtab_load_elf(tmp, NULL, 0, &err) == NULL);
	CHECK(err.code == ERR_FORMAT);
	CHECK_CONTAINS(err.msg, tmp);

	/* a valid ELF header without sections or symbols: an empty table */
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	fd = open(tmp, O_WRONLY | O_TRUNC);
	CHECK(write(fd, &eh, sizeof eh) == (ssize_t)sizeof eh);
	close(fd);
	symtab *t = symtab_load_elf(tmp, NULL, 0, &err);
	CHECK(t != NULL);
	CHECK_U64(symtab_size(t), 0);
	CHECK(symtab_find(t, 0x1000, NULL) == NULL);
	symtab_free(t);
	unlink(tmp);

	/* a directory */
	memset(&err, 0, sizeof err);
	CHECK(symtab_load_elf("/usr/lib", NULL, 0, &err) == NULL);
	CHECK(err.code != 0 && err.msg[0]);

	/* a build-ID that is not the file's */
	uint8_t id[20] = { 0xde, 0xad };
	memset(&err, 0, sizeof err);
	CHECK(symtab_load_elf(LIBSTDCXX, id, sizeof id, &err) == NULL);
	CHECK(err.code == ERR_NOTFOUND);
	CHECK_CONTAINS(err.msg, "dead");

	/* the right one, with perf.data's zero padding to 20 bytes */
	elf_file f;
	const uint8_t *own;
	CHECK(elf_file_open(&f, LIBSTDCXX, NULL) == 0);
	int len = elf_file_build_id(&f, &own);
	CHECK(len > 0 && len <= 20);
	memset(id, 0, sizeof id);
	memcpy(id, own, (size_t)len);
	elf_file_close(&f);
	t = symtab_load_elf(LIBSTDCXX, id, sizeof id, &err);
	CHECK(t != NULL && symtab_size(t) > 1000);
	symtab_free(t);

	symtab_free(NULL);
	CHECK(symtab_find(NULL, 1, NULL) == NULL);
	CHECK_U64(symtab_size(NULL), 0);
}

/* ---- concurrent lookups (names demangled on first use) -------------------- */

struct worker {
	const symtab *t;
	size_t first;		/* where this thread starts */
	const char **names;	/* per symbol, as this thread saw it */
};

static void *lookup_all(void *arg)
{
	struct worker *w = arg;
	size_t n = symtab_size(w->t);
	for (size_t i = 0; i < n; i++) {
		size_t k = (w->first + i * 7919) % n;
		uint64_t start;
		symtab_symbol(w->t, k, &start, NULL);
		w->names[k] = symtab_find(w->t, start, NULL);
	}
	return NULL;
}

static void test_threads(void)
{
	ehelf_err err = { 0 };
	symtab *t = symtab_load_elf(LIBSTDCXX, NULL, 0, &err);
	CHECK(t != NULL);
	if (!t)
		return;
	enum { N = 4 };
	struct worker w[N];
	pthread_t th[N];
	size_t n = symtab_size(t);
	for (int i = 0; i < N; i++) {
		w[i].t = t;
		w[i].first = (size_t)i * n / N;
		w[i].names = calloc(n, sizeof *w[i].names);
		CHECK(pthread_create(&th[i], NULL, lookup_all, &w[i]) == 0);
	}
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	long same = 0;
	for (size_t k = 0; k < n; k++)
		for (int i = 1; i < N; i++)
			same += w[i].names[k] == w[0].names[k];
	CHECK_U64(same, (uint64_t)n * (N - 1));	/* one published name */
	for (int i = 0; i < N; i++)
		free(w[i].names);
	symtab_free(t);
}

/* A JIT's perf map, read as perf 6.1 reads it (its quirks included). */
static void test_perf_map(void)
{
	char path[] = "/tmp/test_symbols_map.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	static const char text[] =
		"7f0000001000 40 jit_alpha\n"
		"  0x7f0000002000 0x20 Lazy compile: *beta /x.js:1\n" /* blanks, 0x */
		"7f0000003000 10 ab\n"          /* a 2-character name: skipped */
		"7f0000003100 10 abc\n"
		"7f0000004000\n"                /* no size, no name: skipped */
		"\n"
		"7f0000005000 0 empty\n"        /* size 0: its start only */
		"7f0000005800 10 _Z3foov\n"
		"7f0000006000 10 last";          /* no newline: loses a character */
	CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	close(fd);
	ehelf_err err = { 0 };
	symtab *t = symtab_load_perf_map(path, &err);
	CHECK(t != NULL);
	if (t) {
		uint64_t off = 99;
		CHECK_U64(symtab_size(t), 6);
		CHECK_STR(symtab_find(t, 0x7f000000103full, &off) ?: "(none)", "jit_alpha");
		CHECK_U64(off, 0x3f);
		CHECK(symtab_find(t, 0x7f0000001040ull, &off) == NULL);
		CHECK_STR(symtab_find(t, 0x7f0000002008ull, &off) ?: "(none)",
			  "Lazy compile: *beta /x.js:1");	/* as written */
		CHECK(symtab_find(t, 0x7f0000003000ull, &off) == NULL);
		CHECK_STR(symtab_find(t, 0x7f0000003100ull, &off) ?: "(none)", "abc");
		CHECK_STR(symtab_find(t, 0x7f0000005000ull, &off) ?: "(none)", "empty");
		CHECK(symtab_find(t, 0x7f0000005001ull, &off) == NULL);
		CHECK_STR(symtab_find(t, 0x7f0000006001ull, &off) ?: "(none)", "las");
		/* nor demangled */
		CHECK_STR(symtab_find(t, 0x7f0000005800ull, &off) ?: "(none)", "_Z3foov");
		symtab_free(t);
	}
	unlink(path);
	CHECK(symtab_load_perf_map(path, &err) == NULL);
	CHECK_CONTAINS(err.msg, path);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_perf_map();
	test_errors();
	test_libc();
	test_libstdcxx();
	test_self();
	test_kallsyms();
	test_saved();
	test_threads();
	UNIT_DONE("test_symbols");
}
