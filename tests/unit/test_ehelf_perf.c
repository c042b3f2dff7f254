/*
 * test_ehelf_perf.c - ehelf-perf's process model and symbol sources
 * (tools/ehelf-perf/ehelf_perf/): address spaces shared until code is mapped,
 * the dso symbol memo, the kernel's symbols from perf's build-ID cache
 * with their saved table; and libehelf keeping an eh_elf loaded when the
 * space that used it is gone, for the next one.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/ehelf-perf/ehelf_perf/cache_dir.h"
#include "../../tools/ehelf-perf/ehelf_perf/dso.h"
#include "../../client-lib/space.h"
#include "../../common/buildid.h"
#include "../../tools/ehelf-perf/ehelf_perf/kernel_syms.h"
#include "../../tools/ehelf-perf/ehelf_perf/procs.h"
#include "../../tools/ehelf-perf/ehelf_perf/script.h"
#include "unit.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

/* Map every PT_LOAD of PATH into process PID at BASE, as ld.so does. */
static void map_file(procs *p, dso_table *t, uint32_t pid, uint64_t base,
		     const char *path)
{
	dso *d = dso_get(t, path, NULL, 0);
	CHECK(d && d->usable && d->nsegs > 0);
	for (size_t i = 0; d && i < d->nsegs; i++) {
		uint64_t start = (base + d->segs[i].vaddr) & ~0xfffull;
		uint64_t pgoff = d->segs[i].offset & ~0xfffull;
		uint64_t end = base + d->segs[i].vaddr + d->segs[i].filesz;
		CHECK(procs_mmap(p, pid, start, end - start, pgoff, true, false, false, path,
				 NULL, 0) == 0);
	}
}

