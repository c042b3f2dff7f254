/*
 * test_package.c - package metadata read by several threads at once, as
 * ehelf-batch's workers read packages: two .deb files made here with
 * dpkg-deb (long control files, so that parsing takes a while), opened
 * over and over (2,000 times) by four threads, must always give their own name, version
 * and architecture.  (The control parser once used strtok, whose hidden
 * state the threads shared: now and then a package lost fields, and the
 * batch test's sharded database differed from one run's.)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../builder/batch/package.h"
#include "unit.h"

static char debs[2][600];
static const char *const names[2] = { "ehelf-test-one", "ehelf-test-two" };
static const char *const versions[2] = { "1.2-3", "4:5.6~rc1-7" };
static const char *const arches[2] = { "amd64", "all" };
static int failures[4];

/* A .deb named NAME, VERSION, ARCH, with many other fields, in DIR. */
static int make_deb(const char *dir, int k)
{
	char root[700], control[800], cmd[2000];
	snprintf(root, sizeof root, "%s/root%d", dir, k);
	snprintf(control, sizeof control, "%s/DEBIAN", root);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s/usr/share/doc'", control, root);
	if (system(cmd) != 0)
		return -1;
	snprintf(control, sizeof control, "%s/DEBIAN/control", root);
	FILE *f = fopen(control, "w");
	if (!f)
		return -1;
	fprintf(f, "Package: %s\nVersion: %s\n", names[k], versions[k]);
	for (int i = 0; i < 200; i++) /* fields to parse before the last */
		fprintf(f, "X-Field-%d: value %d of the test\n", i, i);
	fprintf(f, "Architecture: %s\nMaintainer: ehelf <ehelf@localhost>\n"
		"Description: a test package\n a long description line\n",
		arches[k]);
	fclose(f);
	snprintf(debs[k], sizeof debs[k], "%s/%s.deb", dir, names[k]);
	snprintf(cmd, sizeof cmd, "dpkg-deb --root-owner-group -Zgzip --build '%s' '%s' "
		 ">/dev/null", root, debs[k]);
	return system(cmd) == 0 ? 0 : -1;
}

static void *reader(void *arg)
{
	int t = (int)(intptr_t)arg;
	for (int i = 0; i < 2000; i++) {
		int k = (t + i) % 2;
		pkg_job job = { .format = PKG_DEB, .path = debs[k] };
		pkg_reader *r = NULL;
		ehelf_err err = { 0 };
		if (pkg_open(&job, &r, &err) != 0) {
			failures[t]++;
			continue;
		}
		const pkg_meta *m = pkg_get_meta(r);
		if (strcmp(m->name, names[k]) || strcmp(m->version, versions[k]) ||
		    strcmp(m->arch, arches[k]))
			failures[t]++;
		pkg_close(r);
	}
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/test_package.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(make_deb(dir, 0) == 0 && make_deb(dir, 1) == 0);
	pthread_t th[4];
	for (int t = 0; t < 4; t++)
		CHECK(pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < 4; t++)
		CHECK(failures[t] == 0);
	printf("test_package: 4 threads x 2000 opens, %d with wrong metadata\n",
	       failures[0] + failures[1] + failures[2] + failures[3]);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_package");
}
