/*
 * test_cfi_fallback - the allocation-free CFI interpreter that steps
 * modules without an eh_elf (client-lib/cfi_fallback/), on the ELFs this
 * test has loaded (libc, libstdc++, libm, ld.so, the vDSO's image aside,
 * and the test itself):
 *  - every row of every .eh_frame FDE, at its first and last address,
 *    against the builder's CFI reader (builder/cfi/cfi_reader.h, from
 *    whose rows the eh_elfs are compiled): the FDE found through
 *    .eh_frame_hdr and the same rules;
 *  - for every row with a summary (cfi_row_summary), the step applied
 *    from the rules equals the summary's step (summary_step.h), on a
 *    stack of known words;
 *  - the tables located from the loaded segments equal those of the file;
 *  - DWARF expressions of the PLT and of glibc's signal trampoline;
 *  - a space not of this process (ld.so added as a module under a random
 *    build-ID, so that no eh_elf is found): a step from its own tables,
 *    through a mapping of its file, with libdw never opened, also at a pc
 *    that no FDE covers (ld.so has no .debug_frame); and a file with a
 *    .debug_frame only (the zoo-debugframe fixture), which only libdw
 *    steps there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dwarf.h>
#include <sys/random.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../client-lib/cfi_fallback/cfi_apply.h"
#include "../../client-lib/cfi_fallback/cfi_expr.h"
#include "../../client-lib/cfi_fallback/cfi_row.h"
#include "../../client-lib/space.h"
#include "../../client-lib/summary_step.h"
#include "../../client-lib/unwind.h"
#include "unit.h"

typedef struct stack_buf {
	uint64_t base;
	uint64_t w[1024];
} stack_buf;

static int stack_read(void *arg, uint64_t addr, uint64_t *v)
{
	const stack_buf *b = arg;
	if (addr < b->base || addr - b->base > sizeof b->w - 8 || (addr - b->base) % 8)
		return -1;
	*v = b->w[(addr - b->base) / 8];
	return 0;
}

static bool rule_same(const uw_rule *u, const cfi_rule *c)
{
	if (u->kind != c->kind)
		return false;
	switch (u->kind) {
	case UW_OFFSET: case UW_VAL_OFFSET: return u->off == c->off;
	case UW_REGISTER: return u->reg == c->reg;
	case UW_EXPR: case UW_VAL_EXPR:
		return u->expr_len == c->expr_len && !memcmp(u->expr, c->expr, c->expr_len);
	default: return true;
	}
}

static bool cfa_same(const uw_cfa *u, const cfi_rule *c)
{
	if (u->kind == UW_CFA_REG_OFF)
		return c->kind == CFI_REGISTER && u->reg == c->reg && u->off == c->off;
	return u->kind == UW_CFA_EXPR && c->kind == CFI_EXPR &&
	       u->expr_len == c->expr_len && !memcmp(u->expr, c->expr, c->expr_len);
}

static long rows_checked, summaries_checked, mismatches;

/* Applying ROW directly and through its summary SUM give the same. */
static void check_summary(const cfi_row *row, uint64_t sum)
{
	static stack_buf b;
	b.base = 0x7f0000100000ull;
	for (int i = 0; i < 1024; i++)
		b.w[i] = 0x5000 + (uint64_t)i * 8;
	ehelf_regs in;
	for (int i = 0; i < EHELF_NREGS; i++)
		in.r[i] = 0x1000 + (uint64_t)i;
	in.r[EHELF_RSP] = b.base + 4096;
	in.r[EHELF_RBP] = b.base + 6144;
	in.valid = EHELF_VALID_REGS;
	ehelf_regs a, s;
	int sa = cfi_row_apply(row, false, &in, &a, stack_read, &b, false);
	int ss = summary_step(sum, &in, &s, 0, 0, stack_read, &b);
	summaries_checked++;
	bool same = sa == ss;
	if (same && sa == EHELF_STEP) {
		same = a.valid == s.valid;
		for (int i = 0; same && i < EHELF_NREGS; i++)
			same = !((a.valid >> i) & 1) || a.r[i] == s.r[i];
	}
	if (!same && mismatches++ < 5)
		fprintf(stderr, "summary %#llx: applied %d, summary %d\n",
			(unsigned long long)sum, sa, ss);
	CHECK(same);
}

