/* batch.c - see batch.h. */
#include "batch.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/buildid.h"
#include "../../common/eh_elf_check.h"
#include "../../common/elf_file.h"
#include "../../common/sign.h"
#include "../codegen/compile.h"
#include "db.h"
#include "db_conflict.h"
#include "progress.h"
#include "../../store/writer.h"

/* ---- build-IDs being handled in this run --------------------------------- */

typedef struct claim {
	char hex[BUILDID_HEX_MAX + 1];
	bool done;           /* false: a worker is compiling it */
	char status[16];     /* built, present, no-cfi, failed, conflict */
	cfi_id cfi;          /* built, present: the unwind tables it was
			      * built from (db_conflict.h); sha "" if
			      * unknown (recorded by an older run) */
	char error[256];
	uint64_t ehelf_bytes;
	struct claim *next;
} claim;

enum { CLAIM_BUCKETS = 4096 };

typedef struct shared {
	const batch_opts *o;
	const pkg_jobs *jobs;
	size_t next_job;
	store st;
	batch_db *db;
	pthread_mutex_t lock;     /* everything below, and db */
	pthread_cond_t claim_done;
	claim *claims[CLAIM_BUCKETS];
	batch_summary sum;
	progress_counts pc;
	progress prog;
	int fatal;                /* the first store/db error stops the run */
	ehelf_err fatal_err;
} shared;

static size_t claim_hash(const char *hex)
{
	uint64_t h = 1469598103934665603ull;
	while (*hex)
		h = (h ^ (uint8_t)*hex++) * 1099511628211ull;
	return (size_t)(h % CLAIM_BUCKETS);
}

static claim *claim_find(shared *s, const char *hex)
{
	for (claim *c = s->claims[claim_hash(hex)]; c; c = c->next)
		if (!strcmp(c->hex, hex))
			return c;
	return NULL;
}

static claim *claim_add(shared *s, const char *hex)
{
	claim *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	snprintf(c->hex, sizeof c->hex, "%s", hex);
	size_t b = claim_hash(hex);
	c->next = s->claims[b];
	s->claims[b] = c;
	return c;
}

/* ---- one ELF --------------------------------------------------------------- */

typedef struct elf_job {
	int64_t package_id;
	const pkg_meta *meta;
	const pkg_member *m;
} elf_job;

/* Size of section NAME (0 if absent or NOBITS); a section that cannot be
 * read (a truncated file) sets *BAD and the message in ERR. */
static uint64_t section_bytes(elf_file *f, const char *name, bool *bad,
			      ehelf_err *err)
{
	elf_section s;
	int rc = elf_file_section(f, name, &s, err);
	if (rc == ERR_NOTFOUND)
		return 0;
	if (rc < 0) {
		*bad = true;
		return 0;
	}
	return s.nobits ? 0 : s.size;
}

/* Build-ID of F as hex; *KIND "gnu" or "sha256".  Returns 0 or -1. */
static int build_id_of(elf_file *f, char *hex, size_t n, const char **kind,
		       uint8_t *raw, size_t *rawlen)
{
	const uint8_t *id;
	int len = elf_file_build_id(f, &id);
	if (len > 0) {
		*kind = "gnu";
		memcpy(raw, id, (size_t)len);
		*rawlen = (size_t)len;
		return buildid_to_hex(id, (size_t)len, hex, n) < 0 ? -1 : 0;
	}
	size_t size;
	const char *image = elf_rawfile(f->elf, &size);
	uint8_t digest[32];
	unsigned dlen = 0;
	if (!image || !EVP_Digest(image, size, digest, &dlen, EVP_sha256(), NULL))
		return -1;
	*kind = "sha256";
	memcpy(raw, digest, 20);
	*rawlen = 20;
	return buildid_to_hex(digest, 20, hex, n) < 0 ? -1 : 0;
}