static void test_spaces(void)
{
	dso_table *t = dso_table_new();
	procs *p = procs_new(t);
	CHECK(t && p);
	if (!t || !p)
		return;
	map_file(p, t, 100, 0x7f0000000000ull, LIBC);
	proc *parent = procs_proc(p, 100);
	const ehelf_space *s = proc_space(parent);
	CHECK(s != NULL);
	int with, n = ehelf_space_modules(s, &with);
	CHECK(n >= 1);	/* libc's code (and the rest, mapped as code) */

	/* a child shares its parent's space, and keeps it when it maps
	 * data or anonymous memory, even over part of a data mapping */
	CHECK(procs_fork(p, 101, 101, 100, 100) == 0);
	proc *child = procs_proc(p, 101);
	CHECK(proc_space(child) == s);
	unsigned gen = child->gen;
	CHECK(procs_mmap(p, 101, 0x10000000, 0x21000, 0, false, true, true, "//anon",
			 NULL, 0) == 0);
	CHECK(procs_mmap(p, 101, 0x7ffc00000000ull, 0x21000, 0, false, true, true,
			 "[stack]", NULL, 0) == 0);
	CHECK(proc_space(child) == s);
	CHECK_U64(child->gen, gen);
	CHECK(proc_find(child, 0x10000010) != NULL);

	/* code mapped: a space of its own, with both files */
	map_file(p, t, 101, 0x7f1000000000ull, LIBSTDCXX);
	CHECK(child->gen != gen);
	const ehelf_space *c = proc_space(child);
	CHECK(c != NULL && c != s);
	int nc = ehelf_space_modules(c, &with);
	CHECK(nc > n);
	CHECK(proc_space(parent) == s);

	/* a data mapping over part of the code changes the space too */
	gen = parent->gen;
	CHECK(procs_mmap(p, 100, 0x7f0000000000ull, 0x1000, 0, false, true, true, "//anon",
			 NULL, 0) == 0);
	CHECK(parent->gen != gen);
	CHECK(proc_space(parent) != NULL);

	/* a process that exits keeps its mappings and its share of the
	 * space (another thread's exit changes nothing); the space goes when
	 * the last process sharing it exits, and a late sample gets a new
	 * one with the same modules, shared again */
	CHECK(procs_fork(p, 102, 102, 101, 101) == 0);
	proc *grandchild = procs_proc(p, 102);
	CHECK(proc_space(grandchild) == c);
	CHECK(procs_exit(p, 101, 103) == 0);
	CHECK(!child->gone);
	CHECK(procs_exit(p, 101, 101) == 0);
	CHECK(child->gone && child->group != NULL);
	CHECK(proc_space_held(child) && proc_space(child) == c); /* 102 lives */
	CHECK(procs_exit(p, 102, 102) == 0);
	CHECK(!proc_space_held(child) && !proc_space_held(grandchild));
	const ehelf_space *again = proc_space(child);
	CHECK(again != NULL);
	CHECK(proc_space(grandchild) == again);
	CHECK(ehelf_space_modules(again, &with) == nc);
	/* the pid used again by a new child of 100: its space, alive */
	CHECK(procs_fork(p, 101, 101, 100, 100) == 0);
	CHECK(!child->gone && proc_space(child) == proc_space(parent));
	CHECK(proc_space(grandchild) == again);
	CHECK(procs_exit(p, 101, 101) == 0);
	CHECK(proc_space(parent) != NULL && proc_space(parent) == proc_space(child));
	CHECK(proc_find(grandchild, 0x10000010) != NULL); /* copied from 101 */
	/* the exited 102's pid used again by a child of a process with no
	 * mappings (a kernel thread's): alive, nothing mapped, the space of
	 * its parent, let go when both have exited */
	CHECK(procs_fork(p, 102, 102, 300, 300) == 0);
	CHECK(!grandchild->gone && grandchild->n == 0);
	CHECK(proc_find(grandchild, 0x10000010) == NULL);
	const ehelf_space *none = proc_space(grandchild);
	CHECK(none != NULL && ehelf_space_modules(none, &with) == 0);
	CHECK(proc_space(procs_proc(p, 300)) == none);
	CHECK(procs_exit(p, 102, 102) == 0);
	CHECK(proc_space_held(grandchild));
	CHECK(procs_exit(p, 300, 300) == 0);
	CHECK(!proc_space_held(grandchild));
	CHECK(proc_space_held(parent));
	procs_free(p);
	dso_table_free(t);
}

/* dso_symbol() answers as the table does, through its memo, including
 * for addresses that share a memo slot. */
static void test_symbol_memo(void)
{
	dso_table *t = dso_table_new();
	dso *d = t ? dso_get(t, LIBSTDCXX, NULL, 0) : NULL;
	CHECK(d && d->usable);
	if (!d)
		return;
	ehelf_err err;
	symtab *ref = symtab_load_elf(LIBSTDCXX, NULL, 0, &err);
	CHECK(ref != NULL);
	long checked = 0, named = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t a = 0x90000; ref && a < 0x190000; a += 0x1001 + pass) {
			uint64_t o1 = 0, o2 = 0;
			const char *want = symtab_find(ref, a, &o1);
			const char *got = dso_symbol(d, a, &o2);
			/* and again: from the memo */
			const char *again = dso_symbol(d, a, &o2);
			CHECK(want ? got && !strcmp(want, got) : !got);
			CHECK(got == again);
			if (want)
				CHECK_U64(o2, o1);
			named += want != NULL;
			checked++;
		}
	CHECK(named > checked / 2);
	symtab_free(ref);
	dso_table_free(t);
}

/* A dso's symbols are saved under CACHE/ehelf/symtab, by build-ID, and a
 * second table (another run) names the same from the saved one. */