static void check_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	const uint8_t *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	cfi_tables t;
	CHECK(cfi_tables_from_file(&t, map, (size_t)st.st_size));
	elf_file f;
	ehelf_err err;
	CHECK(elf_file_open(&f, path, &err) == 0);
	cfi_reader *r = cfi_reader_new();
	CHECK(cfi_reader_add_elf_section(r, &f, ".eh_frame", &err) == 1);
	uw_fde fde;
	long before = rows_checked;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		for (size_t k = 0; k < fde.nrows; k++) {
			const uw_row *u = &fde.rows[k];
			uint64_t pcs[2] = { u->lo, u->hi - 1 };
			for (int j = 0; j < 2; j++) {
				cfi_fde cf;
				cfi_row row;
				int rc = cfi_tables_find(&t, pcs[j], &cf);
				if (rc == 0)
					rc = cfi_row_at(&cf, pcs[j], &row);
				bool same = rc == 0 && cf.fde.lo == fde.lo &&
					    cfa_same(&u->r.cfa, &row.cfa);
				/* (expressions by their bytes: the reader's
				 * point into its own mapping of the file) */
				for (int c = 0; same && c < CFI_NCOLS; c++)
					same = rule_same(&u->r.reg[c], &row.col[c]);
				rows_checked++;
				if (!same && mismatches++ < 5)
					fprintf(stderr, "%s: pc %#llx (FDE %#llx): status %d, rules differ\n",
						path, (unsigned long long)pcs[j],
						(unsigned long long)fde.lo, rc);
				CHECK(same);
				uint64_t sum = rc == 0 ? cfi_row_summary(&row, fde.signal_frame) : 0;
				if (sum)
					check_summary(&row, sum);
			}
		}
	}
	cfi_reader_free(r);
	elf_file_close(&f);
	CHECK(rows_checked > before);
	cfi_fde none;
	CHECK(cfi_tables_find(&t, 0, &none) == EHELF_E_NOT_COVERED);
	fprintf(stderr, "  %s: %ld rows\n", path, rows_checked - before);
}

static char paths[16][512];
static int npaths;
static cfi_tables loaded[16];

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || info->dlpi_name[0] != '/' || npaths == 16)
		return 0;
	snprintf(paths[npaths], sizeof paths[npaths], "%s", info->dlpi_name);
	cfi_tables_from_memory(&loaded[npaths], info->dlpi_phdr, info->dlpi_phnum,
			       info->dlpi_addr);
	npaths++;
	return 0;
}

