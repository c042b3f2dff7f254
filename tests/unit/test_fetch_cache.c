/*
 * test_fetch_cache.c - fetching's configuration and cache without a
 * server (tests/fetch/run-fetch-tests.sh has the servers):
 * fetch_config_load's reading of the environment (URLs split, trailing
 * slashes dropped, the cache's place, timeouts, a trusted-key directory
 * holding a file that is not a key); the cache's entries (stored files
 * mode 0400 with the signature beside, negative entries and their expiry,
 * eviction), its parameter files and cleaning; planted entries (an XX
 * directory that is a link to a directory outside: eviction, lookup and
 * storing touch nothing there; negative entries of another user, dated
 * in 2100, links, FIFOs; a cache of mode 0777, another user's, a link:
 * refused with a message; max_unused_age_s=0 taken as a day; a
 * temporary download discarded leaves nothing); fetch_ids refusing a
 * malformed build-ID, answering from the cache without a server, and a
 * server that refuses connections: failed, retried, not negatively
 * cached.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "../../client-lib/fetch.h"
#include "../../client-lib/fetch_cache.h"
#include "unit.h"

static char dir[] = "/tmp/test_fetch_cache.XXXXXX";

static const char *path_of(char *out, const char *name)
{
	snprintf(out, 4096, "%s/%s", dir, name);
	return out;
}

static const char HEX[] = "93ac61ec5a8eb1396f9fbd350e3169a558528a40";
static const char HEX2[] = "1f95d5498d283b79505861523e20b3db2afdf518";

static void test_config(void)
{
	char p[4096];
	setenv("EHELF_URLS", "  http://a.example/  http://b.example:8003//\thttp://c ", 1);
	setenv("EHELF_CACHE_PATH", path_of(p, "cache/"), 1);
	setenv("EHELF_TIMEOUT", "2.5", 1);
	setenv("EHELF_RETRY_LIMIT", "3", 1);
	setenv("EHELF_MAXSIZE", "1000", 1);
	setenv("EHELF_TRUSTED_KEYS", path_of(p, "nokeys"), 1);
	unsetenv("EHELF_ALLOW_UNSIGNED");
	fetch_config c;
	ehelf_err err;
	CHECK(fetch_config_load(&c, &err) == 0);
	CHECK_STR(c.urls[0], "http://a.example");
	CHECK_STR(c.urls[1], "http://b.example:8003");
	CHECK_STR(c.urls[2], "http://c");
	CHECK(c.urls[3] == NULL);
	CHECK_STR(c.cache, path_of(p, "cache"));
	CHECK(c.timeout == 2.5 && c.retry_limit == 3 && c.maxsize == 1000);
	CHECK(!c.allow_unsigned && c.cache_miss_s == CACHE_MISS_S_DEFAULT);
	fetch_config_free(&c);

	/* defaults; the cache under XDG_CACHE_HOME, else HOME */
	unsetenv("EHELF_URLS");
	unsetenv("EHELF_CACHE_PATH");
	unsetenv("EHELF_TIMEOUT");
	setenv("EHELF_MAXSIZE", "junk", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	CHECK(fetch_config_load(&c, &err) == 0);
	CHECK(c.urls[0] == NULL && c.timeout == 10 && c.maxsize > 1000);
	CHECK_STR(c.cache, "/xdg/ehelf");
	fetch_config_free(&c);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/someone", 1);
	CHECK(fetch_config_load(&c, &err) == 0);
	CHECK_STR(c.cache, "/home/someone/.cache/ehelf");
	fetch_config_free(&c);

	/* a trusted-key directory with a file that is not a key */
	mkdir(path_of(p, "badkeys"), 0700);
	FILE *f = fopen(path_of(p, "badkeys/junk.pem"), "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not a key\n", f);
		fclose(f);
	}
	setenv("EHELF_TRUSTED_KEYS", path_of(p, "badkeys"), 1);
	CHECK(fetch_config_load(&c, &err) < 0);
	CHECK_CONTAINS(err.msg, "trusted keys");
	setenv("EHELF_TRUSTED_KEYS", path_of(p, "nokeys"), 1);
}