/* The first store or database error stops the run (under the lock). */
static void set_fatal(shared *s, int rc, const ehelf_err *err)
{
	if (rc < 0 && !s->fatal) {
		s->fatal = rc;
		s->fatal_err = *err;
	}
}

/* End the transaction whose writes gave RC: committed if they all
 * succeeded, else rolled back.  Returns RC, or the commit's failure. */
static int end_transaction(shared *s, int rc, ehelf_err *err)
{
	if (rc == 0)
		rc = db_commit(s->db, err);
	if (rc < 0)
		db_rollback(s->db);
	return rc;
}

/* ROW, and the eh_elf B built for it if not NULL, in one transaction;
 * with CFI (not NULL), HEX's digest too. */
static void record(shared *s, const db_file *row, const char *hex,
		   const db_ehelf *b, const cfi_id *cfi)
{
	ehelf_err err = { 0 };
	int rc = db_begin(s->db, &err);
	if (rc == 0 && b)
		rc = db_put_ehelf(s->db, hex, b, &err);
	if (rc == 0 && cfi && cfi->sha[0])
		rc = db_cfi_put(s->db, hex, cfi, &err);
	if (rc == 0)
		rc = db_put_file(s->db, row, &err);
	set_fatal(s, end_transaction(s, rc, &err), &err);
}

/* Record that KEY signed HEX's eh_elf (under the lock). */
static void record_signed(shared *s, const char *hex, const char *key)
{
	ehelf_err err = { 0 };
	int rc = db_begin(s->db, &err);
	if (rc == 0)
		rc = db_set_signed(s->db, hex, key, &err);
	set_fatal(s, end_transaction(s, rc, &err), &err);
}

/* 0 when IMAGE (LEN bytes) passes the check the loader runs on every
 * eh_elf it opens (eh_elf_check) and records the build-ID RAW, else
 * ERR_FORMAT with the reason. */
static int loader_accepts(const uint8_t *image, size_t len, const uint8_t *raw,
			  size_t rawlen, ehelf_err *err)
{
	eh_elf_layout l;
	char why[256];
	if (eh_elf_check(image, len, &l, why, sizeof why) < 0)
		return err_set(err, ERR_FORMAT, "the loader refuses the eh_elf "
			       "compiled from it: %s", why);
	bool same = l.build_id_len == rawlen && !memcmp(l.build_id, raw, rawlen);
	return same ? 0 : err_set(err, ERR_FORMAT, "the eh_elf compiled from "
				  "it records another build-ID");
}

/* Store IMAGE as HEX's eh_elf once the loader accepts it: signed (the
 * signature first) when the run has a key, else with any stale signature
 * removed first.  *SIGNED says whether a signature was written; SHA gets
 * the SHA-256 of IMAGE.  On failure *STORE_FAILED says whether the store
 * failed (the run stops) rather than the eh_elf (refused by the loader:
 * a failure of this ELF). */
static int store_ehelf(shared *s, const char *hex, const uint8_t *raw,
		       size_t rawlen, const uint8_t *image, size_t len,
		       char sha[65], bool *signed_, bool *store_failed,
		       ehelf_err *err)
{
	sign_sha256_hex(image, len, sha);
	*signed_ = false;
	*store_failed = true;
	char tmp[4200];
	int rc = store_stage(&s->st, hex, image, len, tmp, sizeof tmp, err);
	if (rc < 0)
		return rc;
	if ((rc = loader_accepts(image, len, raw, rawlen, err)) < 0) {
		*store_failed = false;
		unlink(tmp);
		return rc;
	}
	if (s->o->key) {
		char line[SIG_LINE_MAX];
		rc = sign_ehelf(s->o->key, hex, image, len, line, sizeof line, err);
		if (rc >= 0)
			rc = store_put_sig(&s->st, hex, line, (size_t)rc, err);
		*signed_ = rc == 0;
	} else {
		rc = store_remove_sig(&s->st, hex, err);
	}
	if (rc < 0) {
		unlink(tmp);
		return rc;
	}
	return store_commit(&s->st, hex, tmp, err);
}

