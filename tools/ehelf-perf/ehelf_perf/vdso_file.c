/* vdso_file.c - see vdso_file.h. */
#define _GNU_SOURCE
#include "vdso_file.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/atomic_file.h"
#include "../../../common/buildid.h"
#include "../../../common/elf_file.h"
#include "buildid_cache.h"
#include "cache_dir.h"

/* Is PATH a file of exactly the SIZE bytes at DATA? */
static bool same_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool same = false;
	struct stat st;
	void *buf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == size &&
	    (buf = malloc(size)) && read(fd, buf, size) == (ssize_t)size)
		same = !memcmp(buf, data, size);
	free(buf);
	close(fd);
	return same;
}

int vdso_file(const uint8_t *id, size_t len, char *buf, size_t cap)
{
	struct stat st;
	if (len && buildid_cache_path("[vdso]", "vdso", id, len, buf, cap) == 0 &&
	    stat(buf, &st) == 0 && S_ISREG(st.st_mode))
		return 0;

	/* our own: a whole ELF image, its section headers last */
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	if (!eh)
		return -1;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof *eh || size > (1u << 20))
		return -1;
	elf_file f;
	ehelf_err err = { 0 };
	if (elf_file_open_mem(&f, eh, size, "[vdso]", &err) != 0)
		return -1;
	const uint8_t *own;
	int n = elf_file_build_id(&f, &own);
	char hex[BUILDID_HEX_MAX + 1];
	bool ok = n > 0 && (!len || buildid_same(id, len, own, (size_t)n)) &&
		  buildid_to_hex(own, (size_t)n, hex, sizeof hex) > 0;
	elf_file_close(&f);
	char dir[4096];
	if (!ok || cache_dir("vdso", dir, sizeof dir) != 0)
		return -1;
	int k = snprintf(buf, cap, "%s/%s", dir, hex);
	if (k < 0 || (size_t)k >= cap)
		return -1;
	if (same_file(buf, eh, size))
		return 0;
	return atomic_write_cache(buf, eh, size, 0600, &err) == 0 ? 0 : -1;
}