/* A configuration whose cache is DIR/cache. */
static void load(fetch_config *c, const char *urls)
{
	char p[4096];
	ehelf_err err;
	setenv("EHELF_CACHE_PATH", path_of(p, "cache"), 1);
	if (urls)
		setenv("EHELF_URLS", urls, 1);
	else
		unsetenv("EHELF_URLS");
	CHECK(fetch_config_load(c, &err) == 0);
}

static void test_entries(void)
{
	fetch_config c;
	load(&c, NULL);
	ehelf_err err;
	char p[4096], q[4096], why[256];
	bool refused;
	CHECK(fetch_cache_prepare(&c, &err) == 0);
	struct stat st;
	CHECK(stat(c.cache, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(stat(path_of(p, "cache/cache_miss_s"), &st) == 0);
	CHECK(stat(path_of(p, "cache/max_unused_age_s"), &st) == 0);
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_ABSENT);

	/* a negative entry, then the eh_elf stored over it */
	CHECK(fetch_cache_miss(&c, HEX, true, "http://x: bad signature", &err) == 0);
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_MISS);
	CHECK(refused);
	CHECK_STR(why, "refused: http://x: bad signature");
	CHECK(fetch_cache_store(&c, HEX, "ELF", 3, "sig\n", 4, &err) == 0);
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_PRESENT);
	CHECK(fetch_cache_path(&c, HEX, p, sizeof p) == 0);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0400 && st.st_size == 3);
	snprintf(q, sizeof q, "%s.sig", p);
	CHECK(stat(q, &st) == 0 && (st.st_mode & 0777) == 0400);
	snprintf(q, sizeof q, "%s.miss", p);
	CHECK(stat(q, &st) != 0); /* the negative entry is gone */

	/* evicted: both files */
	fetch_cache_evict(&c, HEX);
	CHECK(stat(p, &st) != 0);
	snprintf(q, sizeof q, "%s.sig", p);
	CHECK(stat(q, &st) != 0);

	/* a negative entry older than cache_miss_s is dropped */
	CHECK(fetch_cache_miss(&c, HEX2, false, "no server has it", &err) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_MISS);
	CHECK(!refused);
	CHECK(fetch_cache_path(&c, HEX2, q, sizeof q) == 0);
	strcat(q, ".miss");
	struct utimbuf old = { time(NULL) - 700, time(NULL) - 700 };
	CHECK(utime(q, &old) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(stat(q, &st) != 0);
	fetch_config_free(&c);
}

static void write_number(const char *name, const char *v)
{
	char p[4096];
	FILE *f = fopen(path_of(p, name), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(v, f);
		fclose(f);
	}
}

static void test_cleaning(void)
{
	fetch_config c;
	load(&c, NULL);
	ehelf_err err;
	char old[4096], young[4096], miss[4096], p[4096];
	struct stat st;
	CHECK(fetch_cache_store(&c, HEX, "OLD", 3, "sig\n", 4, &err) == 0);
	CHECK(fetch_cache_store(&c, HEX2, "NEW", 3, NULL, 0, &err) == 0);
	CHECK(fetch_cache_miss(&c, "abcd", false, "no", &err) == 0);
	fetch_cache_path(&c, HEX, old, sizeof old);
	fetch_cache_path(&c, HEX2, young, sizeof young);
	fetch_cache_path(&c, "abcd", miss, sizeof miss);
	strcat(miss, ".miss");
	struct utimbuf t = { time(NULL) - 3 * 86400, time(NULL) - 3 * 86400 };
	CHECK(utime(old, &t) == 0 && utime(miss, &t) == 0);
	fetch_config_free(&c);
	/* not yet: the interval has not passed since the last cleaning */
	write_number("cache/max_unused_age_s", "86400\n");
	load(&c, NULL);
	CHECK(c.max_unused_age_s == 86400);
	CHECK(fetch_cache_prepare(&c, &err) == 0);
	CHECK(stat(old, &st) == 0);
	fetch_config_free(&c);
	/* now */
	write_number("cache/cache_clean_interval_s", "0\n");
	load(&c, NULL);
	CHECK(fetch_cache_prepare(&c, &err) == 0);
	CHECK(stat(old, &st) != 0);
	snprintf(p, sizeof p, "%s.sig", old);
	CHECK(stat(p, &st) != 0);
	CHECK(stat(miss, &st) != 0);
	CHECK(stat(young, &st) == 0);
	fetch_config_free(&c);
}

