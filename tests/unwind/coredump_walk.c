/*
 * coredump_walk.c - unwind a core file's first thread with
 * libunwind-coredump (_UCD_*), as libunwind's own test-coredump-unwind
 * does: coredump-walk CORE [VADDR:FILE]... adds each FILE as the backing
 * file of the core's segment at VADDR (hex), then prints one pc a line
 * (hex) and "end N", N the last unw_step's return (run by
 * run-coredump-tests.sh with and without libehelf-unwind preloaded).
 */
#include <libunwind-coredump.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: coredump-walk CORE [VADDR:FILE]...\n");
		return 2;
	}
	struct UCD_info *ui = _UCD_create(argv[1]);
	unw_addr_space_t as = unw_create_addr_space(&_UCD_accessors, 0);
	if (!ui || !as) {
		fprintf(stderr, "coredump-walk: cannot read %s\n", argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *colon;
		unsigned long vaddr = strtoul(argv[i], &colon, 16);
		if (*colon != ':' || _UCD_add_backing_file_at_vaddr(ui, vaddr, colon + 1) < 0)
			fprintf(stderr, "coredump-walk: %s not added\n", argv[i]);
	}
	unw_cursor_t c;
	int rc = unw_init_remote(&c, as, ui);
	if (rc < 0) {
		fprintf(stderr, "coredump-walk: unw_init_remote: %d\n", rc);
		return 1;
	}
	for (int n = 0; n < 64; n++) {
		unw_word_t ip;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
			break;
		printf("%lx\n", (unsigned long)ip);
		if ((rc = unw_step(&c)) <= 0)
			break;
	}
	printf("end %d\n", rc);
	unw_destroy_addr_space(as);
	_UCD_destroy(ui);
	return 0;
}