static void count(shared *s, const char *status, uint64_t ehf, uint64_t hdr,
		  uint64_t written)
{
	s->sum.elfs++;
	s->sum.eh_frame_bytes += ehf;
	s->sum.eh_frame_hdr_bytes += hdr;
	s->sum.ehelf_bytes += written;
	if (!strcmp(status, "built"))
		s->sum.built++;
	else if (!strcmp(status, "present"))
		s->sum.skipped++;
	else if (!strcmp(status, "no-cfi"))
		s->sum.no_cfi++;
	else if (!strcmp(status, "ignored"))
		s->sum.ignored++;
	else if (!strcmp(status, "conflict"))
		s->sum.conflicts++;
	else
		s->sum.failed++;
	s->pc.elfs = s->sum.elfs;
	s->pc.built = s->sum.built;
	s->pc.present = s->sum.skipped;
	s->pc.failed = s->sum.failed;
	s->pc.no_cfi = s->sum.no_cfi;
	s->pc.eh_frame_bytes = s->sum.eh_frame_bytes;
	progress_update(&s->prog, &s->pc, false);
}

/* Compile F (claimed as C, which may be NULL when out of memory), store its
 * eh_elf and record it; closes F. */
static void compile_and_record(shared *s, elf_file *f,
			       db_file *row, const char *hex,
			       const uint8_t *raw, size_t rawlen,
			       const cfi_id *cfi, claim *c)
{
	ehelf_err err = { 0 };
	ehelf_coverage *cov = calloc(1, sizeof *cov);
	ehelf_compile_detail *det = calloc(1, sizeof *det);
	ehelf_compile_opts opts = { .build_id = raw, .build_id_len = rawlen,
				    .coverage = cov, .detail = det };
	ehelf_compile_stats st = { 0 };
	uint8_t *image = NULL;
	size_t len = 0;
	double t0 = progress_now();
	int rc = cov && det ? ehelf_compile_elf(f, &opts, &image, &len, &st, &err)
			    : err_set(&err, ERR_NOMEM, "out of memory");
	double ms = (progress_now() - t0) * 1e3;
	elf_file_close(f);
	char sha[65];
	bool signed_ = false, store_failed = false;
	double store_ms = 0;
	if (rc == 0) {
		t0 = progress_now();
		rc = store_ehelf(s, hex, raw, rawlen, image, len, sha, &signed_,
				 &store_failed, &err);
		store_ms = (progress_now() - t0) * 1e3;
	}
	free(image);
	if (rc < 0 && store_failed) {
		/* not this ELF's failure: the run stops, nothing is recorded
		 * and its package stays unfinished, for the next run */
		pthread_mutex_lock(&s->lock);
		set_fatal(s, rc, &err);
		if (c) {
			c->done = true;
			c->status[0] = '\0';
		}
		pthread_cond_broadcast(&s->claim_done);
		pthread_mutex_unlock(&s->lock);
		goto out;
	}
	row->status = rc == 0 ? "built" : rc == ERR_NOTFOUND ? "no-cfi" : "failed";
	row->error = rc < 0 ? err.msg : NULL;
	row->ehelf = rc == 0 ? len : 0;

	db_ehelf b = { .st = &st, .cov = cov, .detail = det, .compile_ms = ms,
		       .store_ms = store_ms, .sha256 = sha,
		       .signed_by = signed_ ? sign_key_id(s->o->key) : NULL };
	pthread_mutex_lock(&s->lock);
	record(s, row, hex, rc == 0 ? &b : NULL, rc == 0 ? cfi : NULL);
	count(s, row->status, row->eh_frame, row->eh_frame_hdr, row->ehelf);
	s->sum.signatures += signed_;
	if (rc == 0) {
		s->sum.rows += st.rows;
		s->sum.summarised_rows += det->summarised_rows;
		s->sum.sframe_bytes += sframe_est_bytes(&det->sframe);
	}
	if (c) {
		c->done = true;
		snprintf(c->status, sizeof c->status, "%s", row->status);
		snprintf(c->error, sizeof c->error, "%s", row->error ? row->error : "");
		c->ehelf_bytes = row->ehelf;
		c->cfi = rc == 0 ? *cfi : (cfi_id){ 0 };
	}
	pthread_cond_broadcast(&s->claim_done);
	pthread_mutex_unlock(&s->lock);
out:
	ehelf_compile_stats_free(&st);
	if (det)
		ehelf_compile_detail_free(det);
	free(det);
	free(cov);
}