static void check_expressions(void)
{
	/* the CFA of a lazy PLT entry: rsp + 8, + 8 more from the push on */
	static const uint8_t plt[] = { DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15,
				       DW_OP_and, DW_OP_lit11, DW_OP_ge, DW_OP_lit3,
				       DW_OP_shl, DW_OP_plus };
	ehelf_regs in = { .valid = EHELF_VALID_REGS };
	in.r[EHELF_RSP] = 0x1000;
	uint64_t v;
	in.r[EHELF_RIP] = 0x2006; /* before the push */
	CHECK(cfi_expr_eval(plt, sizeof plt, &in, 0, false, stack_read, NULL, &v) == EHELF_STEP);
	CHECK_U64(v, 0x1008);
	in.r[EHELF_RIP] = 0x200b; /* after it */
	CHECK(cfi_expr_eval(plt, sizeof plt, &in, 0, false, stack_read, NULL, &v) == EHELF_STEP);
	CHECK_U64(v, 0x1010);
	/* glibc's __restore_rt: CFA = [rsp + 160] */
	static stack_buf b;
	b.base = 0x10000;
	b.w[160 / 8] = 0xabcdef0;
	in.r[EHELF_RSP] = b.base;
	static const uint8_t sig[] = { DW_OP_breg7, 0xa0, 0x01, DW_OP_deref };
	CHECK(cfi_expr_eval(sig, sizeof sig, &in, 0, false, stack_read, &b, &v) == EHELF_STEP);
	CHECK_U64(v, 0xabcdef0);
	/* the errors: a register not valid, a failed read, a stack underflow,
	 * a division by zero, an unsupported operation, an endless loop */
	in.valid &= ~(1u << EHELF_RSP);
	CHECK(cfi_expr_eval(sig, sizeof sig, &in, 0, false, stack_read, &b, &v) == EHELF_E_BADREG);
	in.valid = EHELF_VALID_REGS;
	in.r[EHELF_RSP] = 8;
	CHECK(cfi_expr_eval(sig, sizeof sig, &in, 0, false, stack_read, &b, &v) == EHELF_E_READ);
	static const uint8_t under[] = { DW_OP_plus };
	CHECK(cfi_expr_eval(under, 1, &in, 0, false, stack_read, &b, &v) == EHELF_E_EXPR);
	static const uint8_t div0[] = { DW_OP_lit1, DW_OP_lit0, DW_OP_div };
	CHECK(cfi_expr_eval(div0, 3, &in, 0, false, stack_read, &b, &v) == EHELF_E_EXPR);
	static const uint8_t tls[] = { DW_OP_lit1, DW_OP_lit1, DW_OP_form_tls_address };
	CHECK(cfi_expr_eval(tls, 3, &in, 0, false, stack_read, &b, &v) == EHELF_E_UNSUPPORTED);
	static const uint8_t loop[] = { DW_OP_skip, 0xfd, 0xff };
	CHECK(cfi_expr_eval(loop, 3, &in, 0, false, stack_read, &b, &v) == EHELF_E_EXPR);
	/* the CFA pushed first, for register rules */
	static const uint8_t at[] = { DW_OP_lit8, DW_OP_minus };
	CHECK(cfi_expr_eval(at, 2, &in, 0x3000, true, stack_read, &b, &v) == EHELF_STEP);
	CHECK_U64(v, 0x2ff8);
}

static ehelf_module_desc ldso;
static char ldso_path[512];
static uint8_t ldso_id[20];

static int find_ldso(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/ld-linux"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		snprintf(ldso_path, sizeof ldso_path, "%s", info->dlpi_name);
		ldso = (ehelf_module_desc){ .start = info->dlpi_addr + ph->p_vaddr,
					    .end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
					    .bias = info->dlpi_addr, .path = ldso_path,
					    .build_id = ldso_id, .build_id_len = sizeof ldso_id };
		return 1;
	}
	return 0;
}

/* One remote step from PC, exact, on a stack whose first word is RET. */
static int remote_step(const ehelf_space *s, uint64_t pc, uint64_t ret, uint32_t *path)
{
	uint64_t stack[4] = { ret, 0, 0, 0 };
	snapshot sn = { .addr = (uint64_t)(uintptr_t)stack, .size = sizeof stack,
			.data = (const uint8_t *)stack };
	reader rd = { .local = false, .read = snapshot_read, .arg = &sn, .snap = &sn };
	ehelf_regs r = { .valid = EHELF_VALID_REGS };
	r.r[EHELF_RIP] = pc;
	r.r[EHELF_RSP] = (uint64_t)(uintptr_t)stack;
	return unwind_step(s, &r, true, &rd, 0, path, NULL, NULL);
}

