/*
 * space.c - address spaces: modules from dl_iterate_phdr, /proc/PID/maps or
 * the caller; each resolved to its eh_elf by build-ID through the
 * resolution chain (resolve.h: $EHELF_PATH, /usr/lib/ehelf, the cache of
 * fetched eh_elfs), or attached later (module_attach, for
 * ehelf_space_fetch).  eh_elfs are loaded once per
 * process: a global cache shares them between spaces, refcounted, and
 * keeps up to IDLE_MAX of those no space uses any more, so that a tool
 * making and dropping spaces (one per profiled process, say) does not
 * load the same eh_elfs again and again.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../common/elf_file.h"
#include "../common/err.h"
#include "fallback_dwarf.h"
#include "object.h"
#include "resolve.h"
#include "space.h"
#include "step_cache.h"

/* ---- the process-wide cache of eh_elfs ------------------------------------ */

typedef struct cached_object {
	char hex[BUILDID_HEX_MAX + 1];
	ehelf_object *obj;
	unsigned refs;		/* spaces' modules using it */
	uint64_t idle_since;	/* refs == 0: when it fell idle (a tick) */
	struct cached_object *next;
} cached_object;

enum { IDLE_MAX = 64 };	/* unused eh_elfs kept loaded, at most */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_object *cache;	/* under cache_lock, as the three below */
static size_t cache_idle;	/* entries with refs == 0 */
static uint64_t cache_tick;

const ehelf_object *module_object(const module *m)
{
	/* one load: ehelf_space_fetch may publish it meanwhile */
	cached_object *c = atomic_load_explicit(&m->eh, memory_order_acquire);
	return c ? c->obj : NULL;
}

/* The eh_elf for HEX through the resolution chain (resolve.h), shared;
 * NULL if none. */
static cached_object *cache_get(const char *hex)
{
	pthread_mutex_lock(&cache_lock);
	for (cached_object *c = cache; c; c = c->next)
		if (!strcmp(c->hex, hex)) {
			if (c->refs++ == 0)
				cache_idle--;
			pthread_mutex_unlock(&cache_lock);
			return c;
		}
	ehelf_object *obj = resolve_open(hex, NULL, NULL, NULL, NULL);
	cached_object *c = NULL;
	if (obj && (c = calloc(1, sizeof *c)) != NULL) {
		snprintf(c->hex, sizeof c->hex, "%s", hex);
		c->obj = obj;
		c->refs = 1;
		c->next = cache;
		cache = c;
	} else if (obj) {
		ehelf_object_close(obj);
	}
	pthread_mutex_unlock(&cache_lock);
	return c;
}

/* Releases C; past IDLE_MAX idle entries, the one idle the longest is
 * closed. */
static void cache_put(cached_object *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cache_lock);
	if (--c->refs == 0) {
		c->idle_since = ++cache_tick;
		cache_idle++;
	}
	if (cache_idle > IDLE_MAX) {
		cached_object **oldest = NULL;
		for (cached_object **p = &cache; *p; p = &(*p)->next)
			if ((*p)->refs == 0 &&
			    (!oldest || (*p)->idle_since < (*oldest)->idle_since))
				oldest = p;
		cached_object *victim = *oldest;
		*oldest = victim->next;
		cache_idle--;
		ehelf_object_close(victim->obj);
		free(victim);
	}
	pthread_mutex_unlock(&cache_lock);
}