/* ROW, an ELF file not compiled (its status and error set), recorded and
 * counted under the lock. */
static void record_unbuilt(shared *s, const db_file *row)
{
	pthread_mutex_lock(&s->lock);
	record(s, row, NULL, NULL, NULL);
	count(s, row->status, row->eh_frame, row->eh_frame_hdr, 0);
	pthread_mutex_unlock(&s->lock);
}

/* Is the signature line LINE (N bytes) by key ID KEY? */
static bool sig_by(const char *line, int n, const char *key)
{
	return n >= (int)sizeof SIG_MAGIC + SIG_KEYID_HEX &&
	       !memcmp(line, SIG_MAGIC " ", sizeof SIG_MAGIC) &&
	       !memcmp(line + sizeof SIG_MAGIC, key, SIG_KEYID_HEX);
}

/* A claim for HEX when its eh_elf is in the store with a current row
 * (under the lock), else NULL: done, unless the run's key must sign it
 * (its signature is missing or by another key). */
static claim *claim_present(shared *s, const char *hex)
{
	ehelf_err err = { 0 };
	int conflicted = db_conflicted(s->db, hex, &err);
	if (conflicted != 0) {
		/* in conflict: none is kept (a run stopped between the
		 * database and the store leaves its file behind) */
		if (conflicted > 0)
			conflicted = store_remove(&s->st, hex, &err);
		set_fatal(s, conflicted, &err);
		claim *c = claim_add(s, hex);
		if (c) {
			c->done = true;
			snprintf(c->status, sizeof c->status, "conflict");
		}
		return c;
	}
	db_ehelf_row row;
	if (db_lookup_ehelf(s->db, hex, &row, NULL) < 0 ||
	    !db_ehelf_current(&row) || !store_has(&s->st, hex))
		return NULL; /* absent or outdated: compiled (again) */
	claim *c = claim_add(s, hex);
	if (!c)
		return NULL;
	c->done = true;
	snprintf(c->status, sizeof c->status, "present");
	set_fatal(s, db_cfi_get(s->db, hex, &c->cfi, &err), &err);
	char path[4096];
	struct stat sb;
	if (store_path(&s->st, hex, path, sizeof path) == 0 &&
	    stat(path, &sb) == 0)
		c->ehelf_bytes = (uint64_t)sb.st_size;
	if (!s->o->key)
		return c;
	const char *key = sign_key_id(s->o->key);
	char line[SIG_LINE_MAX];
	if (!sig_by(line, store_get_sig(&s->st, hex, line, sizeof line, NULL), key))
		c->done = false;
	else if (strcmp(row.signed_by, key) != 0)
		record_signed(s, hex, key);
	return c;
}

/* Sign HEX's eh_elf, already in the store, with the run's key, and mark
 * its claim C done (called and returning under the lock; signs without). */
