/*
 * package_archive.c - .deb/.ddeb/.udeb, .rpm and .pkg.tar.* read with
 * libarchive.
 *
 * .deb: an ar archive; control.tar.* gives the metadata (its ./control),
 * then data.tar.* is read as a nested archive straight from the outer
 * stream.  .rpm: libarchive's rpm filter yields the cpio payload; the
 * metadata comes from the RPM header (NAME, VERSION, RELEASE, ARCH tags).
 * .pkg.tar.*: a tar archive whose .PKGINFO gives the metadata.
 */
#include <archive.h>
#include <archive_entry.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package_archive.h"
#include "package_impl.h"

enum { ELF_MAX = 1u << 30 }; /* refuse members above 1 GiB */

typedef struct arc_reader {
	pkg_reader base;
	struct archive *outer;   /* the file (ar for .deb) */
	struct archive *inner;   /* .deb: data.tar inside; else == outer */
	uint8_t *buf;            /* the current ELF */
	size_t cap;
	bool pending;            /* inner has an entry read but not yet used */
	struct archive_entry *pending_entry;
} arc_reader;

/* libarchive's reason for A's last error, never NULL. */
static const char *arc_reason(struct archive *a)
{
	const char *why = a ? archive_error_string(a) : "unexpected end";
	return why ? why : "a damaged archive (libarchive gives no reason)";
}

static int arc_error(ehelf_err *err, const pkg_meta *m, struct archive *a,
		     const char *what)
{
	return err_set(err, ERR_FORMAT, "%s: %s: %s", m->source, what,
		       arc_reason(a));
}

static struct archive *new_reader(bool raw_formats)
{
	struct archive *a = archive_read_new();
	if (!a)
		return NULL;
	archive_read_support_filter_all(a);
	if (raw_formats)
		archive_read_support_format_all(a);
	return a;
}

/* Read callback of a nested archive: the outer's current member. */
static la_ssize_t nested_read(struct archive *a, void *arg, const void **buf)
{
	(void)a;
	struct archive *outer = arg;
	size_t size;
	la_int64_t off;
	int rc = archive_read_data_block(outer, buf, &size, &off);
	if (rc == ARCHIVE_EOF)
		return 0;
	if (rc != ARCHIVE_OK)
		return -1;
	return (la_ssize_t)size;
}

static struct archive *open_nested(struct archive *outer)
{
	struct archive *in = new_reader(true);
	if (in && archive_read_open(in, outer, NULL, nested_read, NULL) != ARCHIVE_OK) {
		archive_read_free(in);
		return NULL;
	}
	return in;
}

/* "Key: value" lines (dpkg control, .PKGINFO "key = value"). */
static void parse_fields(pkg_meta *m, char *text, char sep)
{
	/* strtok_r: packages are read by several threads at once */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, sep);
		if (!v || line[0] == ' ' || line[0] == '#')
			continue;
		*v++ = '\0';
		while (*v == ' ')
			v++;
		char *k = line;
		size_t kl = strlen(k);
		while (kl && k[kl - 1] == ' ')
			k[--kl] = '\0';
		if (!strcmp(k, "Package") || !strcmp(k, "pkgname"))
			pkg_set(m->name, sizeof m->name, v);
		else if (!strcmp(k, "Version") || !strcmp(k, "pkgver"))
			pkg_set(m->version, sizeof m->version, v);
		else if (!strcmp(k, "Architecture") || !strcmp(k, "arch"))
			pkg_set(m->arch, sizeof m->arch, v);
	}
}