int module_attach(module *m)
{
	char hex[BUILDID_HEX_MAX + 1];
	if (atomic_load(&m->eh) || !m->build_id_len ||
	    buildid_to_hex(m->build_id, m->build_id_len, hex, sizeof hex) < 0)
		return 0;
	cached_object *c = cache_get(hex), *none = NULL;
	if (!c)
		return 0;
	/* published whole: the release pairs with module_object's acquire */
	if (atomic_compare_exchange_strong_explicit(&m->eh, &none, c,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return 1;
	cache_put(c); /* another call attached it first */
	return 0;
}

/* ---- spaces --------------------------------------------------------------- */

/* The step cache lives in a mapping of its own (with the space: see
 * space_cache()): its pages are zero until
 * touched (a space that unwinds little costs little), and clearing it
 * drops them (MADV_DONTNEED) instead of writing them all; a thread
 * unwinding meanwhile reads either an entry or zeros, both safe (an
 * entry is checked against its key, and an all-zero one never matches). */
/* what ehelf.h says of its size */
_Static_assert(STEP_CACHE_SETS == 8192 && STEP_CACHE_WAYS == 4 &&
	       sizeof(step_cache_entry) == 16 &&
	       STEP_CACHE_SIZE * sizeof(step_cache_entry) == 512 * 1024 &&
	       STEP_CACHE_MAP_BYTES == 768 * 1024,
	       "ehelf.h documents the step cache's size: update it");

_Static_assert(sizeof(ehelf_space) <= SPACE_CACHE_OFFSET,
	       "a space fits in the page before its step cache");

/* The space holds the heap pointers of its modules: under LeakSanitizer,
 * which does not look into mappings, its page is a root. */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define LSAN_ROOT(s) __lsan_register_root_region((s), sizeof *(s))
#define LSAN_UNROOT(s) __lsan_unregister_root_region((s), sizeof *(s))
#else
#define LSAN_ROOT(s) ((void)(s))
#define LSAN_UNROOT(s) ((void)(s))
#endif

static void step_cache_clear(step_cache_entry *c)
{
	size_t size = STEP_CACHE_MAP_BYTES;
	if (madvise(c, size, MADV_DONTNEED) != 0)
		memset(c, 0, size);
}

void space_cache_populate(ehelf_space *s)
{
	/* a write to each page (an atomic or of 0: the word is unchanged,
	 * whoever else reads or fills it), so that each is faulted in once,
	 * here, rather than twice (the zero page, then a copy) while
	 * unwinding */
	step_cache_entry *c = space_cache(s);
	for (size_t i = 0; i < STEP_CACHE_MAP_BYTES / sizeof *c; i += 4096 / sizeof *c)
		__atomic_fetch_or(&c[i].key, 0, __ATOMIC_RELAXED);
}

ehelf_space *ehelf_space_new(void)
{
	/* the space, then its cache (space_cache()), zero until touched */
	void *m = mmap(NULL, SPACE_CACHE_OFFSET + STEP_CACHE_MAP_BYTES,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ehelf_space *s = m == MAP_FAILED ? NULL : m;
	if (s) {
		s->cache = space_cache(s);
		LSAN_ROOT(s);
	} else
		ehelf_set_error("out of memory");
	return s;
}

static void module_free(module *m)
{
	cache_put(m->eh);
	if (m->dw)
		dwarf_module_close(m->dw);
	if (m->map)
		munmap(m->map, m->map_size);
	pthread_mutex_destroy(&m->dw_lock);
	free(m->path);
	free(m);
}

void ehelf_space_free(ehelf_space *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		module_free(s->mods[i]);
	free(s->mods);
	free(s->starts);
	LSAN_UNROOT(s);
	munmap(s, SPACE_CACHE_OFFSET + STEP_CACHE_MAP_BYTES);
}

/* Map the file of M read-only and locate its tables there (or in its
 * in-memory image); under M's lock. */
static void cfi_from_file(module *m)
{
	m->dw_useful = true;
	if (m->image) {
		if (cfi_tables_from_file(&m->cfi, m->image, m->image_size))
			m->dw_useful = cfi_file_has_section(m->image, m->image_size,
							    ".debug_frame");
		return;
	}
	int fd = m->path ? open(m->path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			if (cfi_tables_from_file(&m->cfi, p, (size_t)st.st_size)) {
				m->dw_useful = cfi_file_has_section(
					p, (size_t)st.st_size, ".debug_frame");
				m->map = p;
				m->map_size = (size_t)st.st_size;
			} else {
				munmap(p, (size_t)st.st_size);
			}
		}
	}
	close(fd);
}

const cfi_tables *module_cfi(const module *cm, bool may_map)
{
	module *m = (module *)cm; /* the tables are filled once, lazily */
	if (!atomic_load_explicit(&m->cfi_looked, memory_order_acquire)) {
		if (!may_map)
			return NULL;
		pthread_mutex_lock(&m->dw_lock);
		if (!atomic_load_explicit(&m->cfi_looked, memory_order_relaxed)) {
			cfi_from_file(m);
			atomic_store_explicit(&m->cfi_looked, true,
					      memory_order_release);
		}
		pthread_mutex_unlock(&m->dw_lock);
	}
	return m->cfi.ok ? &m->cfi : NULL;
}

int module_fde_info(const module *m, uint64_t pc, fde_info *out)
{
	const cfi_tables *t = module_cfi(m, false);
	return t ? cfi_tables_proc_info(t, pc, out) : EHELF_E_NOT_COVERED;
}

const module *space_find(const ehelf_space *s, uint64_t pc)
{
	if (!s->n || pc < s->starts[0])
		return NULL;
	/* the last start <= pc: a branchless binary search (conditional
	 * moves, no mispredictions) */
	const uint64_t *base = s->starts;
	size_t n = s->n;
	while (n > 1) {
		size_t half = n / 2;
		base = base[half] <= pc ? base + half : base;
		n -= half;
	}
	const module *m = s->mods[base - s->starts];
	return pc < m->end ? m : NULL;
}

int ehelf_space_modules(const ehelf_space *s, int *with_ehelf)
{
	int n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->mods[i]->eh != NULL;
	if (with_ehelf)
		*with_ehelf = n;
	return (int)s->n;
}

static int err_nomem(void)
{
	ehelf_set_error("out of memory");
	return ERR_NOMEM;
}

/* Whether M's range meets that of a module of S. */
static bool overlaps_module(const ehelf_space *s, const module *m)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->mods[i]->start < m->end && m->start < s->mods[i]->end)
			return true;
	return false;
}

