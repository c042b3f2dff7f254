/*
 * unwind-report - what libehelf finds and uses in this process, through
 * its public API only (client-lib/include/ehelf.h): the test program that
 * tests/packaging runs inside a Debian root before, after and without
 * installed -ehelf packages.
 *
 * Prints, for each loaded module (dl_iterate_phdr):
 *     module PATH BUILD-ID eh_elf|none [/usr/lib/ehelf/.build-id/XX/REST.so]
 * where eh_elf means libehelf resolved an eh_elf for it (a space holding
 * that module alone, ehelf_space_modules), and the store path given is the
 * installed one when that file exists; then unwinds this thread from a
 * qsort comparator (so through libc) and prints, for each step,
 *     step FROM-MODULE eh_elf|dwarf|plt|frame-pointer
 * the module whose frame was unwound and how (ehelf_frame.path).
 * Exit status 0 when the stack reached main, 1 otherwise, 2 usage.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ehelf.h>

/* The GNU build-ID of a loaded module, from its PT_NOTE segments. */
static void build_id_hex(const struct dl_phdr_info *info, char *out, size_t n)
{
	snprintf(out, n, "?");
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc = (const unsigned char *)name +
						    ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && 2 * nh->n_descsz < n) {
				for (unsigned k = 0; k < nh->n_descsz; k++)
					snprintf(out + 2 * k, 3, "%02x", desc[k]);
				return;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int report_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
							       : "/proc/self/exe";
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	if (hi == 0 || strstr(path, "linux-vdso"))
		return 0;
	char id[2 * 64 + 1];
	build_id_hex(info, id, sizeof id);
	ehelf_space *s = ehelf_space_new();
	ehelf_module_desc m = { .start = lo, .end = hi, .bias = info->dlpi_addr,
				.path = path };
	int with = 0;
	if (s && ehelf_space_add_module(s, &m) == 0)
		ehelf_space_modules(s, &with);
	char store[256] = "";
	if (strlen(id) > 2) {
		snprintf(store, sizeof store, "/usr/lib/ehelf/.build-id/%.2s/%s.so",
			 id, id + 2);
		if (access(store, R_OK) != 0)
			store[0] = '\0';
	}
	printf("module %s %s %s%s%s\n", path, id, with ? "eh_elf" : "none",
	       *store ? " " : "", store);
	ehelf_space_free(s);
	return 0;
}

static const char *module_of(uint64_t pc)
{
	Dl_info di;
	if (dladdr((void *)(uintptr_t)pc, &di) && di.dli_fname)
		return di.dli_fname;
	return "?";
}

static const char *how(uint32_t path)
{
	switch (path) {
	case EHELF_PATH_EHELF: return "eh_elf";
	case EHELF_PATH_DWARF: return "dwarf";
	case EHELF_PATH_PLT: return "plt";
	case EHELF_PATH_FRAME_POINTER: return "frame-pointer";
	default: return "first";
	}
}

static int reached_main;

static int __attribute__((noinline)) compare(const void *a, const void *b)
{
	static int done;
	if (!done) {
		done = 1;
		ehelf_space *s = ehelf_space_new();
		ehelf_regs r;
		ehelf_frame f[64];
		int n = -1;
		if (s && ehelf_space_load_self(s) == 0 && ehelf_getcontext(&r) == 0)
			n = ehelf_unwind_local(s, &r, f, 64, 0);
		if (n < 0)
			fprintf(stderr, "unwind-report: %s\n", ehelf_last_error());
		for (int i = 1; i < n; i++) {
			printf("step %s %s\n", module_of(f[i - 1].pc - (i > 1)),
			       how(f[i].path));
			Dl_info di;
			if (dladdr((void *)(uintptr_t)(f[i].pc - 1), &di) &&
			    di.dli_sname && strcmp(di.dli_sname, "main") == 0)
				reached_main = 1;
		}
		ehelf_space_free(s);
	}
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((visibility("default"))) int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr,
			"Usage: unwind-report\nPrints which loaded modules libehelf "
			"has an eh_elf for, and how each frame of a stack through "
			"qsort (libc) is unwound.\n");
		return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	dl_iterate_phdr(report_module, NULL);
	int v[] = { 5, 3, 9, 1, 7, 2, 8 };
	qsort(v, sizeof v / sizeof *v, sizeof *v, compare);
	fflush(stdout);
	return reached_main ? 0 : 1;
}