static void test_saved_symbols(const char *cache)
{
	char dir[600];
	snprintf(dir, sizeof dir, "%s/ehelf/symtab", cache);
	for (int run = 0; run < 2; run++) {
		dso_table *t = dso_table_new();
		dso *d = t ? dso_get(t, LIBSTDCXX, NULL, 0) : NULL;
		CHECK(d && d->usable && d->saved_dir && !strcmp(d->saved_dir, dir));
		if (!d)
			return;
		uint64_t off = 0;
		dso_symbol(d, 0x90010, &off);	/* loads the table */
		CHECK(d->syms != NULL);
		char hex[BUILDID_HEX_MAX + 1], saved[800];
		struct stat st;
		CHECK(buildid_to_hex(d->build_id, d->build_id_len, hex, sizeof hex) > 0);
		snprintf(saved, sizeof saved, "%s/%s.tab", dir, hex);
		CHECK(stat(saved, &st) == 0 && (st.st_mode & 0777) == 0600);
		/* every symbol named as a table made directly names it */
		ehelf_err err;
		symtab *ref = symtab_load_elf(LIBSTDCXX, NULL, 0, &err);
		CHECK(ref && d->syms && symtab_size(ref) == symtab_size(d->syms));
		for (size_t i = 0; ref && d->syms && i < symtab_size(ref); i += 7) {
			uint64_t start, size, o1 = 0, o2 = 1;
			symtab_symbol(ref, i, &start, &size);
			const char *want = symtab_find(ref, start + size / 2, &o1);
			const char *got = dso_symbol(d, start + size / 2, &o2);
			CHECK(want ? got && !strcmp(got, want) && o1 == o2 : !got);
		}
		symtab_free(ref);
		dso_table_free(t);
	}
}

static void write_file(const char *path, const char *text);

/* cache_dir() makes a private directory, and refuses one others can
 * write to or a file in its place. */