static int insert(ehelf_space *s, module *m)
{
	/* the step cache holds only pcs that a module of S covered when it
	 * was filled, which a module meeting none of theirs changes for
	 * none of them (space_find): it is cleared only for a module that
	 * meets another (a file mapped over another's place) */
	if (atomic_load_explicit(&s->cache_used, memory_order_relaxed) &&
	    overlaps_module(s, m) && atomic_exchange(&s->cache_used, false))
		step_cache_clear(s->cache);
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		module **v = realloc(s->mods, cap * sizeof *v);
		if (!v)
			return err_nomem();
		s->mods = v;
		uint64_t *st = realloc(s->starts, cap * sizeof *st);
		if (!st)
			return err_nomem();
		s->starts = st;
		s->cap = cap;
	}
	size_t i = s->n;
	while (i > 0 && s->mods[i - 1]->start > m->start) {
		s->mods[i] = s->mods[i - 1];
		s->starts[i] = s->starts[i - 1];
		i--;
	}
	s->mods[i] = m;
	s->starts[i] = m->start;
	s->n++;
	return 0;
}

/* A module from its description; IMAGE is an in-memory ELF (or NULL). */
static int add(ehelf_space *s, const ehelf_module_desc *d, const void *image,
	       size_t image_size, const cfi_tables *cfi)
{
	if (d->start >= d->end) {
		ehelf_set_error("%s: module range %#llx..%#llx is empty",
				d->path ? d->path : "module without path",
				(unsigned long long)d->start,
				(unsigned long long)d->end);
		return ERR_ARG;
	}
	module *m = calloc(1, sizeof *m);
	if (!m)
		return err_nomem();
	pthread_mutex_init(&m->dw_lock, NULL);
	m->start = d->start;
	m->end = d->end;
	m->bias = d->bias;
	m->image = image;
	m->image_size = image_size;
	if (cfi) { /* this process's: located already */
		m->cfi = *cfi;
		atomic_store_explicit(&m->cfi_looked, true, memory_order_relaxed);
	}
	if (d->path && !(m->path = strdup(d->path))) {
		module_free(m);
		return err_nomem();
	}
	if (d->build_id && d->build_id_len && d->build_id_len <= sizeof m->build_id) {
		memcpy(m->build_id, d->build_id, d->build_id_len);
		m->build_id_len = d->build_id_len;
	} else if (d->path || image) {
		elf_file f;
		ehelf_err err;
		int rc = d->path ? elf_file_open(&f, d->path, &err)
				 : elf_file_open_mem(&f, image, image_size, "[vdso]", &err);
		const uint8_t *id;
		int n;
		if (rc == 0 && (n = elf_file_build_id(&f, &id)) > 0) {
			memcpy(m->build_id, id, (size_t)n);
			m->build_id_len = (size_t)n;
		}
		if (rc == 0)
			elf_file_close(&f);
	}
	if (m->build_id_len) {
		char hex[BUILDID_HEX_MAX + 1];
		buildid_to_hex(m->build_id, m->build_id_len, hex, sizeof hex);
		m->eh = cache_get(hex);
	}
	int rc = insert(s, m);
	if (rc < 0)
		module_free(m);
	return rc;
}