static void sign_present(shared *s, const char *hex, claim *c)
{
	pthread_mutex_unlock(&s->lock);
	ehelf_err err = { 0 };
	uint8_t *data = NULL;
	size_t len = 0;
	char line[SIG_LINE_MAX];
	int rc = store_get(&s->st, hex, &data, &len, &err);
	if (rc == 0)
		rc = sign_ehelf(s->o->key, hex, data, len, line, sizeof line, &err);
	if (rc >= 0)
		rc = store_put_sig(&s->st, hex, line, (size_t)rc, &err);
	free(data);
	pthread_mutex_lock(&s->lock);
	set_fatal(s, rc, &err);
	if (rc == 0) {
		record_signed(s, hex, sign_key_id(s->o->key));
		s->sum.signatures++;
	}
	c->done = true;
	pthread_cond_broadcast(&s->claim_done);
}

/* ROW, a file of build-ID HEX with unwind tables of digest CFI, in
 * conflict: C's build-ID is in conflict already, or its eh_elf was built
 * from other tables, which puts it in conflict now (its eh_elf deleted
 * from the database, then from the store).  Under the lock. */
static void record_conflict(shared *s, claim *c, db_file *row,
			    const char *pkg_name, const char *hex,
			    const cfi_id *cfi)
{
	ehelf_err err = { 0 };
	char why[1024];
	bool opening = strcmp(c->status, "conflict") != 0;
	db_ehelf_row first;
	if (opening && db_lookup_ehelf(s->db, hex, &first, NULL) == 0 &&
	    first.package[0])
		snprintf(why, sizeof why, "build-ID conflict: %.400s in package "
			 "%.200s has this build-ID and other unwind tables; "
			 "neither eh_elf is built, shipped or served until it is "
			 "resolved (ehelf-batch resolve)", first.path,
			 first.package);
	else
		snprintf(why, sizeof why, "build-ID conflict: other files have "
			 "this build-ID and other unwind tables (table "
			 "conflicts); no eh_elf is built, shipped or served until "
			 "it is resolved (ehelf-batch resolve)");
	row->status = "conflict";
	row->error = why;
	row->ehelf = 0;
	int rc = db_begin(s->db, &err);
	if (rc == 0)
		rc = opening ? db_conflict_open(s->db, hex, c->cfi.sha, row,
						pkg_name, cfi->sha, &err)
			     : db_conflict_add(s->db, hex, row, cfi->sha, &err);
	if (rc == 0)
		rc = db_put_file(s->db, row, &err);
	rc = end_transaction(s, rc, &err);
	if (rc == 0 && opening)
		rc = store_remove(&s->st, hex, &err);
	set_fatal(s, rc, &err);
	if (rc == 0 && opening) {
		snprintf(c->status, sizeof c->status, "conflict");
		s->sum.conflict_ids++;
		fprintf(stderr, "ehelf-batch: %s: %s in %s: %s\n", hex, row->path,
			pkg_name, why);
	}
	count(s, row->status, row->eh_frame, row->eh_frame_hdr, 0);
}

