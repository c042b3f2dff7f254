/* remote_file.c - see remote_file.h. */
#define _GNU_SOURCE
#include "remote_file.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/elf_file.h"

enum { PAGE = 4096 };

/* Whether F, mapped as remote_file.h says, matches; fills OUT. */
static bool file_matches(elf_file *f, uint64_t start, uint64_t end,
			 uint64_t eh_frame_hdr, remote_module *out)
{
	size_t n;
	if (elf_getphdrnum(f->elf, &n) != 0)
		return false;
	GElf_Phdr ph;
	uint64_t hdr_vaddr = 0, first_load = 0;
	bool have_hdr = false, have_load = false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME && !have_hdr) {
			hdr_vaddr = ph.p_vaddr;
			have_hdr = true;
		}
		if (ph.p_type == PT_LOAD && !have_load) {
			first_load = ph.p_vaddr & ~(uint64_t)(PAGE - 1);
			have_load = true;
		}
	}
	if (!have_hdr || !have_load)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		uint64_t seg = ph.p_vaddr & ~(uint64_t)(PAGE - 1);
		uint64_t len = ((ph.p_vaddr + ph.p_filesz + PAGE - 1) &
				~(uint64_t)(PAGE - 1)) - seg;
		uint64_t bias = start - seg;
		/* the segbase of the module's layout, or perf's when it knows
		 * the executable mapping alone (it takes the lowest mapping
		 * for the first PT_LOAD's) */
		if (len != end - start || (bias + hdr_vaddr != eh_frame_hdr &&
					   start - first_load + hdr_vaddr != eh_frame_hdr))
			continue;
		const uint8_t *id;
		int idlen = elf_file_build_id(f, &id);
		if (idlen <= 0 || (size_t)idlen > sizeof out->build_id)
			return false;
		out->bias = bias;
		memcpy(out->build_id, id, (size_t)idlen);
		out->build_id_len = (size_t)idlen;
		return true;
	}
	return false;
}

int remote_file_find(uint64_t start, uint64_t end, uint64_t eh_frame_hdr,
		     remote_module *out)
{
	memset(out, 0, sizeof *out);
	out->start = start;
	out->end = end;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int dfd = dirfd(d), rc = -1;
	struct dirent *e;
	while (rc < 0 && (e = readdir(d))) {
		char path[PATH_MAX];
		ssize_t len = readlinkat(dfd, e->d_name, path, sizeof path - 1);
		if (len <= 0 || path[0] != '/')
			continue; /* ".", "..", pipes, sockets, anonymous files */
		path[len] = 0;
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		elf_file f;
		ehelf_err err;
		if (elf_file_open(&f, path, &err) != 0)
			continue;
		if (file_matches(&f, start, end, eh_frame_hdr, out))
			rc = 0;
		elf_file_close(&f);
	}
	closedir(d);
	return rc;
}