/* The whole current member of A (at most 1 MiB), NUL-terminated. */
static char *slurp_member(struct archive *a)
{
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	for (;;) {
		if (n + 1 == cap) {
			if (cap >= (1 << 20))
				break;
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		la_ssize_t r = archive_read_data(a, s + n, cap - 1 - n);
		if (r < 0) {
			free(s);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	s[n] = '\0';
	return s;
}

/* .deb: read up to data.tar, parsing control.tar's ./control. */
static int open_deb(arc_reader *r, ehelf_err *err)
{
	pkg_meta *m = &r->base.meta;
	struct archive_entry *e;
	int rc;
	while ((rc = archive_read_next_header(r->outer, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (!strncmp(name, "control.tar", 11)) {
			struct archive *c = open_nested(r->outer);
			if (!c)
				return arc_error(err, m, r->outer, "control.tar");
			struct archive_entry *ce;
			while (archive_read_next_header(c, &ce) == ARCHIVE_OK) {
				char p[256];
				pkg_normalize_path(archive_entry_pathname(ce), p, sizeof p);
				if (strcmp(p, "/control") != 0)
					continue;
				char *text = slurp_member(c);
				if (text)
					parse_fields(m, text, ':');
				free(text);
				break;
			}
			archive_read_free(c);
		} else if (!strncmp(name, "data.tar", 8)) {
			r->inner = open_nested(r->outer);
			if (!r->inner)
				return arc_error(err, m, r->outer, "data.tar");
			if (!m->name[0])
				return err_set(err, ERR_FORMAT, "%s: no control file "
					       "before data.tar", m->source);
			return 0;
		}
	}
	return arc_error(err, m, rc == ARCHIVE_EOF ? NULL : r->outer,
			 "no data.tar member");
}

static uint32_t be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return ntohl(v);
}

/* RPM metadata: lead (96 bytes), signature header (padded to 8), header;
 * each header: magic 8e ad e8 01, 4 reserved, index count, data size,
 * index entries (tag, type, offset, count), data. */
static int rpm_meta(pkg_meta *m, ehelf_err *err)
{
	FILE *f = fopen(m->source, "rbe");
	if (!f)
		return err_set(err, ERR_IO, "%s: cannot open", m->source);
	static const uint8_t magic[] = { 0x8e, 0xad, 0xe8, 0x01 };
	uint8_t h[16];
	long off = 96;
	int rc = ERR_FORMAT;
	for (int which = 0; which < 2; which++) {
		if (fseek(f, off, SEEK_SET) || fread(h, 1, 16, f) != 16 ||
		    memcmp(h, magic, 4))
			goto out;
		uint32_t nidx = be32(h + 8), dsize = be32(h + 12);
		if (nidx > 100000 || dsize > (64u << 20))
			goto out;
		if (which == 0) { /* signature: skip, padded to 8 */
			off += 16 + (long)nidx * 16 + (long)dsize;
			off = (off + 7) & ~7L;
			continue;
		}
		uint8_t *idx = malloc((size_t)nidx * 16), *data = malloc(dsize + 1);
		if (!idx || !data || fread(idx, 16, nidx, f) != nidx ||
		    fread(data, 1, dsize, f) != dsize) {
			free(idx);
			free(data);
			goto out;
		}
		data[dsize] = '\0';
		char release[256] = "";
		for (uint32_t i = 0; i < nidx; i++) {
			uint32_t tag = be32(idx + 16 * i), type = be32(idx + 16 * i + 4);
			uint32_t o = be32(idx + 16 * i + 8);
			if (type != 6 || o >= dsize) /* RPM_STRING_TYPE */
				continue;
			const char *v = (const char *)data + o;
			if (tag == 1000)
				pkg_set(m->name, sizeof m->name, v);
			else if (tag == 1001)
				pkg_set(m->version, sizeof m->version, v);
			else if (tag == 1002)
				pkg_set(release, sizeof release, v);
			else if (tag == 1022)
				pkg_set(m->arch, sizeof m->arch, v);
		}
		if (release[0]) {
			char full[256];
			snprintf(full, sizeof full, "%s-%s", m->version, release);
			pkg_set(m->version, sizeof m->version, full);
		}
		free(idx);
		free(data);
		rc = m->name[0] ? 0 : ERR_FORMAT;
	}
out:
	fclose(f);
	if (rc < 0)
		err_set(err, rc, "%s: not a readable RPM header", m->source);
	return rc;
}

/* .pkg.tar.*: metadata from .PKGINFO (the first entries). */
static int open_arch(arc_reader *r, ehelf_err *err)
{
	pkg_meta *m = &r->base.meta;
	struct archive_entry *e;
	int rc;
	while ((rc = archive_read_next_header(r->inner, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (!strcmp(name, ".PKGINFO")) {
			char *text = slurp_member(r->inner);
			if (text)
				parse_fields(m, text, '=');
			free(text);
			continue;
		}
		if (name[0] == '.' && strchr(name, '/') == NULL)
			continue; /* .BUILDINFO, .MTREE, .INSTALL */
		r->pending = true; /* a file: keep it for pkg_next_elf */
		r->pending_entry = e;
		break;
	}
	if (rc != ARCHIVE_OK && rc != ARCHIVE_EOF)
		return arc_error(err, m, r->inner, "reading");
	if (!m->name[0])
		return err_set(err, ERR_FORMAT, "%s: no .PKGINFO", m->source);
	return 0;
}

/* The member of entry E, of SIZE bytes starting with the ELF magic
 * (read), too large to be read: reported.  1 or ERR_NOMEM. */
static int too_large(arc_reader *r, struct archive_entry *e, la_int64_t size,
		     pkg_member *mb, ehelf_err *err)
{
	snprintf(r->base.problem, sizeof r->base.problem, "an ELF file of "
		 "%lld bytes, over the limit of %u: not read", (long long)size,
		 (unsigned)ELF_MAX);
	mb->problem = r->base.problem;
	int rc = pkg_member_name(&r->base, 0, archive_entry_pathname(e),
				 &mb->path, err);
	return rc < 0 ? rc : 1;
}

static int arc_next(pkg_reader *base, pkg_member *mb, ehelf_err *err)
{
	arc_reader *r = (arc_reader *)base;
	struct archive_entry *e;
	for (;;) {
		mb->warning = NULL;
		if (r->pending) {
			e = r->pending_entry;
			r->pending = false;
		} else {
			int rc = archive_read_next_header(r->inner, &e);
			if (rc == ARCHIVE_EOF)
				return 0;
			if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
				return arc_error(err, &base->meta, r->inner, "reading");
			if (rc == ARCHIVE_WARN) {
				/* damage libarchive read past (bsdtar exits 1):
				 * reported with this member, whatever it is */
				snprintf(base->problem, sizeof base->problem,
					 "the archive is damaged before or at "
					 "this member: %s", arc_reason(r->inner));
				mb->warning = base->problem;
			}
		}
		const char *name = archive_entry_pathname(e);
		if (!name || !name[0])
			name = "(a member without a name)";
		const char *link = archive_entry_hardlink(e);
		la_int64_t size = archive_entry_size(e);
		if (link && size == 0) {
			/* a hard link to an earlier member: recorded as it is */
			int rc = pkg_member_name(base, 1, link, &mb->link, err);
			if (rc == 0)
				rc = pkg_member_name(base, 0, name, &mb->path, err);
			return rc < 0 ? rc : 1;
		}
		if (archive_entry_filetype(e) != AE_IFREG || size < 4) {
			if (!mb->warning)
				continue;
			/* not an ELF, but where the damage is: reported */
			int rc = pkg_member_name(base, 0, name, &mb->path, err);
			mb->problem = mb->warning;
			mb->warning = NULL;
			return rc < 0 ? rc : 1;
		}
		uint8_t magic[4];
		la_ssize_t got = archive_read_data(r->inner, magic, 4);
		if (got < 0)
			return arc_error(err, &base->meta, r->inner, name);
		if (got != 4 || memcmp(magic, "\177ELF", 4) != 0) {
			if (!mb->warning)
				continue; /* not an ELF: skipped without reading it */
			int rc = pkg_member_name(base, 0, name, &mb->path, err);
			mb->problem = mb->warning;
			mb->warning = NULL;
			return rc < 0 ? rc : 1;
		}
		if (size > ELF_MAX)
			return too_large(r, e, size, mb, err);
		if ((size_t)size > r->cap) {
			uint8_t *b = realloc(r->buf, (size_t)size);
			if (!b)
				return err_set(err, ERR_NOMEM, "out of memory");
			r->buf = b;
			r->cap = (size_t)size;
		}
		memcpy(r->buf, magic, 4);
		size_t n = 4;
		while (n < (size_t)size) {
			got = archive_read_data(r->inner, r->buf + n, (size_t)size - n);
			if (got < 0)
				return arc_error(err, &base->meta, r->inner, name);
			if (got == 0)
				return err_set(err, ERR_FORMAT, "%s: %s: truncated",
					       base->meta.source, name);
			n += (size_t)got;
		}
		int rc = pkg_member_name(base, 0, name, &mb->path, err);
		if (rc < 0)
			return rc;
		mb->disk_path = NULL;
		mb->data = r->buf;
		mb->size = n;
		return 1;
	}
}

static void arc_close(pkg_reader *base)
{
	arc_reader *r = (arc_reader *)base;
	if (r->inner && r->inner != r->outer)
		archive_read_free(r->inner);
	if (r->outer)
		archive_read_free(r->outer);
	free(r->buf);
	free(r);
}

int pkg_open_archive(const pkg_job *job, pkg_reader **out, ehelf_err *err)
{
	arc_reader *r = calloc(1, sizeof *r);
	if (!r)
		return err_set(err, ERR_NOMEM, "out of memory");
	r->base.next = arc_next;
	r->base.close = arc_close;
	pkg_meta *m = &r->base.meta;
	m->format = job->format;
	pkg_set(m->source, sizeof m->source, job->path);
	int rc = 0;
	if (job->format == PKG_RPM)
		rc = rpm_meta(m, err);
	if (rc == 0) {
		r->outer = archive_read_new();
		if (!r->outer) {
			rc = err_set(err, ERR_NOMEM, "out of memory");
		} else {
			archive_read_support_filter_all(r->outer);
			if (job->format == PKG_DEB)
				archive_read_support_format_ar(r->outer);
			else
				archive_read_support_format_all(r->outer);
			if (archive_read_open_filename(r->outer, job->path, 1 << 16)
			    != ARCHIVE_OK)
				rc = arc_error(err, m, r->outer, "cannot open");
		}
	}
	if (rc == 0) {
		if (job->format == PKG_DEB) {
			rc = open_deb(r, err);
		} else {
			r->inner = r->outer;
			if (job->format == PKG_ARCH)
				rc = open_arch(r, err);
		}
	}
	if (rc < 0) {
		arc_close(&r->base);
		return rc;
	}
	*out = &r->base;
	return 0;
}