static void process_elf(shared *s, const elf_job *j)
{
	char name[8192];
	snprintf(name, sizeof name, "%s:%s", j->meta->source, j->m->path);
	db_file row = { .package_id = j->package_id, .path = j->m->path };
	ehelf_err err = { 0 };
	elf_file f;
	int rc = j->m->disk_path ? elf_file_open(&f, j->m->disk_path, &err)
				 : elf_file_open_mem(&f, j->m->data, j->m->size,
						     name, &err);
	if (rc < 0) {
		/* truncated, corrupt, other architectures or relocatable
		 * objects: recorded, not compiled */
		row.status = rc == ERR_UNSUPPORTED ? "ignored" : "failed";
		row.error = err.msg;
		record_unbuilt(s, &row);
		return;
	}
	char hex[BUILDID_HEX_MAX + 1];
	uint8_t raw[64];
	size_t rawlen = 0;
	const char *kind = NULL;
	size_t fsize = 0;
	if (elf_rawfile(f.elf, &fsize) == NULL)
		fsize = j->m->size;
	row.size = fsize;
	bool bad = false;
	row.text = section_bytes(&f, ".text", &bad, &err);
	row.eh_frame = section_bytes(&f, ".eh_frame", &bad, &err);
	row.eh_frame_hdr = section_bytes(&f, ".eh_frame_hdr", &bad, &err);
	row.debug_frame = section_bytes(&f, ".debug_frame", &bad, &err);
	if (bad || build_id_of(&f, hex, sizeof hex, &kind, raw, &rawlen) < 0) {
		row.status = "failed";
		row.error = bad ? err.msg : "cannot compute a build-ID";
		record_unbuilt(s, &row);
		elf_file_close(&f);
		return;
	}
	row.build_id = hex;
	row.build_id_kind = kind;
	if (!row.eh_frame && !row.debug_frame) {
		/* nothing to compile (e.g. a separate debug file, whose build-ID
		 * is the stripped binary's): say so whatever the store holds */
		row.status = "no-cfi";
		row.error = "no .eh_frame or .debug_frame contents";
		record_unbuilt(s, &row);
		elf_file_close(&f);
		return;
	}

	/* one compile per build-ID: wait for a worker doing it, or claim it */
	cfi_id cfi;
	cfi_digest(&f, &cfi);
	pthread_mutex_lock(&s->lock);
	claim *c = claim_find(s, hex);
	while (c && !c->done)
		pthread_cond_wait(&s->claim_done, &s->lock);
	if (!c && !s->fatal)
		c = claim_present(s, hex);
	if (c && !c->done && !s->fatal)
		sign_present(s, hex, c);
	if (s->fatal) { /* the run stops: this file is left for the next */
		pthread_mutex_unlock(&s->lock);
		elf_file_close(&f);
		return;
	}
	bool known = c && (!strcmp(c->status, "built") ||
			   !strcmp(c->status, "present"));
	bool differ = known && c->cfi.sha[0] && strcmp(c->cfi.sha, cfi.sha);
	if ((c && !known && strcmp(c->status, "conflict")) ||
	    (differ && c->cfi.debug_file && !cfi.debug_file)) {
		/* an earlier file with this build-ID had no usable unwind
		 * tables (a separate debug file shares its build-ID with the
		 * stripped binary), or only a debug file's: try this one */
		c->done = false;
		snprintf(c->status, sizeof c->status, "%s", "");
		pthread_mutex_unlock(&s->lock);
		compile_and_record(s, &f, &row, hex, raw, rawlen, &cfi, c);
		return;
	}
	if (c && (!known || (differ && !cfi.debug_file))) {
		/* in conflict, or another file's eh_elf from other tables */
		record_conflict(s, c, &row, j->meta->name, hex, &cfi);
	} else if (c) { /* known: compiled earlier, in this run or before
			 * (or a debug file's tables against an ELF's) */
		row.status = "present";
		row.ehelf = c->ehelf_bytes;
		/* a digest an older run did not record: this file's */
		bool adopt = !c->cfi.sha[0];
		record(s, &row, NULL, NULL, adopt ? &cfi : NULL);
		if (adopt)
			c->cfi = cfi;
		count(s, row.status, row.eh_frame, row.eh_frame_hdr, 0);
	}
	if (c) {
		pthread_mutex_unlock(&s->lock);
		elf_file_close(&f);
		return;
	}
	c = claim_add(s, hex);
	pthread_mutex_unlock(&s->lock);
	compile_and_record(s, &f, &row, hex, raw, rawlen, &cfi, c);
}

/* ---- one package ----------------------------------------------------------- */

/* Whether a worker stopped the run (s->fatal is the lock's). */
static bool stopped(shared *s)
{
	pthread_mutex_lock(&s->lock);
	bool f = s->fatal != 0;
	pthread_mutex_unlock(&s->lock);
	return f;
}

/* Member MB of package ID, a hard link: recorded as its target is, if
 * that is an ELF of the package. */
