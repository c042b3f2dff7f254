/* libunwind_remote.c - see libunwind_remote.h. */
#define _GNU_SOURCE
#include "libunwind_remote.h"

#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

/* libunwind's table search: exported, not declared in its headers */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

struct lu_remote {
	unw_addr_space_t as;
};

typedef struct lu_arg {
	const sample_mem *mem;
	const ehelf_regs *regs;
	const proc *pr;
} lu_arg;

/* .eh_frame_hdr of a dso: link-time addresses of the header and table */
typedef struct hdr_info {
	const dso *d;
	bool ok;
	uint64_t hdr, table, count;
} hdr_info;

static hdr_info hdrs[4096];
static size_t nhdrs;

static const hdr_info *eh_frame_hdr(dso *d)
{
	for (size_t i = 0; i < nhdrs; i++)
		if (hdrs[i].d == d)
			return &hdrs[i];
	if (nhdrs == sizeof hdrs / sizeof hdrs[0])
		return NULL;
	hdr_info *h = &hdrs[nhdrs++];
	h->d = d;
	elf_section s;
	ehelf_err err;
	/* version 1, fde_count udata4, table datarel|sdata4: what every
	 * linker writes */
	if (d->usable && elf_file_section(&d->elf, ".eh_frame_hdr", &s, &err) == 0 &&
	    s.size >= 12 && s.data && s.data[0] == 1 && s.data[2] == 0x03 &&
	    s.data[3] == 0x3b) {
		uint32_t count;
		memcpy(&count, s.data + 8, 4);
		h->hdr = s.addr;
		h->table = s.addr + 12;
		h->count = count;
		h->ok = true;
	}
	return h;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *argp)
{
	lu_arg *a = argp;
	const pmap *m = proc_find(a->pr, ip);
	if (!m || !m->d || !m->has_bias)
		return -UNW_ENOINFO;
	const hdr_info *h = eh_frame_hdr(m->d);
	if (!h || !h->ok)
		return -UNW_ENOINFO;
	unw_dyn_info_t di;
	memset(&di, 0, sizeof di);
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	di.u.rti.segbase = h->hdr + m->bias;
	di.u.rti.table_data = h->table + m->bias;
	di.u.rti.table_len = h->count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi,
						  need_unwind_info, argp);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg; /* as perf: nothing to release */
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as;
	(void)dil;
	(void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
		      int write, void *argp)
{
	(void)as;
	lu_arg *a = argp;
	uint64_t v;
	if (write || sample_read((void *)a->mem, addr, &v) != 0)
		return -UNW_EINVAL;
	*valp = v;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp,
		      int write, void *argp)
{
	(void)as;
	lu_arg *a = argp;
	if (write || reg < 0 || reg >= EHELF_NREGS) /* DWARF numbering too */
		return -UNW_EBADREG;
	*valp = a->regs->r[reg];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *v,
			int write, void *arg)
{
	(void)as;
	(void)reg;
	(void)v;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

lu_remote *lu_remote_new(void)
{
	lu_remote *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		return NULL;
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	return u;
}

void lu_remote_free(lu_remote *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	free(u);
}

int lu_remote_unwind(lu_remote *u, const proc *pr, const ehelf_regs *regs,
		     const sample_mem *mem, uint64_t *pcs, int max)
{
	if (!u || max <= 0)
		return 0;
	lu_arg a = { mem, regs, pr };
	unw_cursor_t c;
	int n = 0;
	if (unw_init_remote(&c, u->as, &a) != 0)
		return 0;
	do {
		unw_word_t ip;
		unw_get_reg(&c, UNW_REG_IP, &ip);
		pcs[n++] = ip;
	} while (n < max && unw_step(&c) > 0);
	return n;
}
