/* kernel_syms.c - see kernel_syms.h. */
#include "kernel_syms.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/buildid.h"
#include "buildid_cache.h"
#include "cache_dir.h"

int kernel_syms_cache_path(const uint8_t *id, size_t len, char *buf,
			   size_t cap)
{
	return buildid_cache_path("[kernel.kallsyms]", "kallsyms", id, len, buf,
				  cap);
}

/* The running kernel's build-ID (its GNU note in /sys/kernel/notes) into
 * ID (64 bytes); its length, or 0 if unknown. */
static size_t running_kernel_id(uint8_t *id)
{
	uint8_t notes[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, notes, sizeof notes);
	close(fd);
	for (size_t off = 0; n > 0 && off + 12 <= (size_t)n;) {
		uint32_t h[3]; /* namesz, descsz, type */
		memcpy(h, notes + off, sizeof h);
		size_t name = off + 12, desc = name + ((h[0] + 3u) & ~3u);
		size_t next = desc + ((h[1] + 3u) & ~3u);
		if (next > (size_t)n || next <= off)
			break;
		if (h[2] == 3 /* NT_GNU_BUILD_ID */ && h[0] == 4 &&
		    !memcmp(notes + name, "GNU", 4) && h[1] > 0 && h[1] <= 64) {
			memcpy(id, notes + desc, h[1]);
			return h[1];
		}
		off = next;
	}
	return 0;
}

/* Where the parsed table for perf's copy with build-ID HEX is kept:
 * CACHE/kallsyms/HEX.tab (cache_dir.h). */
static int saved_path(const uint8_t *id, size_t len, char *buf, size_t cap)
{
	char hex[BUILDID_HEX_MAX + 1], dir[4096];
	if (buildid_to_hex(id, len, hex, sizeof hex) < 0 ||
	    cache_dir("kallsyms", dir, sizeof dir) < 0)
		return -1;
	int n = snprintf(buf, cap, "%s/%s.tab", dir, hex);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* perf's copy at PATH (status ST), through the parsed table saved from
 * it, made now if there is none for this very file. */
static symtab *load_copy(const char *path, const struct stat *st,
			 const uint8_t *id, size_t len, ehelf_err *err)
{
	uint64_t key[SYMTAB_KEY_WORDS] = {
		(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
		(uint64_t)st->st_mtim.tv_sec * 1000000000u +
			(uint64_t)st->st_mtim.tv_nsec,
	};
	char saved[4096];
	bool can_save = saved_path(id, len, saved, sizeof saved) == 0;
	ehelf_err ignored;
	symtab *s = can_save ? symtab_load_saved(saved, key, &ignored) : NULL;
	if (s)
		return s;
	s = symtab_load_kallsyms_file(path, err);
	if (s && can_save)
		symtab_save(s, key, saved, &ignored); /* only a cache */
	return s;
}

symtab *kernel_syms_load(const uint8_t *id, size_t len, ehelf_err *err)
{
	char path[4096];
	struct stat st;
	if (len && kernel_syms_cache_path(id, len, path, sizeof path) == 0 &&
	    stat(path, &st) == 0 && access(path, R_OK) == 0)
		return load_copy(path, &st, id, len, err);
	uint8_t running[64];
	size_t nr = len ? running_kernel_id(running) : 0;
	if (len && nr && !buildid_same(id, len, running, nr))
		return err_set(err, ERR_NOTFOUND,
			       "the kernel recorded is not the running one, "
			       "and perf's build-ID cache has no copy of its "
			       "symbols (%s)", path), NULL;
	return symtab_load_kallsyms(err);
}