static void record_link(shared *s, int64_t id, const pkg_member *mb)
{
	ehelf_err err = { 0 };
	char status[16] = "";
	pthread_mutex_lock(&s->lock);
	int rc = db_begin(s->db, &err);
	int copied = rc == 0 ? db_link_file(s->db, id, mb->link, mb->path, status,
					    &err) : rc;
	rc = end_transaction(s, copied < 0 ? copied : 0, &err);
	set_fatal(s, rc, &err);
	if (rc == 0 && copied > 0)
		count(s, status, 0, 0, 0);
	pthread_mutex_unlock(&s->lock);
}

static void process_job(shared *s, const pkg_job *job)
{
	double t0 = progress_now();
	ehelf_err err = { 0 };
	pkg_reader *r = NULL;
	int rc = pkg_open(job, &r, &err);
	pkg_meta failed_meta;
	const pkg_meta *m;
	if (rc < 0) { /* an unreadable package is recorded under its file name */
		memset(&failed_meta, 0, sizeof failed_meta);
		const char *base = strrchr(job->path, '/');
		snprintf(failed_meta.name, sizeof failed_meta.name, "%s",
			 base ? base + 1 : job->path);
		snprintf(failed_meta.source, sizeof failed_meta.source, "%s",
			 job->path);
		failed_meta.format = job->format;
		m = &failed_meta;
	} else {
		m = pkg_get_meta(r);
	}
	int64_t id = 0;
	bool done = false;
	unsigned lost = 0;
	char lost_why[1100] = "";
	pthread_mutex_lock(&s->lock);
	ehelf_err dberr = { 0 };
	int drc = db_package(s->db, m, &id, &done, &dberr);
	if (drc == 0 && rc == 0 && !done && (job->format == PKG_DEB ||
	    job->format == PKG_RPM || job->format == PKG_ARCH))
		drc = db_package_forget_others(s->db, id, m, &dberr);
	set_fatal(s, drc, &dberr);
	pthread_mutex_unlock(&s->lock);
	/* a directory tree or an ELF file can change between runs: it is
	 * read again (files whose build-IDs are already built are skipped
	 * one by one) */
	if (done && (job->format == PKG_DIR || job->format == PKG_FILE))
		done = false;
	if (drc == 0 && done) {
		pthread_mutex_lock(&s->lock);
		s->sum.packages_done_before++;
		uint64_t unbuilt = 0;
		set_fatal(s, db_package_unbuilt(s->db, id, &unbuilt, &dberr), &dberr);
		s->sum.failed_before += unbuilt;
		pthread_mutex_unlock(&s->lock);
	} else if (drc == 0 && rc == 0) {
		pkg_member mb;
		while (!stopped(s) && (rc = pkg_next_elf(r, &mb, &err)) > 0) {
			const char *why = mb.problem ? mb.problem : mb.warning;
			if (why && !lost++)
				snprintf(lost_why, sizeof lost_why, "%.1000s: %s",
					 mb.path, why);
			if (mb.problem) {
				db_file row = { .package_id = id, .path = mb.path,
						.status = "failed", .error = why };
				record_unbuilt(s, &row);
			} else if (mb.link) {
				record_link(s, id, &mb);
			} else {
				elf_job j = { .package_id = id, .meta = m, .m = &mb };
				process_elf(s, &j);
			}
		}
	}
	pthread_mutex_lock(&s->lock);
	if (drc == 0 && !done && !s->fatal) {
		/* a member lost or not read: not done, read again next time */
		char msg[1200];
		if (rc >= 0 && lost)
			snprintf(msg, sizeof msg, "members not read: %u (the first: "
				 "%s)", lost, lost_why);
		const char *why = rc < 0 ? err.msg : lost ? msg : NULL;
		ehelf_err e2 = { 0 };
		set_fatal(s, db_package_end(s->db, id, why ? "failed" : "done",
					    why, progress_now() - t0, &e2), &e2);
		s->sum.packages++;
		if (why) {
			s->sum.packages_failed++;
			if (!s->prog.tty && rc < 0)
				fprintf(stderr, "ehelf-batch: %s\n", why);
			else if (!s->prog.tty)
				fprintf(stderr, "ehelf-batch: %s: %s\n", m->source,
					why);
		}
	}
	s->pc.packages_done++;
	s->pc.input_done += job->size;
	progress_update(&s->prog, &s->pc, false);
	pthread_mutex_unlock(&s->lock);
	pkg_close(r);
}

