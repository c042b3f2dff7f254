/* frame_diff.c - see frame_diff.h. */
#include "frame_diff.h"

bool frames_agree(const ehelf_frame *e, int ne, const lframe *l, int nl,
		  int from)
{
	if (ne != nl)
		return false;
	for (int i = from; i < ne; i++)
		if (e[i].pc != l[i].ip || e[i].sp != l[i].sp ||
		    !!(e[i].flags & EHELF_FRAME_SIGNAL) != l[i].signal)
			return false;
	return true;
}

void frames_print_diff(FILE *out, const char *what, const ehelf_frame *e,
		       int ne, const lframe *l, int nl)
{
	fprintf(out, "MISMATCH %s: ehelf %d frames, libunwind %d\n", what, ne, nl);
	for (int i = 0; i < (ne > nl ? ne : nl); i++)
		fprintf(out, "  %2d  ehelf %#14llx %#14llx %s%s   libunwind %#14llx %#14llx%s\n",
			i, i < ne ? (unsigned long long)e[i].pc : 0ull,
			i < ne ? (unsigned long long)e[i].sp : 0ull,
			i < ne && e[i].path == EHELF_PATH_DWARF ? "dwarf" : "     ",
			i < ne && (e[i].flags & EHELF_FRAME_SIGNAL) ? " sig" : "    ",
			i < nl ? (unsigned long long)l[i].ip : 0ull,
			i < nl ? (unsigned long long)l[i].sp : 0ull,
			i < nl && l[i].signal ? " sig" : "");
}
