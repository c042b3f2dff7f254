/* pkg_state.c - see pkg_state.h. */
#define _GNU_SOURCE
#include "pkg_state.h"

#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/atomic_file.h"

static int entry_cmp(const void *a, const void *b)
{
	const pkg_state_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->version, y->version);
	return c ? c : strcmp(x->arch, y->arch);
}

static void entry_free(pkg_state_entry *e)
{
	free(e->name);
	free(e->version);
	free(e->arch);
	free(e->pool_path);
}

static pkg_state_entry *append(pkg_state *s, const char *name,
			       const char *version, const char *arch,
			       const char *key, const char *pool_path)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? 2 * s->cap : 256;
		pkg_state_entry *e = realloc(s->e, c * sizeof *e);
		if (!e)
			return NULL;
		s->e = e;
		s->cap = c;
	}
	pkg_state_entry *e = &s->e[s->n];
	memset(e, 0, sizeof *e);
	if (!(e->name = strdup(name)) || !(e->version = strdup(version)) ||
	    !(e->arch = strdup(arch)) || !(e->pool_path = strdup(pool_path))) {
		entry_free(e);
		return NULL;
	}
	snprintf(e->key, sizeof e->key, "%s", key);
	s->n++;
	return e;
}

int pkg_state_load(pkg_state *s, const char *path, ehelf_err *err)
{
	memset(s, 0, sizeof *s);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : err_set(err, ERR_IO, "%s: %s", path,
						     strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (getline(&line, &cap, f) > 0) {
		char *save, *w[5];
		int k = 0;
		for (char *t = strtok_r(line, " \n", &save); t && k < 5;
		     t = strtok_r(NULL, " \n", &save))
			w[k++] = t;
		if (k == 5 && strlen(w[3]) == 64 &&
		    !append(s, w[0], w[1], w[2], w[3], w[4])) {
			rc = err_set(err, ERR_NOMEM, "out of memory");
			break;
		}
	}
	free(line);
	fclose(f);
	if (s->n)
		qsort(s->e, s->n, sizeof *s->e, entry_cmp);
	s->sorted = s->n;
	return rc;
}

void pkg_state_free(pkg_state *s)
{
	for (size_t i = 0; i < s->n; i++)
		entry_free(&s->e[i]);
	free(s->e);
	memset(s, 0, sizeof *s);
}

pkg_state_entry *pkg_state_find(pkg_state *s, const char *name,
				const char *version, const char *arch)
{
	pkg_state_entry key = { .name = (char *)name, .version = (char *)version,
				.arch = (char *)arch };
	pkg_state_entry *e = s->sorted ? bsearch(&key, s->e, s->sorted,
						 sizeof key, entry_cmp) : NULL;
	for (size_t i = s->sorted; !e && i < s->n; i++)
		if (entry_cmp(&key, &s->e[i]) == 0)
			e = &s->e[i];
	return e;
}

pkg_state_entry *pkg_state_put(pkg_state *s, const pkg *p, const char *key,
			       const char *pool_path)
{
	pkg_state_entry *e = pkg_state_find(s, p->name, p->version, p->arch);
	if (!e)
		return append(s, p->name, p->version, p->arch, key, pool_path);
	char *pp = strdup(pool_path);
	if (!pp)
		return NULL;
	free(e->pool_path);
	e->pool_path = pp;
	snprintf(e->key, sizeof e->key, "%s", key);
	return e;
}

static void hash_str(EVP_MD_CTX *c, const char *s)
{
	EVP_DigestUpdate(c, s, strlen(s) + 1);   /* with its NUL: unambiguous */
}

void pkg_state_key(const pkg_set *set, const pkg *p, long long epoch,
		   char key[65])
{
	char buf[128];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	snprintf(buf, sizeof buf, "ehelf-pkg %d epoch %lld", PKG_OUTPUT_VERSION,
		 epoch);
	hash_str(c, buf);
	hash_str(c, p->name);
	hash_str(c, p->version);
	hash_str(c, p->arch);
	hash_str(c, p->installed ? "installed" : "");
	struct stat st;
	if (p->deb && stat(p->deb, &st) == 0) {
		snprintf(buf, sizeof buf, "%" PRIu64 " %lld.%09ld",
			 (uint64_t)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec);
		hash_str(c, p->deb);
		hash_str(c, buf);
	}
	for (size_t k = 0; k < p->n_elf; k++) {
		const pkg_elf *e = &set->elfs[p->elf[k]];
		snprintf(buf, sizeof buf, "%d %" PRIu64, e->has_row, e->size);
		hash_str(c, e->build_id);
		hash_str(c, buf);
		hash_str(c, e->sha256);
		hash_str(c, e->signed_by);
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	EVP_DigestFinal_ex(c, md, &n);
	EVP_MD_CTX_free(c);
	for (unsigned i = 0; i < n && i < 32; i++)
		snprintf(key + 2 * i, 3, "%02x", md[i]);
}

int pkg_state_save(const pkg_state *s, const char *path, bool live_only,
		   ehelf_err *err)
{
	pkg_state_entry *copy = malloc((s->n ? s->n : 1) * sizeof *copy);
	if (!copy)
		return err_set(err, ERR_NOMEM, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!live_only || s->e[i].live)
			copy[n++] = s->e[i];
	qsort(copy, n, sizeof *copy, entry_cmp);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		free(copy);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s %s %s %s\n", copy[i].name, copy[i].version,
			copy[i].arch, copy[i].key, copy[i].pool_path);
	fclose(f);
	free(copy);
	int rc = atomic_write(path, NULL, text ? text : "", len, err);
	free(text);
	return rc;
}
