/*
 * saved_table.c - a symbol table saved to a file and mapped back
 * (saved_table.h): the file is the table itself, so that loading it
 * costs one mmap instead of parsing again.
 */
#include "saved_table.h"
#include "symbol_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/atomic_file.h"

/*
 * The file: a header, then iv_start[niv], syms[nsyms], iv_sym[niv] and the
 * pool, each naturally aligned; native byte order (x86_64 only, as the
 * rest).  Mapped read-only as is; checked on load so that a damaged file
 * can give wrong names but never a read out of bounds.
 */
#define SAVED_MAGIC "ehelfsym"
/* The key names the source files only: bump the version whenever what a
 * table holds for the same files changes (symbol choice, sizes, PLT
 * entries, intervals), or old tables will be served. */
enum { SAVED_VERSION = 3 };
#define SAVED_LAZY_NAMES 1u	/* names printed as computed (sym_name) */

struct saved_header {
	char magic[8];
	uint32_t version, flags;
	uint64_t key[SYMTAB_KEY_WORDS];
	uint64_t nsyms, niv, pool_size;
};

/* The offsets of the parts in a file of H's counts; the file size, or 0
 * if the counts overflow. */
static uint64_t saved_layout(const struct saved_header *h, uint64_t *syms,
			     uint64_t *iv_sym, uint64_t *pool)
{
	if (h->nsyms > INT32_MAX || h->niv > (1ull << 32) ||
	    h->pool_size > UINT32_MAX)
		return 0;
	uint64_t off = sizeof *h + h->niv * sizeof(uint64_t);
	*syms = off;
	off += h->nsyms * sizeof(struct sym);
	*iv_sym = off;
	off += h->niv * sizeof(int32_t);
	*pool = off;
	return off + h->pool_size;
}

int symtab_save(const symtab *s, const uint64_t key[SYMTAB_KEY_WORDS],
		const char *path, ehelf_err *err)
{
	struct saved_header h = { .version = SAVED_VERSION,
				  .flags = s->names ? SAVED_LAZY_NAMES : 0,
				  .nsyms = s->nsyms,
				  .niv = s->niv, .pool_size = s->pool_size };
	memcpy(h.magic, SAVED_MAGIC, sizeof h.magic);
	memcpy(h.key, key, sizeof h.key);
	uint64_t at_syms, at_iv_sym, at_pool;
	uint64_t size = saved_layout(&h, &at_syms, &at_iv_sym, &at_pool);
	char *buf = size ? malloc(size) : NULL;
	if (!buf)
		return err_set(err, ERR_NOMEM, "%s: out of memory", path);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, s->iv_start, s->niv * sizeof *s->iv_start);
	memcpy(buf + at_syms, s->syms, s->nsyms * sizeof *s->syms);
	memcpy(buf + at_iv_sym, s->iv_sym, s->niv * sizeof *s->iv_sym);
	memcpy(buf + at_pool, s->pool, s->pool_size);
	int rc = atomic_write_cache(path, buf, size, 0600, err);
	free(buf);
	return rc;
}

symtab *symtab_load_saved(const char *path,
			  const uint64_t key[SYMTAB_KEY_WORDS], ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "%s: cannot open: %s", path, strerror(errno)),
		       NULL;
	struct stat st;
	struct saved_header h;
	if (fstat(fd, &st) < 0 || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    memcmp(h.magic, SAVED_MAGIC, sizeof h.magic) != 0 ||
	    h.version != SAVED_VERSION || (h.flags & ~SAVED_LAZY_NAMES) ||
	    memcmp(h.key, key, sizeof h.key) != 0) {
		close(fd);
		return err_set(err, ERR_NOTFOUND, "%s: not a saved table for "
			       "this source", path), NULL;
	}
	uint64_t at_syms, at_iv_sym, at_pool;
	uint64_t size = saved_layout(&h, &at_syms, &at_iv_sym, &at_pool);
	/* an empty table (an ELF file without symbols) has an empty pool */
	bool empty = h.nsyms == 0 && h.niv == 0;
	if (!size || (uint64_t)st.st_size != size || (h.pool_size == 0 && !empty)) {
		close(fd);
		return err_set(err, ERR_FORMAT, "%s: damaged (size)", path), NULL;
	}
	/* not populated: a profile's lookups touch a few of its pages */
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return err_set(err, ERR_IO, "%s: mmap: %s", path,
			       strerror(errno)), NULL;
	symtab *s = calloc(1, sizeof *s);
	if (!s) {
		munmap(map, size);
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	}
	char *base = map;
	*s = (symtab){
		.iv_start = (uint64_t *)(base + sizeof h),
		.syms = (struct sym *)(base + at_syms),
		.iv_sym = (int32_t *)(base + at_iv_sym),
		.pool = base + at_pool,
		.nsyms = h.nsyms, .niv = h.niv, .pool_size = h.pool_size,
		.map = map, .map_size = size,
	};
	if ((h.flags & SAVED_LAZY_NAMES) &&
	    !(s->names = calloc(h.nsyms + 1, sizeof *s->names))) {
		symtab_free(s);
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	}
	/* every name terminated (the pool ends with a NUL); indexes and
	 * offsets are checked at lookup (in_table) */
	if (!empty && (s->pool_size == 0 || s->pool[s->pool_size - 1] != '\0')) {
		symtab_free(s);
		return err_set(err, ERR_FORMAT, "%s: damaged (contents)", path),
		       NULL;
	}
	return s;
}