/* HEX's directory in the cache of C into OUT. */
static void xx_dir(const fetch_config *c, const char *hex, char *out)
{
	snprintf(out, 4096, "%s/.build-id/%.2s", c->cache, hex);
}

static void test_planted(void)
{
	fetch_config c;
	load(&c, NULL);
	ehelf_err err;
	char p[4096], q[4096], xx[4096], why[256];
	bool refused;
	struct stat st;
	CHECK(fetch_cache_prepare(&c, &err) == 0);
	/* CACHE/.build-id/XX a link to a directory outside, holding files of
	 * the names the cache would use */
	mkdir(path_of(p, "victim"), 0700);
	snprintf(q, sizeof q, "%s/%s.so", p, HEX + 2);
	write_number("victim/x", "keep\n");
	FILE *f = fopen(q, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("the user's own\n", f);
		fclose(f);
	}
	xx_dir(&c, HEX, xx);
	snprintf(p, sizeof p, "%s/.build-id", c.cache);
	mkdir(p, 0700);
	CHECK(symlink(path_of(p, "victim"), xx) == 0);
	fetch_cache_evict(&c, HEX);
	CHECK(stat(q, &st) == 0);
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(fetch_cache_store(&c, HEX, "ELF", 3, "sig\n", 4, &err) == 0);
	CHECK(lstat(xx, &st) == 0 && S_ISDIR(st.st_mode)); /* the cache's own */
	CHECK(stat(q, &st) == 0 && st.st_size == 15);
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_PRESENT);

	/* negative entries: another user's, 2100, a link, a FIFO */
	char miss[4096];
	fetch_cache_path(&c, HEX2, miss, sizeof miss);
	strcat(miss, ".miss");
	fetch_cache_evict(&c, HEX2);
	CHECK(fetch_cache_miss(&c, HEX2, false, "no", &err) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_MISS);
	CHECK(chown(miss, 12345, 0) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(lstat(miss, &st) != 0); /* removed */
	CHECK(fetch_cache_miss(&c, HEX2, false, "no", &err) == 0);
	struct utimbuf t = { 4102444800, 4102444800 }; /* 2100-01-01 */
	CHECK(utime(miss, &t) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	write_number("secret", "refused: secret first line\n");
	CHECK(symlink(path_of(p, "secret"), miss) == 0);
	why[0] = 0;
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(strstr(why, "secret") == NULL && lstat(miss, &st) != 0);
	CHECK(stat(path_of(p, "secret"), &st) == 0);
	CHECK(mkfifo(miss, 0600) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	/* a planted eh_elf: a FIFO */
	fetch_cache_path(&c, HEX2, q, sizeof q);
	CHECK(mkfifo(q, 0600) == 0);
	CHECK(fetch_cache_lookup(&c, HEX2, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(lstat(q, &st) != 0);

	/* a temporary download discarded leaves nothing */
	cache_tmp tmp;
	CHECK(fetch_cache_tmp_open(&c, HEX2, &tmp, &err) == 0);
	CHECK(fetch_cache_tmp_write(&tmp, "junk", 4, &err) == 0);
	xx_dir(&c, HEX2, xx);
	snprintf(p, sizeof p, "%s/%s", xx, tmp.name);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
	fetch_cache_tmp_discard(&tmp);
	CHECK(stat(p, &st) != 0 && tmp.fd == -1 && tmp.dir == -1);
	fetch_config_free(&c);

	/* max_unused_age_s=0: a day */
	write_number("cache/max_unused_age_s", "0\n");
	load(&c, NULL);
	CHECK(c.max_unused_age_s == MAX_UNUSED_AGE_S_MIN);
	fetch_config_free(&c);

	/* the cache itself: mode 0777, another user's, a link */
	load(&c, NULL);
	CHECK(chmod(c.cache, 0777) == 0);
	CHECK(fetch_cache_prepare(&c, &err) == ERR_IO);
	CHECK_CONTAINS(err.msg, "writable by others (mode 0777");
	CHECK(fetch_cache_lookup(&c, HEX, &refused, why, sizeof why) == CACHE_ABSENT);
	CHECK(chmod(c.cache, 0700) == 0 && chown(c.cache, 12345, 0) == 0);
	CHECK(fetch_cache_prepare(&c, &err) == ERR_IO);
	CHECK_CONTAINS(err.msg, "owned by uid 12345");
	CHECK(chown(c.cache, 0, 0) == 0);
	fetch_config_free(&c);
	setenv("EHELF_CACHE_PATH", path_of(p, "cachelink"), 1);
	CHECK(symlink(path_of(q, "victim"), p) == 0);
	CHECK(fetch_config_load(&c, &err) == 0);
	CHECK(fetch_cache_prepare(&c, &err) == ERR_IO);
	CHECK_CONTAINS(err.msg, "a symbolic link, not followed");
	CHECK(fetch_cache_store(&c, HEX, "ELF", 3, NULL, 0, &err) == ERR_IO);
	snprintf(q, sizeof q, "%s/victim/.build-id", dir);
	CHECK(stat(q, &st) != 0); /* nothing written through the link */
	fetch_config_free(&c);
	/* as test_fetch_ids expects: HEX2 cached, HEX not */
	load(&c, NULL);
	fetch_cache_evict(&c, HEX);
	CHECK(fetch_cache_store(&c, HEX2, "NEW", 3, NULL, 0, &err) == 0);
	fetch_config_free(&c);
}

static void test_fetch_ids(void)
{
	fetch_config c;
	ehelf_err err;
	fetch_status st[2];
	char why[2][256];
	const char *ids[2] = { HEX2, HEX };
	const char *bad[1] = { "ABCD" };
	load(&c, NULL);
	CHECK(fetch_ids(&c, bad, 1, st, why, &err) == ERR_ARG);
	/* no server: the cache answers */
	CHECK(fetch_ids(&c, ids, 2, st, why, &err) == 1);
	CHECK(st[0] == FETCH_CACHED && st[1] == FETCH_NOT_FOUND);
	CHECK_CONTAINS(why[1], "EHELF_URLS");
	fetch_config_free(&c);
	/* a server that refuses connections: failed after its retries, and
	 * not remembered */
	setenv("EHELF_RETRY_LIMIT", "2", 1);
	load(&c, "http://127.0.0.1:1");
	CHECK(fetch_ids(&c, ids, 2, st, why, &err) == 1);
	CHECK(st[0] == FETCH_CACHED && st[1] == FETCH_FAILED);
	CHECK_CONTAINS(why[1], "http://127.0.0.1:1");
	bool refused;
	char line[256];
	CHECK(fetch_cache_lookup(&c, HEX, &refused, line, sizeof line) == CACHE_ABSENT);
	CHECK_STR(fetch_status_str(FETCH_REFUSED), "refused");
	fetch_config_free(&c);
}

int main(void)
{
	CHECK(mkdtemp(dir) != NULL);
	test_config();
	test_entries();
	test_cleaning();
	test_planted();
	test_fetch_ids();
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "chmod -R u+w %s && rm -rf %s", dir, dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_fetch_cache");
}