int ehelf_space_add_module(ehelf_space *s, const ehelf_module_desc *d)
{
	if (!s || !d) {
		ehelf_set_error("ehelf_space_add_module: %s is NULL",
				!s ? "the space" : "the module");
		return ERR_ARG;
	}
	return add(s, d, NULL, 0, NULL);
}

/* The first failure of a load, kept while the others go on. */
typedef struct load {
	ehelf_space *s;
	int first;		/* 0, or the first failure's ERR_* code */
	char msg[512];		/* its message */
} load;

static void load_failed(load *l, int rc)
{
	if (rc < 0 && !l->first) {
		l->first = rc;
		snprintf(l->msg, sizeof l->msg, "%s", ehelf_last_error());
	}
}

static int load_end(const load *l)
{
	if (l->first)
		ehelf_set_error("%s", l->msg);
	return l->first;
}

static int null_space(const char *call)
{
	ehelf_set_error("%s: the space is NULL", call);
	return ERR_ARG;
}

/* ---- this process --------------------------------------------------------- */

/* The GNU build-ID in the PT_NOTE segment PH of an object loaded at BASE
 * (copied to OUT, length returned, 0 if none); *EHELF set when the segment
 * holds the ehelf note, i.e. the object is itself an eh_elf. */
static size_t scan_notes(const ElfW(Phdr) *ph, ElfW(Addr) base, uint8_t *out,
			 bool *ehelf)
{
	const uint8_t *p = (const uint8_t *)(base + ph->p_vaddr);
	const uint8_t *end = p + ph->p_memsz;
	size_t len = 0;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const uint8_t *name = p + sizeof *n;
		const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
		if (desc + n->n_descsz > end)
			break;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(name, "GNU", 4) && n->n_descsz <= 64) {
			memcpy(out, desc, n->n_descsz);
			len = n->n_descsz;
		}
		if (n->n_type == EHELF_NOTE_SOURCE &&
		    n->n_namesz == sizeof EHELF_NOTE_NAME &&
		    !memcmp(name, EHELF_NOTE_NAME, sizeof EHELF_NOTE_NAME))
			*ehelf = true;
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
	return len;
}