static void check_remote_space(void)
{
	CHECK(dl_iterate_phdr(find_ldso, NULL) == 1);
	CHECK(getrandom(ldso_id, sizeof ldso_id, 0) == (ssize_t)sizeof ldso_id);
	ehelf_space *s = ehelf_space_new();
	CHECK(s && ehelf_space_add_module(s, &ldso) == 0);
	if (!s || !ldso.start)
		return;
	/* a function of ld.so's that no sanitizer intercepts */
	void *ld_fn = dlvsym(RTLD_DEFAULT, "__rtld_version_placeholder", "GLIBC_2.34");
	CHECK(ld_fn != NULL);
	const module *m = space_find(s, (uint64_t)(uintptr_t)ld_fn);
	CHECK(m != NULL && module_object(m) == NULL);
	if (!m)
		return;
	uint32_t path = 0;
	uint64_t ret = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "abort") + 16;
	CHECK(remote_step(s, (uint64_t)(uintptr_t)ld_fn, ret, &path) == EHELF_STEP);
	CHECK(path == EHELF_PATH_DWARF);
	CHECK(m->map != NULL && m->cfi.ok);
	/* ld.so's entry point, _start: no FDE, no .debug_frame */
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)ldso.bias;
	int st = remote_step(s, ldso.bias + eh->e_entry, ret, &path);
	CHECK(st == EHELF_E_NOT_COVERED || st == EHELF_OUTERMOST);
	CHECK(!m->dw_useful);
	CHECK(m->dw == NULL && !m->dw_tried); /* libdw never opened */
	fde_info fi;
	CHECK(module_fde_info(m, (uint64_t)(uintptr_t)ld_fn - ldso.bias, &fi) == 0);
	CHECK(fi.lo <= (uint64_t)(uintptr_t)ld_fn - ldso.bias &&
	      (uint64_t)(uintptr_t)ld_fn - ldso.bias < fi.hi && !fi.signal_frame);
	ehelf_space_free(s);
}

/* the zoo-debugframe fixture's executable segment once loaded */
static char zoo_path[512];
static ehelf_module_desc zoo;

static int find_zoo(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || strcmp(info->dlpi_name, zoo_path) != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			zoo = (ehelf_module_desc){ .start = info->dlpi_addr + ph->p_vaddr,
						   .end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
						   .bias = info->dlpi_addr, .path = zoo_path,
						   .build_id = ldso_id, .build_id_len = sizeof ldso_id };
			return 1;
		}
	}
	return 0;
}

static void check_debug_frame_only(void)
{
	const char *build = getenv("EHELF_BUILD");
	snprintf(zoo_path, sizeof zoo_path, "%s/fixtures/zoo-debugframe.so",
		 build ? build : "build");
	void *h = dlopen(zoo_path, RTLD_NOW);
	CHECK(h != NULL);
	if (!h)
		return;
	void *fn = dlsym(h, "fixture_recurse");
	CHECK(fn != NULL && dl_iterate_phdr(find_zoo, NULL) == 1);
	ehelf_space *s = ehelf_space_new();
	CHECK(s && ehelf_space_add_module(s, &zoo) == 0);
	const module *m = s ? space_find(s, (uint64_t)(uintptr_t)fn) : NULL;
	CHECK(m != NULL);
	if (m) {
		uint32_t path = 0;
		uint64_t ret = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "abort") + 16;
		CHECK(remote_step(s, (uint64_t)(uintptr_t)fn, ret, &path) == EHELF_STEP);
		CHECK(path == EHELF_PATH_DWARF);
		CHECK(!m->cfi.ok && m->dw != NULL); /* no tables: libdw */
	}
	ehelf_space_free(s);
}

int main(void)
{
	dl_iterate_phdr(each_object, NULL);
	CHECK(npaths >= 3);
	for (int i = 0; i < npaths; i++) {
		check_file(paths[i]);
		/* the loaded segments' tables are the file's */
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			cfi_tables t;
			CHECK(m != MAP_FAILED && cfi_tables_from_file(&t, m, (size_t)st.st_size));
			CHECK(loaded[i].ok);
			CHECK_U64(loaded[i].hdr_vaddr, t.hdr_vaddr);
			CHECK_U64(loaded[i].eh_vaddr, t.eh_vaddr);
		}
		if (fd >= 0)
			close(fd);
	}
	check_file("/proc/self/exe");
	fprintf(stderr, "  %ld rows, %ld summaries checked\n", rows_checked, summaries_checked);
	CHECK(summaries_checked > 1000);
	check_expressions();
	check_remote_space();
	check_debug_frame_only();
	UNIT_DONE("test_cfi_fallback");
}
