/*
 * bench-codegen - what code generation costs and buys, for a fixed set of
 * ELF files: sizes (.eh_frame, .eh_frame_hdr, eh_elf, ratio), compile time
 * and throughput, and the time of one lookup-and-step at random covered
 * pcs through the eh_elf's local and remote entry points, next to libdw
 * answering the same pcs (dwarf_cfi_addrframe plus the CFA and return
 * address rules) in the same run.  --form full|compact forces the code's
 * form (entry_gen.h; compact applies to files of at most 256 rule sets),
 * auto (the default) lets the generator choose by size, as it does for
 * every eh_elf it ships.
 *
 * Usage: bench-codegen [--steps N] [--form auto|full|compact] FILE...
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../testkit/xorshift.h"
#include "../builder/cfi/cfi_reader.h"
#include "../builder/codegen/compile.h"
#include "../builder/codegen/entry_gen.h"
#include "../client-lib/include/ehelf.h"

enum { MEM = 1 << 20 };
static uint8_t *mem;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int read_mem(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t base = (uint64_t)(uintptr_t)mem;
	if (addr - base > MEM - 8)
		return -1;
	memcpy(value, (void *)(uintptr_t)addr, 8);
	return 0;
}

/* Random covered pcs: a row chosen uniformly, an address inside it. */
static uint64_t *pick_pcs(elf_file *f, size_t n)
{
	uint64_t (*rows)[2] = NULL;
	size_t nrows = 0, cap = 0;
	cfi_reader *r = cfi_reader_new();
	ehelf_err err;
	cfi_reader_add_elf(r, f, &err);
	uw_fde fde;
	while (cfi_reader_next(r, &fde, &err) > 0)
		for (size_t i = 0; i < fde.nrows; i++) {
			if (nrows == cap) {
				cap = cap ? 2 * cap : 4096;
				rows = realloc(rows, cap * sizeof *rows);
			}
			rows[nrows][0] = fde.rows[i].lo;
			rows[nrows][1] = fde.rows[i].hi;
			nrows++;
		}
	cfi_reader_free(r);
	uint64_t *pcs = malloc(n * sizeof *pcs), s = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		uint64_t *row = rows[xorshift64(&s) % nrows];
		pcs[i] = row[0] + xorshift64(&s) % (row[1] - row[0]);
	}
	free(rows);
	return pcs;
}

static void regs_init(ehelf_regs *in)
{
	uint64_t base = (uint64_t)(uintptr_t)mem + MEM / 2;
	for (int i = 0; i < EHELF_NREGS; i++)
		in->r[i] = base + 64 * (uint64_t)i;
	in->valid = EHELF_VALID_REGS;
}

typedef struct result {
	const char *path;
	uint64_t eh_frame, hdr, out;
	double compile_s, local_ns, remote_ns, libdw_ns, warm_local_ns,
	       warm_remote_ns;
	uint64_t rows, rulesets, unsupported;
} result;

static int bench_file(const char *path, size_t steps, gen_form form,
		      result *res)
{
	ehelf_err err = { 0 };
	elf_file f;
	if (elf_file_open(&f, path, &err) < 0) {
		fprintf(stderr, "bench-codegen: %s\n", err.msg);
		return -1;
	}
	res->path = path;
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_compile_opts copts = { .code_form = (int)form };
	double best = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		free(image);
		double t0 = now();
		int rc = ehelf_compile_elf(&f, &copts, &image, &len, &st, &err);
		double t = now() - t0;
		if (rc < 0) {
			fprintf(stderr, "bench-codegen: %s\n", err.msg);
			elf_file_close(&f);
			return -1;
		}
		best = t < best ? t : best;
		res->eh_frame = st.eh_frame_bytes;
		res->hdr = st.eh_frame_hdr_bytes;
		res->out = st.output_bytes;
		res->rows = st.rows;
		res->rulesets = st.rulesets - 1;
		res->unsupported = st.unsupported_rows;
		ehelf_compile_stats_free(&st);
	}
	res->compile_s = best;
	char tmp[] = "/tmp/ehelf-bench-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0 || write(fd, image, len) != (ssize_t)len)
		return -1;
	close(fd);
	free(image);
	ehelf_object *o = ehelf_object_open(tmp);
	unlink(tmp);
	if (!o) {
		fprintf(stderr, "bench-codegen: %s\n", ehelf_last_error());
		return -1;
	}
	uint64_t *pcs = pick_pcs(&f, steps);
	ehelf_regs in, out;
	regs_init(&in);
	uint64_t lo = (uint64_t)(uintptr_t)mem, hi = lo + MEM, sink = 0;
	/* each figure: the fastest of REPS passes over the same pcs (the first
	 * pass warms caches and predictors); WARM pcs stepped in turn model a
	 * hot stack sampled again and again */
	enum { REPS = 5, WARM = 32 };
	res->local_ns = res->remote_ns = res->warm_local_ns =
		res->warm_remote_ns = 1e9;
	for (int pass = 0; pass < REPS; pass++) {
		for (int kind = 0; kind < 4; kind++) {
			size_t mask = kind >= 2 ? WARM - 1 : SIZE_MAX;
			bool remote = kind & 1;
			double t0 = now();
			for (size_t i = 0; i < steps; i++) {
				uint64_t pc = pcs[i & mask];
				in.r[EHELF_RIP] = pc;
				int status = remote
					? ehelf_object_step(o, pc, &in, &out, read_mem, NULL)
					: ehelf_object_step_local(o, pc, &in, &out, lo, hi);
				sink += (uint64_t)status + out.r[EHELF_RIP];
			}
			double ns = (now() - t0) * 1e9 / (double)steps;
			double *slot = kind == 0 ? &res->local_ns : kind == 1 ?
				       &res->remote_ns : kind == 2 ?
				       &res->warm_local_ns : &res->warm_remote_ns;
			if (ns < *slot)
				*slot = ns;
		}
	}
	/* libdw on the same pcs */
	int dfd = open(path, O_RDONLY);
	Elf *elf = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	size_t dsteps = steps / 8 ? steps / 8 : 1;
	res->libdw_ns = 1e9;
	if (cfi) {
		for (int pass = 0; pass < 3; pass++) {
			double t0 = now();
			for (size_t i = 0; i < dsteps; i++) {
				Dwarf_Frame *frame;
				if (dwarf_cfi_addrframe(cfi, pcs[i], &frame) != 0)
					continue;
				Dwarf_Op *ops, mem3[3];
				size_t nops;
				dwarf_frame_cfa(frame, &ops, &nops);
				sink += nops;
				dwarf_frame_register(frame, 16, mem3, &ops, &nops);
				sink += nops;
				free(frame);
			}
			double ns = (now() - t0) * 1e9 / (double)dsteps;
			if (ns < res->libdw_ns)
				res->libdw_ns = ns;
		}
		dwarf_cfi_end(cfi);
	}
	elf_end(elf);
	close(dfd);
	if (sink == 42)
		printf(" ");
	free(pcs);
	ehelf_object_close(o);
	elf_file_close(&f);
	return 0;
}

