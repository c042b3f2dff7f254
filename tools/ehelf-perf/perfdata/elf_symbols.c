/*
 * elf_symbols.c - an ELF file's symbol table as perf 6.1 makes it
 * (elf_symbols.h): which file holds the symbols (the file itself, its
 * .gnu_debuglink target, a debug file found by build-ID or path), perf's
 * passes over .symtab and .dynsym, the PLT entries; and such a table
 * saved beside a cache, keyed by the files it was made from.
 */
#include "elf_symbols.h"
#include "saved_table.h"
#include "symbol_tree.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../../common/buildid.h"
#include "../../../common/elf_file.h"

/* The first section called NAME (perf looks sections up by name): its
 * index and header, 0 if none. */
static size_t find_section(elf_file *f, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(f->elf, f->shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* The same when that section has type TYPE (a symbol table, not the
 * NOBITS placeholder a debug file keeps), else 0. */
static size_t section_index(elf_file *f, const char *name, uint32_t type,
			    GElf_Shdr *sh)
{
	size_t i = find_section(f, name, sh);
	return i != 0 && sh->sh_type == type ? i : 0;
}

/*
 * One of perf's dso__load_sym_internal() passes: the symbols of table
 * TAB (.symtab or .dynsym of SF, section header TSH) into the tree.
 * RT is the runtime file, whose section headers perf reads when SF's are
 * NOBITS (a debug file).  Returns the number added, or -1 where perf's
 * pass fails (a symbol in a section that does not exist).
 */
static long load_pass(struct builder *b, elf_file *sf, elf_file *rt,
		      size_t tab, const GElf_Shdr *tsh)
{
	Elf_Data *data = elf_getdata(elf_getscn(sf->elf, tab), NULL);
	if (!data || tsh->sh_entsize == 0)
		return -1;
	size_t count = tsh->sh_size / tsh->sh_entsize;
	long added = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		bool label = type == STT_NOTYPE;
		unsigned vis = GELF_ST_VISIBILITY(sym.st_other);
		if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF)
			continue;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_OBJECT)
			continue;
		if (label && (vis == STV_HIDDEN || vis == STV_INTERNAL))
			continue;
		if (sym.st_shndx == SHN_ABS)
			continue;
		Elf_Scn *scn = elf_getscn(sf->elf, sym.st_shndx);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		elf_file *names = sf;
		if (sh.sh_type == SHT_NOBITS) {
			scn = elf_getscn(rt->elf, sym.st_shndx);
			if (!scn || !gelf_getshdr(scn, &sh))
				return -1;
			names = rt;
		}
		if (label) {
			const char *sec = elf_strptr(names->elf,
						     names->shstrndx,
						     sh.sh_name);
			if (!sec || (!strstr(sec, "text") && !strstr(sec, "data")))
				continue;
		}
		const char *name = elf_strptr(sf->elf, tsh->sh_link,
					      sym.st_name);
		if (!name)
			continue;
		if (symtree_insert(b, sym.st_value, sym.st_size,
				   GELF_ST_BIND(sym.st_info), name, false) < 0)
			return -1;
		added++;
	}
	if (added > 0) {
		symtree_fixup_end(b);
		symtree_fixup_duplicate(b);
	}
	return added;
}

/* perf's dso__synthesize_plt_symbols(): one "NAME@plt" symbol per
 * .rela.plt (or .rel.plt) entry, .plt's entry size apart after a header
 * of one entry, named by the .dynsym symbol of the relocation. */
static void synthesize_plt(struct builder *b, elf_file *rt)
{
	GElf_Shdr dsh, rsh, psh;
	size_t dyn = section_index(rt, ".dynsym", SHT_DYNSYM, &dsh);
	if (dyn == 0)
		return;
	size_t rel = find_section(rt, ".rela.plt", &rsh);
	if (rel == 0)
		rel = find_section(rt, ".rel.plt", &rsh);
	if (rel == 0 || rsh.sh_link != dyn || rsh.sh_entsize == 0 ||
	    (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL))
		return;
	size_t plt = find_section(rt, ".plt", &psh);
	Elf_Data *rdata = elf_getdata(elf_getscn(rt->elf, rel), NULL);
	Elf_Data *syms = elf_getdata(elf_getscn(rt->elf, dyn), NULL);
	Elf_Scn *strs = elf_getscn(rt->elf, dsh.sh_link);
	Elf_Data *sdata = strs ? elf_getdata(strs, NULL) : NULL;
	if (plt == 0 || !rdata || !syms || !sdata || sdata->d_size == 0)
		return;

	uint64_t entry = psh.sh_entsize, at = psh.sh_addr + entry;
	size_t count = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < count; i++, at += entry) {
		uint64_t info;
		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rdata, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rdata, (int)i, &r))
				break;
			info = r.r_info;
		}
		GElf_Sym sym;
		const char *name = NULL;
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			name = elf_strptr(rt->elf, dsh.sh_link, sym.st_name);
		if (symtree_insert(b, at, entry, STB_GLOBAL, name ? name : "",
				   true) < 0)
			return;
	}
}