static void *worker(void *arg)
{
	shared *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		size_t i = s->next_job++;
		bool stop = s->fatal != 0;
		pthread_mutex_unlock(&s->lock);
		if (stop || i >= s->jobs->n)
			return NULL;
		process_job(s, &s->jobs->v[i]);
	}
}

/* ---- sharding and the run -------------------------------------------------- */

static const char *shard_key(const pkg_job *j)
{
	const char *slash = strrchr(j->path, '/');
	return j->format == PKG_INSTALLED || j->format == PKG_DIR ||
	       j->format == PKG_FILE || !slash ? j->path : slash + 1;
}

void batch_shard(pkg_jobs *jobs, unsigned k, unsigned n)
{
	if (n == 0)
		return;
	size_t w = 0;
	for (size_t i = 0; i < jobs->n; i++) {
		uint64_t h = 1469598103934665603ull;
		for (const char *p = shard_key(&jobs->v[i]); *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		if (h % n == k - 1) {
			jobs->v[w++] = jobs->v[i];
		} else {
			free(jobs->v[i].path);
			free(jobs->v[i].version);
			free(jobs->v[i].arch);
		}
	}
	jobs->n = w;
}

static bool in_store(void *st, const char *hex)
{
	return store_has(st, hex);
}

int batch_run(const batch_opts *o, const pkg_jobs *jobs, batch_summary *sum,
	      ehelf_err *err)
{
	shared *s = calloc(1, sizeof *s);
	if (!s)
		return err_set(err, ERR_NOMEM, "out of memory");
	s->o = o;
	s->jobs = jobs;
	int rc = store_open(&s->st, o->store, err);
	if (rc == 0)
		rc = db_open(&s->db, o->db, 0, err);
	if (rc == 0) /* their eh_elfs are rebuilt or signed as they are read */
		rc = db_reopen_outdated(s->db, o->key ? sign_key_id(o->key) : NULL,
					err);
	if (rc >= 0) /* and those whose eh_elf left the store, rebuilt */
		rc = db_reopen_missing(s->db, in_store, &s->st, err);
	if (rc < 0) {
		db_close(s->db);
		store_close(&s->st);
		free(s);
		return rc;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->claim_done, NULL);
	progress_init(&s->prog);
	s->pc.packages_total = jobs->n;
	for (size_t i = 0; i < jobs->n; i++)
		s->pc.input_total += jobs->v[i].size;
	int n = o->jobs > 0 ? o->jobs : 1;
	pthread_t *t = calloc((size_t)n, sizeof *t);
	int started = 0;
	for (int i = 0; t && i < n; i++)
		if (pthread_create(&t[i], NULL, worker, s) == 0)
			started++;
	if (started == 0)
		worker(s);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	progress_end(&s->prog, &s->pc);
	s->sum.seconds = progress_now() - s->prog.start;
	if (!s->fatal) {
		ehelf_err e2 = { 0 };
		set_fatal(s, db_conflict_counts(s->db, &s->sum.conflict_ids_all,
						&s->sum.conflict_files_all, &e2),
			  &e2);
	}
	*sum = s->sum;
	rc = s->fatal;
	if (rc < 0 && err)
		*err = s->fatal_err;
	db_close(s->db);
	store_close(&s->st);
	for (size_t b = 0; b < CLAIM_BUCKETS; b++)
		for (claim *c = s->claims[b], *next; c; c = next) {
			next = c->next;
			free(c);
		}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->claim_done);
	free(s);
	return rc;
}
