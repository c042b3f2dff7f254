/*
 * test_process_space.c - the process-wide space of ehelf_backtrace
 * rebuilt while an unwinder holds it: the replaced spaces are kept while a
 * pin is held, however many rebuilds happen (the held one stays usable),
 * and freed at the first rebuild that finds no pin.  Under ASan+UBSan,
 * LeakSanitizer reports any space lost on the way (there used to be room
 * for 16 only).
 */
#include <stdio.h>

#include "../../client-lib/include/ehelf.h"
#include "../../client-lib/space.h"
#include "../../client-lib/unwind.h"
#include "unit.h"

int main(void)
{
	CHECK(ehelf_backtrace_init() == 0);
	const ehelf_space *held = process_space_pin();
	CHECK(held != NULL);
	for (int i = 0; i < 40; i++)
		CHECK(ehelf_backtrace_init() == 0);
	/* the held space is still whole: its modules are there */
	CHECK(held && held->n > 0 &&
	      space_find(held, (uint64_t)(uintptr_t)&main) != NULL);
	const ehelf_space *now = process_space_pin();
	CHECK(now != NULL && now != held);
	process_space_unpin();
	process_space_unpin();
	CHECK(ehelf_backtrace_init() == 0); /* frees the 41 replaced ones */
	printf("test_process_space: 41 rebuilds under a pin, then freed\n");
	UNIT_DONE("test_process_space");
}