static bool regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_table(elf_file *f, const char *name, uint32_t type)
{
	GElf_Shdr sh;
	return section_index(f, name, type, &sh) != 0;
}

/* Open PATH into F if it is a symbol file for build-ID ID: a regular
 * ELF file with that build-ID and a .symtab. */
static bool open_debug(elf_file *f, const char *path, const uint8_t *id,
		       size_t idlen)
{
	if (!regular_file(path) || elf_file_open(f, path, NULL) != 0)
		return false;
	const uint8_t *have;
	int n = elf_file_build_id(f, &have);
	bool same = n > 0 && buildid_same(id, idlen, have, (size_t)n);
	if ((idlen > 0 && !same) || !has_table(f, ".symtab", SHT_SYMTAB)) {
		elf_file_close(f);
		return false;
	}
	return true;
}

/*
 * perf's dso__load() looks for the file with the symbol table in this
 * order, taking the first with a .symtab: the .gnu_debuglink targets, its
 * build-ID cache copy (the file itself), the cached debug file (the
 * build-ID one), /usr/lib/debug/PATH.debug, /usr/lib/debug/PATH, the
 * build-ID debug file, the file itself, DIR/.debug/BASE, and /usr/lib/debug
 * with /usr/lib/X mixed up as /lib/X.  F is the opened file; OUT gets the
 * symbol file when it is another one (returns true then).
 */
static bool find_debug(elf_file *f, const char *path, const uint8_t *id,
		       size_t idlen, bool own_symtab, elf_file *out)
{
	char buf[4096], dir[4096], hex[BUILDID_HEX_MAX + 1];
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof dir, ".");

	elf_section link;
	if (elf_file_section(f, ".gnu_debuglink", &link, NULL) == 0 &&
	    link.data && link.size > 0 && memchr(link.data, 0, link.size)) {
		const char *name = (const char *)link.data;
		const char *fmt[] = { "%s/%s", "%s/.debug/%s",
				      "/usr/lib/debug%s/%s" };
		for (int i = 0; i < 3; i++) {
			snprintf(buf, sizeof buf, fmt[i], dir, name);
			if (open_debug(out, buf, id, idlen))
				return true;
		}
	}
	if (own_symtab)
		return false;
	if (idlen > 0 && buildid_to_hex(id, idlen, hex, sizeof hex) > 0) {
		snprintf(buf, sizeof buf, "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 hex, hex + 2);
		if (open_debug(out, buf, id, idlen))
			return true;
	}
	snprintf(buf, sizeof buf, "/usr/lib/debug%s.debug", path);
	if (open_debug(out, buf, id, idlen))
		return true;
	snprintf(buf, sizeof buf, "/usr/lib/debug%s", path);
	if (open_debug(out, buf, id, idlen))
		return true;
	snprintf(buf, sizeof buf, "%s/.debug/%s", dir, slash ? slash + 1 : path);
	if (open_debug(out, buf, id, idlen))
		return true;
	if (strncmp(path, "/usr/lib/", 9) == 0) {
		snprintf(buf, sizeof buf, "/usr/lib/debug%s", path + 4);
		if (open_debug(out, buf, id, idlen))
			return true;
	}
	return false;
}

/* The files a table for PATH is made from: *RT the file itself, *DBG its
 * symbol file when another one (*OTHER set), with *ID the file's own
 * build-ID (*IDLEN bytes, 0 if none).  0, or an ERR_* with ERR set and
 * nothing left open. */
struct sources {
	elf_file rt, dbg;
	bool other;
	uint8_t id[BUILDID_MAX_BYTES];
	size_t idlen;
};

static int open_sources(struct sources *src, const char *path,
			const uint8_t *build_id, size_t build_id_len,
			ehelf_err *err)
{
	elf_file *rt = &src->rt;
	if (!path)
		return err_set(err, ERR_ARG, "symbols: no file");
	int rc = elf_file_open(rt, path, err);
	if (rc != 0)
		return rc;

	const uint8_t *own;
	int own_len = elf_file_build_id(rt, &own);
	if (build_id_len > BUILDID_MAX_BYTES)
		build_id_len = BUILDID_MAX_BYTES;
	if (build_id_len > 0 && (own_len <= 0 ||
	    !buildid_same(build_id, build_id_len, own, (size_t)own_len))) {
		char want[BUILDID_HEX_MAX + 1] = "?";
		buildid_to_hex(build_id, build_id_len, want, sizeof want);
		elf_file_close(rt);
		return err_set(err, ERR_NOTFOUND, "%s: build-ID is not the "
			       "recorded %s", path, want);
	}
	src->idlen = 0;
	if (own_len > 0 && own_len <= BUILDID_MAX_BYTES) {
		memcpy(src->id, own, (size_t)own_len);
		src->idlen = (size_t)own_len;
	}
	bool own_symtab = has_table(rt, ".symtab", SHT_SYMTAB);
	src->other = find_debug(rt, path, src->id, src->idlen, own_symtab,
				&src->dbg);
	return 0;
}