static void test_cache_dir(const char *cache)
{
	char buf[700], want[700];
	CHECK(cache_dir("probe", buf, sizeof buf) == 0);
	snprintf(want, sizeof want, "%s/ehelf/probe", cache);
	CHECK_STR(buf, want);
	struct stat st;
	CHECK(stat(buf, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK(chmod(buf, 0777) == 0);
	CHECK(cache_dir("probe", buf, sizeof buf) == -1);
	CHECK(rmdir(want) == 0);
	write_file(want, "not a directory");
	CHECK(cache_dir("probe", buf, sizeof buf) == -1);
	unlink(want);
	CHECK(cache_dir("probe", buf, 10) == -1);	/* does not fit */

	/* temporary files of killed writers go, once old enough; the rest
	 * stays */
	char dir[700], p[800];
	snprintf(dir, sizeof dir, "%s/ehelf/sweep", cache);
	CHECK(mkdir(dir, 0700) == 0);
	static const char *const names[] = { ".tmp-old", ".tmp-new", "old.tab" };
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		write_file(p, "x");
		if (i != 1) { /* two hours old */
			struct timespec t[2] = { { time(NULL) - 7200, 0 },
						 { time(NULL) - 7200, 0 } };
			CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
		}
	}
	CHECK(cache_dir("sweep", buf, sizeof buf) == 0);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		CHECK((access(p, F_OK) == 0) == (i != 0));
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_kernel_syms(void)
{
	char dir[] = "/tmp/test_ehelf_perf.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char bid[600], cache[600], copy[700], hexdir[700], tab[700];
	snprintf(bid, sizeof bid, "%s/buildid", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	setenv("PERF_BUILDID_DIR", bid, 1);
	char *was = strdup(getenv("XDG_CACHE_HOME") ?: "");
	setenv("XDG_CACHE_HOME", cache, 1);
	/* a kernel that is not this one (its build-ID is made up) */
	const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
	ehelf_err err = { 0 };

	/* no copy in perf's cache, and not the running kernel: none */
	CHECK(kernel_syms_load(id, sizeof id, &err) == NULL);
	CHECK(err.code == ERR_NOTFOUND);
	CHECK_CONTAINS(err.msg, "not the running one");

	/* perf's copy */
	CHECK(kernel_syms_cache_path(id, sizeof id, copy, sizeof copy) == 0);
	CHECK_CONTAINS(copy, "/[kernel.kallsyms]/deadbeef01020300");
	snprintf(hexdir, sizeof hexdir, "%s", copy);
	*strrchr(hexdir, '/') = '\0';
	mkdir(bid, 0755);
	snprintf(tab, sizeof tab, "%s/[kernel.kallsyms]", bid);
	mkdir(tab, 0755);
	mkdir(hexdir, 0755);
	write_file(copy, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T first_fn\n"
			 "ffffffff81000200 t second_fn\n"
			 "ffffffff81000300 T third_fn\n");
	symtab *k = kernel_syms_load(id, sizeof id, &err);
	CHECK(k != NULL);
	uint64_t off = 0;
	CHECK_STR(symtab_find(k, 0xffffffff81000210ull, &off) ?: "-", "second_fn");
	CHECK_U64(off, 0x10);
	symtab_free(k);
	/* ... and its table saved, private */
	snprintf(tab, sizeof tab, "%s/ehelf/kallsyms/deadbeef010203000000000000"
		 "00000000000000.tab", cache);
	struct stat st;
	CHECK(stat(tab, &st) == 0 && (st.st_mode & 0777) == 0600);
	struct timespec made = st.st_mtim;

	/* the next load takes the saved table as is */
	k = kernel_syms_load(id, sizeof id, &err);
	CHECK(k != NULL);
	CHECK_STR(symtab_find(k, 0xffffffff81000310ull, &off) ?: "-", "third_fn");
	symtab_free(k);
	CHECK(stat(tab, &st) == 0 && st.st_mtim.tv_sec == made.tv_sec &&
	      st.st_mtim.tv_nsec == made.tv_nsec);

	/* a new copy (perf record ran again): read again, not the old table */
	write_file(copy, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T renamed_fn\n");
	k = kernel_syms_load(id, sizeof id, &err);
	CHECK(k != NULL);
	CHECK_STR(symtab_find(k, 0xffffffff81000210ull, &off) ?: "-", "renamed_fn");
	symtab_free(k);

	/* a damaged saved table is made again */
	write_file(tab, "garbage");
	k = kernel_syms_load(id, sizeof id, &err);
	CHECK(k != NULL);
	CHECK_STR(symtab_find(k, 0xffffffff81000110ull, &off) ?: "-", "renamed_fn");
	symtab_free(k);
	CHECK(stat(tab, &st) == 0 && st.st_size > 100);

	/* a recording that does not say which kernel: the running one */
	k = kernel_syms_load(NULL, 0, &err);
	CHECK(k != NULL);
	symtab_free(k);

	unlink(tab);
	unlink(copy);
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	setenv("XDG_CACHE_HOME", was, 1);
	free(was);
	unsetenv("PERF_BUILDID_DIR");
}

/* Is PATH mapped into this process? */
static bool mapped(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;
	while (f && !found && fgets(line, sizeof line, f))
		found = strstr(line, path) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* A small shared object (a function and a variable) built with cc and
 * FLAGS into SO (CAP bytes), in the new directory made from template DIR. */
static bool build_so(char *dir, const char *flags, char *so, size_t cap)
{
	char cmd[1400];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(so, cap, "%s/t.so", dir);
	snprintf(cmd, sizeof cmd, "printf 'int v = 1; int f(void) { return v; }\\n' | "
		 "cc -shared -fPIC %s -x c -o '%s' -", flags, so);
	bool ok = system(cmd) == 0;
	if (!ok)
		fprintf(stderr, "test_ehelf_perf: failed: %s\n", cmd);
	CHECK(ok);
	return ok;
}

/* Load biases of an object linked with lld, whose segments all start in
 * the file's first page: each mapping ld.so makes (a segment's first page,
 * with its permissions) gives the object's bias, for the read-only, the
 * executable and the (first) writable segment. */
static void test_shared_page_biases(void)
{
	char dir[] = "/tmp/test_ehelf_perf_lld.XXXXXX", so[600], cmd[700];
	if (!build_so(dir, "-fuse-ld=lld", so, sizeof so))
		return;
	elf_file f;
	ehelf_err err;
	CHECK(elf_file_open(&f, so, &err) == 0);
	size_t n = 0;
	CHECK(elf_getphdrnum(f.elf, &n) == 0);
	const uint64_t base = 0x7f1234560000ull;
	int checked = 0, seen = 0;
	bool shared_page = false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		bool x = ph.p_flags & PF_X, w = ph.p_flags & PF_W;
		int kind = x ? 1 : w ? 2 : 4;
		shared_page |= (ph.p_offset & ~0xfffull) == 0 && ph.p_offset != 0;
		if (seen & kind) /* a second segment like one before: ambiguous */
			continue;
		seen |= kind;
		uint64_t start = base + (ph.p_vaddr & ~0xfffull), bias = 0;
		CHECK(elf_file_load_bias(&f, start, ph.p_offset & ~0xfffull, x, w,
					 &bias) == 0);
		CHECK_U64(bias, base);
		checked++;
	}
	CHECK(shared_page && checked == 3);
	elf_file_close(&f);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A file whose build-ID is shorter than perf's 20-byte field (MD5's 16
 * bytes) matches the recorded ID zero-padded, and keeps its own. */
static void test_padded_build_id(void)
{
	char dir[] = "/tmp/test_ehelf_perf_md5.XXXXXX", so[600], cmd[700];
	if (!build_so(dir, "-Wl,--build-id=md5", so, sizeof so))
		return;
	dso_table *t = dso_table_new();
	dso *probe = t ? dso_get(t, so, NULL, 0) : NULL;
	CHECK(probe && probe->usable && probe->build_id_len == 16);
	if (!probe || probe->build_id_len != 16) {
		dso_table_free(t);
		return;
	}
	uint8_t padded[20] = { 0 };
	memcpy(padded, probe->build_id, 16);
	dso_table *t2 = dso_table_new();
	dso *d = t2 ? dso_get(t2, so, padded, 20) : NULL;
	CHECK(d && d->usable && d->build_id_len == 16 &&
	      !memcmp(d->build_id, padded, 16));
	CHECK(t2 && dso_get(t2, so, padded, 20) == d);   /* found again */
	CHECK(t2 && dso_get(t2, so, padded, 16) == d);
	padded[3] ^= 1;  /* another file by that name */
	dso *other = t2 ? dso_get(t2, so, padded, 20) : NULL;
	CHECK(other && other != d && !other->usable);
	dso_table_free(t2);
	dso_table_free(t);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* perf's build-ID cache: $PERF_BUILDID_DIR, else buildid.dir of
 * ~/.perfconfig, else ~/.debug */
static void test_buildid_cache_dir(void)
{
	char home[] = "/tmp/test_ehelf_perf_home.XXXXXX", cfg[600], buf[900],
	     want[900];
	CHECK(mkdtemp(home) != NULL);
	const char *old_home = getenv("HOME"), *old_env = getenv("PERF_BUILDID_DIR");
	char *saved_home = old_home ? strdup(old_home) : NULL;
	char *saved_env = old_env ? strdup(old_env) : NULL;
	setenv("HOME", home, 1);
	unsetenv("PERF_BUILDID_DIR");
	const uint8_t id[4] = { 0xde, 0xad, 0xbe, 0xef };
	CHECK(kernel_syms_cache_path(id, 4, buf, sizeof buf) == 0);
	snprintf(want, sizeof want, "%s/.debug/[kernel.kallsyms]/deadbeef/kallsyms", home);
	CHECK_STR(buf, want);
	snprintf(cfg, sizeof cfg, "%s/.perfconfig", home);
	write_file(cfg, "# perf's configuration\n[core]\n\tdir = /wrong\n"
			"[buildid]\n\tdir = \"/srv/perf cache\"\n");
	CHECK(kernel_syms_cache_path(id, 4, buf, sizeof buf) == 0);
	CHECK_STR(buf, "/srv/perf cache/[kernel.kallsyms]/deadbeef/kallsyms");
	setenv("PERF_BUILDID_DIR", "/run/perf", 1);  /* perf's, for its children */
	CHECK(kernel_syms_cache_path(id, 4, buf, sizeof buf) == 0);
	CHECK_STR(buf, "/run/perf/[kernel.kallsyms]/deadbeef/kallsyms");
	unlink(cfg);
	rmdir(home);
	saved_home ? setenv("HOME", saved_home, 1) : unsetenv("HOME");
	saved_env ? setenv("PERF_BUILDID_DIR", saved_env, 1) : unsetenv("PERF_BUILDID_DIR");
	free(saved_home);
	free(saved_env);
}

static void test_idle_objects(void)
{
	const char *build = unit_build_dir("test_ehelf_perf");
	char store[] = "/tmp/test_ehelf_perf_store.XXXXXX";
	CHECK(mkdtemp(store) != NULL);
	dso_table *t = dso_table_new();
	dso *d = dso_get(t, LIBC, NULL, 0);
	char hex[BUILDID_HEX_MAX + 1], eh[700], cmd[2000];
	CHECK(d && d->build_id_len &&
	      buildid_to_hex(d->build_id, d->build_id_len, hex, sizeof hex) > 0);
	snprintf(eh, sizeof eh, "%s/.build-id/%.2s/%s.so", store, hex, hex + 2);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/.build-id/%.2s' && '%s/bin/ehelf-compile' "
		 "'%s' -o '%s'", store, hex, build, LIBC, eh);
	CHECK(system(cmd) == 0);
	/* libehelf maps eh_elfs itself, from a memfd named after the build-ID
	 * (docs/trust.md) */
	char memfd[300];
	snprintf(memfd, sizeof memfd, "memfd:ehelf-%s", hex);
	setenv("EHELF_PATH", store, 1);
	ehelf_module_desc m = { .start = 0x7f0000000000ull,
				.end = 0x7f0000200000ull,
				.bias = 0x7f0000000000ull, .path = LIBC };
	ehelf_space *s = ehelf_space_new();
	CHECK(s && ehelf_space_add_module(s, &m) == 0);
	const ehelf_object *first = s ? module_object(space_find(s, m.start)) : NULL;
	CHECK(first != NULL);
	CHECK(mapped(memfd));
	ehelf_space_free(s);
	/* no space uses it: still loaded, and the next space gets it */
	CHECK(mapped(memfd));
	s = ehelf_space_new();
	CHECK(s && ehelf_space_add_module(s, &m) == 0);
	CHECK(s && module_object(space_find(s, m.start)) == first);
	ehelf_space_free(s);
	unsetenv("EHELF_PATH");
	dso_table_free(t);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
	CHECK(system(cmd) == 0);
}

/* MMAP record EV for a mapping named NAME at START of process PID. */
static perf_event mmap_event(uint32_t type, uint32_t pid, uint64_t start,
			     const char *name, uint32_t prot, uint32_t flags,
			     bool data)
{
	perf_event ev = { .kind = PERF_EV_MMAP, .type = type, .pid = pid,
			  .tid = pid };
	ev.misc = data ? PERF_RECORD_MISC_MMAP_DATA : 0;
	ev.mmap.start = start;
	ev.mmap.len = 0x1000;
	ev.mmap.pgoff = type == PERF_RECORD_MMAP2 ? start : 0;
	ev.mmap.prot = prot;
	ev.mmap.flags = flags;
	ev.mmap.exec = (prot & PROT_EXEC) || !data;
	ev.mmap.filename = name;
	return ev;
}

/* JIT code: executable anonymous memory, or memory of no file, is named
 * "/tmp/perf-PID.map" as perf names it, and its symbols come from that
 * file (runtime addresses); other anonymous mappings keep their names. */
static void test_jit_maps(void)
{
	dso_table *t = dso_table_new();
	procs *p = procs_new(t);
	CHECK(t && p);
	if (!t || !p)
		return;
	/* a pid above pid_max (no process's), its map file made by us ("x":
	 * never another's) */
	unsigned long pid_max = 4194304;
	FILE *pm = fopen("/proc/sys/kernel/pid_max", "r");
	if (pm) {
		if (fscanf(pm, "%lu", &pid_max) != 1)
			pid_max = 4194304;
		fclose(pm);
	}
	uint32_t pid = (uint32_t)pid_max + 1000 + (uint32_t)(getpid() % 1000);
	char path[64];
	FILE *f = NULL;
	for (int k = 0; !f && k < 100; k++, pid++) {
		snprintf(path, sizeof path, "/tmp/perf-%u.map", pid);
		f = fopen(path, "wx");
	}
	pid--;
	CHECK(f != NULL);
	if (f) {
		fputs("7f0000001100 20 jit_fn\n", f);
		fclose(f);
	}
	struct { uint32_t type; uint64_t start; const char *name; uint32_t prot;
		 uint32_t flags; bool data; bool jit; } cases[] = {
		{ PERF_RECORD_MMAP2, 0x7f0000001000, "//anon", PROT_READ | PROT_EXEC, 0, false, true },
		{ PERF_RECORD_MMAP2, 0x7f0000011000, "//anon", PROT_READ | PROT_WRITE, 0, true, false },
		{ PERF_RECORD_MMAP2, 0x7f0000021000, "[stack]", PROT_READ | PROT_WRITE | PROT_EXEC, 0, false, true },
		{ PERF_RECORD_MMAP2, 0x7f0000031000, "/dev/zero (deleted)", PROT_READ | PROT_EXEC, 0, false, true },
		{ PERF_RECORD_MMAP2, 0x7f0000041000, "/memfd:x (deleted)", PROT_READ | PROT_EXEC, MAP_HUGETLB, false, true },
		{ PERF_RECORD_MMAP2, 0x7f0000051000, "[heap]", PROT_READ | PROT_WRITE, 0, true, false },
		{ PERF_RECORD_MMAP, 0x7f0000061000, "//anon", 0, 0, false, true },
		{ PERF_RECORD_MMAP, 0x7f0000071000, "//anon", 0, 0, true, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		perf_event ev = mmap_event(cases[i].type, pid, cases[i].start,
					   cases[i].name, cases[i].prot,
					   cases[i].flags, cases[i].data);
		CHECK(procs_record(p, NULL, &ev) == 0);
		const pmap *m = proc_find(procs_proc(p, pid), cases[i].start);
		CHECK(m != NULL);
		if (m) {
			CHECK_STR(m->name, cases[i].jit ? path : cases[i].name);
			/* all anonymous or of no file: perf prints
			 * addresses there as they are */
			CHECK(m->identity);
		}
	}
	/* a file's mapping is no identity */
	perf_event file = mmap_event(PERF_RECORD_MMAP2, pid, 0x7f0000081000, "/usr/lib/x",
				     PROT_READ | PROT_EXEC, 0, false);
	CHECK(procs_record(p, NULL, &file) == 0);
	const pmap *fm = proc_find(procs_proc(p, pid), 0x7f0000081000);
	CHECK(fm && !fm->identity);
	const pmap *m = proc_find(procs_proc(p, pid), 0x7f0000001108);
	CHECK(m && m->d && m->has_bias && m->bias == 0 && !m->d->usable);
	uint64_t off = 0;
	const char *name = m && m->d ? dso_symbol(m->d, 0x7f0000001108, &off) : NULL;
	CHECK_STR(name ?: "(none)", "jit_fn");
	CHECK_U64(off, 8);
	unlink(path);
	procs_free(p);
	dso_table_free(t);
}

/* The name of a frame with symbol SYM (NULL: none) in FILE, folded. */
static void check_fold(const char *sym, const char *file, bool java,
		       const char *want)
{
	script_frame f = { .sym = sym, .dso = file };
	char buf[512];
	size_t n = script_fold_name(&f, java, buf, sizeof buf);
	CHECK_STR(buf, want);
	CHECK(n == strlen(want));
}

/* Folded frame names, tidied as stackcollapse-perf.pl's defaults do (its
 * own examples where it gives them). */
static void test_fold_names(void)
{
	check_fold("foo(int, char const*)", "/usr/bin/x", false, "foo");
	check_fold("(anonymous namespace)::bar(int) const", "/usr/bin/x", false,
		   "(anonymous namespace)::bar");
	check_fold("ns::(anonymous namespace)::f()::(anonymous namespace)::g",
		   "/usr/bin/x", false,
		   "ns::(anonymous namespace)::f");
	check_fold("net/http.(*Client).Do", "/usr/bin/x", false, "net/http.(*Client).Do");
	check_fold("a;b", "/usr/bin/x", false, "a:b");
	check_fold("RegExp:[&<>\"\']", "/tmp/perf-7539.map", false, "RegExp:[&<>]");
	check_fold(NULL, "/usr/lib/libfoo.so.1", false, "[libfoo.so.1]");
	check_fold(NULL, "[unknown]", false, "[unknown]");
	check_fold("Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/"
		   "javascript/ContextAction;)Ljava/lang/Object;", "/tmp/perf-1.map",
		   true, "org/mozilla/javascript/ContextFactory:.call");
	check_fold("Lorg/mozilla/javascript/MemberBox;.<init>(Ljava/lang/reflect/"
		   "Method;)V", "/tmp/perf-1.map", false,
		   "Lorg/mozilla/javascript/MemberBox:.<init>");
	check_fold("Lfoo", "/usr/bin/x", true, "Lfoo"); /* no '/': no class */
	/* cut to the buffer, still terminated */
	script_frame f = { .sym = "abcdefgh", .dso = "x" };
	char small[4];
	CHECK(script_fold_name(&f, false, small, sizeof small) == 3);
	CHECK_STR(small, "abc");
}

/* Threads' names before any COMM record, as perf script prints them: the
 * idle task (system-wide recordings) "swapper", any other ":TID". */
static void test_thread_names(void)
{
	dso_table *t = dso_table_new();
	procs *p = procs_new(t);
	CHECK(t && p);
	thread *idle = p ? procs_thread(p, 0, 0) : NULL;
	thread *other = p ? procs_thread(p, 4242, 4240) : NULL;
	CHECK(idle && other);
	if (idle && other) {
		CHECK_STR(idle->comm, "swapper");
		CHECK_STR(other->comm, ":4242");
		CHECK(procs_comm(p, 4240, 4242, "worker") == 0);
		CHECK_STR(other->comm, "worker");
	}
	procs_free(p);
	dso_table_free(t);
}

int main(void)
{
	/* what the tools save (cache_dir.h) goes to a directory of ours */
	char cache[] = "/tmp/test_ehelf_perf_cache.XXXXXX";
	CHECK(mkdtemp(cache) != NULL);
	setenv("XDG_CACHE_HOME", cache, 1);
	test_spaces();
	test_thread_names();
	test_fold_names();
	test_jit_maps();
	test_symbol_memo();
	test_kernel_syms();
	test_idle_objects();
	test_padded_build_id();
	test_shared_page_biases();
	test_buildid_cache_dir();
	test_saved_symbols(cache);
	test_cache_dir(cache);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_ehelf_perf");
}