static int self_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	load *l = arg;
	uint8_t id[64];
	size_t idlen = 0;
	bool ehelf = false;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE) {
			size_t n = scan_notes(&info->dlpi_phdr[i], info->dlpi_addr,
					      id, &ehelf);
			idlen = idlen ? idlen : n;
		}
	if (ehelf)
		return 0; /* the eh_elfs loaded for the others: nothing to unwind */
	bool vdso = info->dlpi_name && strstr(info->dlpi_name, "linux-vdso");
	/* the CFI tables of its loaded segments, located now, outside any
	 * unwind: modules without an eh_elf are stepped with them */
	cfi_tables cfi;
	cfi_tables_from_memory(&cfi, info->dlpi_phdr, info->dlpi_phnum,
			       info->dlpi_addr);
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
							    : "/proc/self/exe";
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    !ph->p_memsz)
			continue;
		ehelf_module_desc d = {
			.start = info->dlpi_addr + ph->p_vaddr,
			.end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
			.bias = info->dlpi_addr,
			.path = vdso ? NULL : path,
			.build_id = idlen ? id : NULL, .build_id_len = idlen,
		};
		const void *image = NULL;
		size_t image_size = 0;
		if (vdso) { /* the vDSO is a whole ELF image in memory */
			const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)info->dlpi_addr;
			image = eh;
			image_size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
		}
		load_failed(l, add(l->s, &d, image, image_size, &cfi));
	}
	return 0;
}

int ehelf_space_load_self(ehelf_space *s)
{
	if (!s)
		return null_space("ehelf_space_load_self");
	load l = { .s = s };
	dl_iterate_phdr(self_module, &l);
	/* this process's space: its unwinds are local, often a sampling
	 * profiler's in a signal handler (space_cache_populate()) */
	space_cache_populate(s);
	return load_end(&l);
}

/* ---- another process ------------------------------------------------------ */

/* Bias of the executable mapping of PATH at file offset OFF starting at
 * START (elf_file_load_bias).  1 for files that are not ELF, and for
 * eh_elfs (the target may be unwinding with ehelf itself: they are not
 * modules to unwind); ERR_IO / ERR_NOTFOUND (message set) for a file
 * that cannot be opened or read. */
static int mapping_bias(const char *path, uint64_t start, uint64_t off,
			uint64_t *bias)
{
	elf_file f;
	ehelf_err err;
	int orc = elf_file_open(&f, path, &err);
	if (orc == ERR_IO || orc == ERR_NOTFOUND || orc == ERR_NOMEM) {
		ehelf_set_error("%s", err.msg);
		return orc;
	}
	if (orc < 0)
		return 1;
	elf_section note;
	int rc = elf_file_section(&f, ".note.ehelf", &note, &err) < 0 &&
		 elf_file_load_bias(&f, start, off, true, false, bias) == 0 ? 0 : 1;
	elf_file_close(&f);
	return rc;
}

int ehelf_space_load_pid(ehelf_space *s, int pid)
{
	if (!s)
		return null_space("ehelf_space_load_pid");
	if (pid <= 0) {
		ehelf_set_error("ehelf_space_load_pid: %d is not a process ID",
				pid);
		return ERR_ARG;
	}
	char maps[64];
	snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
	FILE *in = fopen(maps, "re");
	if (!in) {
		int e = errno;
		if (e == ENOENT || e == ESRCH) {
			ehelf_set_error("no process %d (%s: %s)", pid, maps,
					strerror(e));
			return ERR_NOTFOUND;
		}
		ehelf_set_error("%s: %s%s", maps, strerror(e),
				e == EACCES || e == EPERM
					? " (another user's process: ptrace "
					  "access is needed)" : "");
		return err_from_errno(e);
	}
	load l = { .s = s };
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, in) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int pathpos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &off, &pathpos) < 4 || perms[2] != 'x' ||
		    !pathpos || line[pathpos] != '/')
			continue;
		char *path = line + pathpos;
		path[strcspn(path, "\n")] = '\0';
		if (strstr(path, " (deleted)"))
			continue;
		uint64_t bias;
		int rc = mapping_bias(path, start, off, &bias);
		if (rc != 0) {
			load_failed(&l, rc);
			continue;
		}
		ehelf_module_desc d = { .start = start, .end = end, .bias = bias,
					.path = path };
		load_failed(&l, add(s, &d, NULL, 0, NULL));
	}
	if (ferror(in) && !l.first) {
		ehelf_set_error("%s: %s", maps, strerror(errno));
		l.first = ERR_IO;
		snprintf(l.msg, sizeof l.msg, "%s", ehelf_last_error());
	}
	free(line);
	fclose(in);
	return load_end(&l);
}