static const char usage[] =
	"Usage: bench-codegen [--steps N] [--form auto|full|compact] FILE...\n";

int main(int argc, char **argv)
{
	size_t steps = 1 << 20;
	gen_form form = GEN_FORM_AUTO;
	static const struct option opts[] = {
		{ "steps", required_argument, NULL, 's' },
		{ "form", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "s:f:h", opts, NULL)) != -1) {
		if (c == 's') {
			steps = (size_t)atol(optarg);
		} else if (c == 'f' && strcmp(optarg, "auto") == 0) {
			form = GEN_FORM_AUTO;
		} else if (c == 'f' && strcmp(optarg, "full") == 0) {
			form = GEN_FORM_FULL;
		} else if (c == 'f' && strcmp(optarg, "compact") == 0) {
			form = GEN_FORM_COMPACT_LARGE;
		} else {
			if (c == 'f')
				fprintf(stderr, "bench-codegen: --form %s: not auto, "
					"full or compact\n", optarg);
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind == argc || steps == 0) {
		fputs(usage, stderr);
		return 2;
	}
	elf_version(EV_CURRENT);
	mem = mmap(NULL, MEM, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *w = (uint64_t *)mem;
	for (size_t k = 0; k < MEM / 8; k++)
		w[k] = (uint64_t)(uintptr_t)mem + MEM / 2 + (k * 8 % (MEM / 4));
	printf("%-20s %9s %8s %9s %6s %8s %8s | %7s %7s %7s %7s | %7s %7s\n",
	       "file", ".eh_frame", "hdr", "eh_elf", "ratio", "compile",
	       "MiB/s", "local", "remote", "local", "remote", "libdw", "libdw/");
	printf("%-20s %9s %8s %9s %6s %8s %8s | %15s %15s | %7s %7s\n", "",
	       "bytes", "bytes", "bytes", "", "ms", "", "random pcs ns",
	       "32 warm pcs ns", "ns/pc", "local");
	uint64_t tin = 0, tout = 0;
	int status = 0;
	for (int i = optind; i < argc; i++) {
		result r = { 0 };
		if (bench_file(argv[i], steps, form, &r) < 0) {
			status = 1;
			continue;
		}
		const char *base = strrchr(r.path, '/');
		base = base ? base + 1 : r.path;
		uint64_t in = r.eh_frame + r.hdr;
		tin += in;
		tout += r.out;
		printf("%-20.20s %9" PRIu64 " %8" PRIu64 " %9" PRIu64 " %6.3f %8.2f "
		       "%8.1f | %7.1f %7.1f %7.1f %7.1f | %7.0f %6.0fx\n", base,
		       r.eh_frame, r.hdr, r.out, (double)r.out / (double)in,
		       r.compile_s * 1e3,
		       (double)r.eh_frame / r.compile_s / (1 << 20), r.local_ns,
		       r.remote_ns, r.warm_local_ns, r.warm_remote_ns, r.libdw_ns,
		       r.libdw_ns / r.local_ns);
	}
	if (tin)
		printf("%-20s %18s %9" PRIu64 " %6.3f\n", "total", "", tout,
		       (double)tout / (double)tin);
	return status;
}
