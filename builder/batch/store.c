/* store.c - see store.h. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/atomic_file.h"
#include "../../common/buildid.h"

static int mkdir_p(const char *path, ehelf_err *err)
{
	char buf[4096];
	if (strlen(path) >= sizeof buf)
		return err_set(err, ERR_ARG, "%s: path too long", path);
	strcpy(buf, path);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return err_set(err, ERR_IO, "%s: cannot create: %s",
					       buf, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int store_open(store *s, const char *root, ehelf_err *err)
{
	if (snprintf(s->root, sizeof s->root, "%s", root) >= (int)sizeof s->root)
		return err_set(err, ERR_ARG, "%s: path too long", root);
	snprintf(s->tmp, sizeof s->tmp, "%s/.tmp", s->root);
	char ids[2100];
	snprintf(ids, sizeof ids, "%s/.build-id", s->root);
	int rc = mkdir_p(ids, err);
	if (rc == 0)
		rc = mkdir_p(s->tmp, err);
	if (rc < 0)
		return rc;
	/* temporaries of a run that was killed: never renamed, so unused */
	DIR *d = opendir(s->tmp);
	if (!d)
		return err_set(err, ERR_IO, "%s: %s", s->tmp, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, ".tmp-", 5) != 0)
			continue;
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", s->tmp, e->d_name);
		unlink(p);
	}
	closedir(d);
	return 0;
}

int store_path(const store *s, const char *hex, char *out, size_t n)
{
	return buildid_store_path(s->root, hex, out, n) < 0 ? ERR_ARG : 0;
}

bool store_has(const store *s, const char *hex)
{
	char p[4096];
	struct stat st;
	return store_path(s, hex, p, sizeof p) == 0 && stat(p, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int store_put(const store *s, const char *hex, const void *data, size_t len,
	      ehelf_err *err)
{
	char p[4096];
	if (store_path(s, hex, p, sizeof p) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%s'", hex);
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/.build-id/%.2s", s->root, hex);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, ERR_IO, "%s: cannot create: %s", dir,
			       strerror(errno));
	return atomic_write(p, s->tmp, data, len, err);
}
