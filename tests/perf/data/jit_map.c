/* A JIT for run-perf-tests.sh: it copies two functions of machine code
 * into anonymous executable memory (no CFI, frame pointers kept), lists
 * them in /tmp/perf-PID.map as JITs do for perf, and spends its time in
 * them.  perf names such mappings "/tmp/perf-PID.map", their frames from
 * that file, and prints their addresses as they are (the memory is shared:
 * its file offset, 0, is not its address).  Prints the map's path; the
 * test removes it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* uint64_t spin(uint64_t x): push %rbp; mov %rsp,%rbp; mov %rdi,%rax;
 * mov $1000,%ecx; 1: imul $31,%rax,%rax; add $7,%rax; dec %ecx; jnz 1b;
 * pop %rbp; ret */
static const uint8_t spin[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0xb9, 0xe8, 0x03, 0x00, 0x00,
	0x48, 0x6b, 0xc0, 0x1f, 0x48, 0x83, 0xc0, 0x07, 0xff, 0xc9, 0x75, 0xf4,
	0x5d, 0xc3,
};
/* uint64_t outer(uint64_t x, uint64_t (*f)(uint64_t)): push %rbp;
 * mov %rsp,%rbp; call *%rsi; add $1,%rax; pop %rbp; ret */
static const uint8_t outer[] = {
	0x55, 0x48, 0x89, 0xe5, 0xff, 0xd6, 0x48, 0x83, 0xc0, 0x01, 0x5d, 0xc3,
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jit_map: mmap");
		return 1;
	}
	memcpy(code + 0x100, spin, sizeof spin);
	memcpy(code + 0x200, outer, sizeof outer);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	/* the format: START SIZE NAME, hexadecimal */
	fprintf(f, "%lx %zx jit_spin\n", (unsigned long)(uintptr_t)(code + 0x100),
		sizeof spin);
	fprintf(f, "%lx %zx jit_outer\n", (unsigned long)(uintptr_t)(code + 0x200),
		sizeof outer);
	fclose(f);
	uint64_t (*call)(uint64_t, uint64_t (*)(uint64_t)) =
		(uint64_t (*)(uint64_t, uint64_t (*)(uint64_t)))(code + 0x200);
	uint64_t s = 0;
	for (long i = 0; i < n; i++)
		s += call((uint64_t)i, (uint64_t (*)(uint64_t))(code + 0x100));
	printf("%s %llu\n", path, (unsigned long long)s);
	return 0;
}