static void close_sources(struct sources *src)
{
	if (src->other)
		elf_file_close(&src->dbg);
	elf_file_close(&src->rt);
}

/* The table made from SRC's files. */
static symtab *build_table(struct sources *src, unsigned flags,
			   ehelf_err *err)
{
	elf_file *sf = src->other ? &src->dbg : &src->rt, *rt = &src->rt;
	struct builder b = { .root = -1, .aliases = flags & SYMTAB_ALIASES };
	GElf_Shdr sh;
	long total = 0, n = 0;
	size_t tab = section_index(sf, ".symtab", SHT_SYMTAB, &sh);
	if (tab != 0)
		total = n = load_pass(&b, sf, rt, tab, &sh);
	tab = section_index(sf, ".dynsym", SHT_DYNSYM, &sh);
	if (n >= 0 && tab != 0) {
		n = load_pass(&b, sf, rt, tab, &sh);
		total = n < 0 ? n : total + n;
	}
	/* PLT entries come from the runtime file: the file itself when it
	 * has a .dynsym, else (static) the symbol file */
	if (total > 0)
		synthesize_plt(&b, has_table(rt, ".dynsym", SHT_DYNSYM) ? rt
									: sf);
	return symtree_finish(&b, err);
}

symtab *symtab_load_elf_flags(const char *path, const uint8_t *build_id,
			      size_t build_id_len, unsigned flags,
			      ehelf_err *err)
{
	struct sources src;
	if (open_sources(&src, path, build_id, build_id_len, err) != 0)
		return NULL;
	symtab *s = build_table(&src, flags, err);
	close_sources(&src);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

/* What a saved table for SRC is checked against: the files it was made
 * from, by device, inode, size and modification time (a rebuilt file or
 * a debug file installed since gives another key). */
static void sources_key(const struct sources *src,
			uint64_t key[SYMTAB_KEY_WORDS])
{
	struct stat a, d;
	memset(&d, 0, sizeof d);
	if (fstat(src->rt.fd, &a) != 0)
		memset(&a, 0, sizeof a);
	if (src->other && fstat(src->dbg.fd, &d) != 0)
		memset(&d, 0, sizeof d);
	uint64_t v[] = {
		(uint64_t)a.st_dev, (uint64_t)a.st_ino, (uint64_t)a.st_size,
		(uint64_t)a.st_mtim.tv_sec, (uint64_t)a.st_mtim.tv_nsec,
		src->other, (uint64_t)d.st_dev, (uint64_t)d.st_ino,
		(uint64_t)d.st_size, (uint64_t)d.st_mtim.tv_sec,
		(uint64_t)d.st_mtim.tv_nsec,
	};
	/* the runtime file's identity as is, the rest mixed in (splitmix64) */
	uint64_t h = 0;
	for (size_t i = 5; i < sizeof v / sizeof *v; i++) {
		h += v[i] + 0x9e3779b97f4a7c15ull;
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
		h ^= h >> 31;
	}
	key[0] = v[0] ^ (v[1] << 20) ^ (v[1] >> 44);
	key[1] = v[2];
	key[2] = v[3] * 1000000000u + v[4];
	key[3] = h;
}

symtab *symtab_load_elf_saved(const char *path, const uint8_t *build_id,
			      size_t build_id_len, const char *dir,
			      ehelf_err *err)
{
	struct sources src;
	if (open_sources(&src, path, build_id, build_id_len, err) != 0)
		return NULL;
	char saved[4096], hex[BUILDID_HEX_MAX + 1];
	bool can_save = dir && src.idlen > 0 &&
			buildid_to_hex(src.id, src.idlen, hex, sizeof hex) > 0 &&
			snprintf(saved, sizeof saved, "%s/%s.tab", dir, hex) <
				(int)sizeof saved;
	uint64_t key[SYMTAB_KEY_WORDS];
	sources_key(&src, key);
	ehelf_err ignored;
	symtab *s = can_save ? symtab_load_saved(saved, key, &ignored) : NULL;
	if (!s) {
		s = build_table(&src, 0, err);
		if (s && can_save)
			symtab_save(s, key, saved, &ignored); /* only a cache */
	}
	close_sources(&src);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

symtab *symtab_load_elf(const char *path, const uint8_t *build_id,
			size_t build_id_len, ehelf_err *err)
{
	return symtab_load_elf_flags(path, build_id, build_id_len, 0, err);
}
