/*
 * ehelf-pkg - optional -ehelf packages and an apt repository from a store:
 * for every Debian binary package ehelf-batch's database knows (or those
 * named) that has an eh_elf, NAME-ehelf_VERSION_ARCH.deb with its eh_elfs
 * at /usr/lib/ehelf/.build-id/XX/REST.so, modelled on -dbgsym packages;
 * then the repository's indices (pkg_repo.h), signed with --gpg-key.
 * docs/packaging.md describes the packages, the repository and the
 * choices behind them.
 *
 * Reproducible (pkg_deb.h) and incremental (pkg_state.h): a package whose
 * key is unchanged is not rebuilt.  A package that cannot be made (its
 * metadata unreadable, an eh_elf missing or differing from its row, a
 * version dpkg refuses) is reported and left out, any earlier good build
 * of it kept; the others are built and indexed.
 *
 * Exit status: 0 success, 1 a package failed, a named package is unknown,
 * or the database, store or repository could not be read or written,
 * 2 bad usage or a --gpg-key gpg does not have.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pkg_control.h"
#include "pkg_db.h"
#include "pkg_deb.h"
#include "pkg_fs.h"
#include "pkg_meta.h"
#include "pkg_owner.h"
#include "pkg_queue.h"
#include "pkg_repo.h"
#include "pkg_state.h"

/* Time stamps when SOURCE_DATE_EPOCH is not set: Debian 12's release
 * (2023-06-10), a fixed date so that the same store gives the same bytes
 * (lintian refuses dates before 1975). */
enum { DEFAULT_EPOCH = 1686355200 };

static void usage(FILE *out)
{
	fputs("Usage: ehelf-pkg --store DIR [--db FILE] --out REPO [--suite NAME]\n"
	      "                 [--gpg-key ID] [--jobs N] [--url URL] [--json]\n"
	      "                 [PACKAGE...]\n"
	      "\n"
	      "Make an optional -ehelf package for every Debian binary package the\n"
	      "database knows (or each PACKAGE named) that has at least one eh_elf:\n"
	      "NAME-ehelf_VERSION_ARCH.deb, holding those eh_elfs (and their\n"
	      "signatures) at /usr/lib/ehelf/.build-id/XX/REST.so, where libehelf\n"
	      "finds them, and depending on NAME (= VERSION), as -dbgsym packages\n"
	      "do; then the apt repository REPO: pool/, dists/SUITE/main/binary-ARCH/\n"
	      "Packages{,.xz} and Release (InRelease and Release.gpg with --gpg-key).\n"
	      "Packages whose contents did not change are not rebuilt; the same\n"
	      "store gives the same bytes (time stamps: SOURCE_DATE_EPOCH, default\n"
	      "2023-06-10).  Without PACKAGE, packages no longer in the database\n"
	      "are removed from the repository.\n"
	      "\n"
	      "  -s, --store DIR   the store ehelf-batch wrote (DIR/.build-id/...)\n"
	      "  -d, --db FILE     its database (default: STORE/ehelf.sqlite)\n"
	      "  -o, --out REPO    the repository to write (created if needed)\n"
	      "      --suite NAME  the distribution name in dists/ (default: ehelf)\n"
	      "  -k, --gpg-key ID  sign Release with this gpg secret key (GNUPGHOME\n"
	      "                    is honoured) and export its public key to\n"
	      "                    REPO/ehelf-archive-keyring.gpg, for signed-by=\n"
	      "  -j, --jobs N      packages built at once (default: the number of cores)\n"
	      "      --url URL     where clients will reach REPO, for the sources\n"
	      "                    line printed at the end (default: ehelf-server's\n"
	      "                    http://localhost:8003/debian)\n"
	      "      --json        print a summary object instead of the text\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "Exit status: 0 success, 1 a package could not be made (the others\n"
	      "are), an unknown PACKAGE, or an unreadable database, 2 usage.\n", out);
}

typedef struct opts {
	const char *store, *db, *repo, *suite, *gpg_key, *url;
	int jobs;
	bool json;
	char **names;
	int n_names;
} opts;

/* ---- choosing what to build -------------------------------------------- */

/* The Priority rank of the name of SET->pkgs[I] for pkg_owner, from the
 * first of its versions (I and those after it) whose -ehelf package can be
 * made (a Debian name and version, metadata that can be read); when none
 * can, PKG_RANK_CANNOT_BUILD: another name that builds carries the
 * build-IDs they share. */
static int rank_of(void *arg, const pkg_set *set, size_t i)
{
	for (size_t k = i; k < set->n && !strcmp(set->pkgs[k].name,
						 set->pkgs[i].name); k++) {
		pkg_meta m;
		if (pkg_control_check(&set->pkgs[k], NULL) == 0 &&
		    pkg_meta_read(&set->pkgs[k], arg, &m, NULL) == 0)
			return pkg_priority_rank(m.priority);
	}
	return PKG_RANK_CANNOT_BUILD;
}

/* Leave out the packages known only from dpkg's database whose version is
 * no longer the installed one: nothing describes them any more. */
static unsigned drop_stale_installed(pkg_set *set, const pkg_dpkg *d)
{
	unsigned n = 0;
	for (size_t i = 0; i < set->n; i++) {
		pkg *p = &set->pkgs[i];
		const char *v = pkg_dpkg_version(d, p->name, p->arch);
		if (!p->deb && (!v || !pkg_version_same(v, p->version))) {
			p->n_elf = 0;
			n++;
		}
	}
	unsigned before = set->skipped[SKIP_NO_EHELF];
	pkg_set_drop_empty(set);
	set->skipped[SKIP_NO_EHELF] = before;
	return n;
}

/* Mark the packages to build; an unknown name is an error. */
static int select_packages(pkg_set *set, const opts *o)
{
	int bad = 0;
	for (size_t i = 0; i < set->n; i++)
		set->pkgs[i].selected = o->n_names == 0;
	for (int k = 0; k < o->n_names; k++) {
		bool found = false;
		for (size_t i = 0; i < set->n; i++)
			if (strcmp(set->pkgs[i].name, o->names[k]) == 0)
				found = set->pkgs[i].selected = true;
		if (!found) {
			fprintf(stderr, "ehelf-pkg: %s: no such package with an eh_elf "
				"in the database (or another package carries its "
				"eh_elfs)\n", o->names[k]);
			bad = 1;
		}
	}
	return bad;
}

static bool is_file(const char *repo, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", repo, rel);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- the summary ------------------------------------------------------- */

typedef struct totals {
	size_t selected, built, unchanged, failed, shared, in_repo;
	unsigned stale;
	unsigned long long repo_bytes;
	uint64_t ehelf_bytes, eh_frame, eh_frame_hdr;
	double seconds;
} totals;

static void print_json(const totals *t, const pkg_set *set)
{
	printf("{\"packages\": %zu, \"built\": %zu, \"unchanged\": %zu, "
	       "\"failed\": %zu, \"repository_packages\": %zu, "
	       "\"repository_bytes\": %llu, \"ehelf_bytes\": %" PRIu64 ", "
	       "\"eh_frame_bytes\": %" PRIu64 ", \"eh_frame_hdr_bytes\": %" PRIu64
	       ", \"shared_build_ids\": %zu, \"stale_installed\": %u",
	       t->selected, t->built, t->unchanged, t->failed, t->in_repo,
	       t->repo_bytes, t->ehelf_bytes, t->eh_frame, t->eh_frame_hdr,
	       t->shared, t->stale);
	static const char *const keys[SKIP_COUNT] = {
		"skipped_format", "skipped_udeb", "skipped_debug",
		"skipped_unfinished", "skipped_no_ehelf" };
	for (int i = 0; i < SKIP_COUNT; i++)
		printf(", \"%s\": %u", keys[i], set->skipped[i]);
	printf(", \"seconds\": %.3f}\n", t->seconds);
}

/* "DIR/ehelf-server" when it is beside this program (build/bin), else the
 * bare name, into OUT (N bytes). */
static void server_command(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash = k > 0 ? (self[k] = '\0', strrchr(self, '/')) : NULL;
	if (slash) {
		snprintf(out, n, "%.*s/ehelf-server", (int)(slash - self), self);
		if (access(out, X_OK) == 0)
			return;
	}
	snprintf(out, n, "ehelf-server");
}

static void print_text(const totals *t, const pkg_set *set, const opts *o)
{
	printf("ehelf-pkg: %zu packages (%zu built, %zu unchanged, %zu failed); "
	       "the repository %s holds %zu -ehelf packages, %.1f MiB, for "
	       "%.1f MiB of .eh_frame and .eh_frame_hdr, in %.1f s\n",
	       t->selected, t->built, t->unchanged, t->failed, o->repo, t->in_repo,
	       (double)t->repo_bytes / 1048576.0,
	       (double)(t->eh_frame + t->eh_frame_hdr) / 1048576.0, t->seconds);
	for (int i = 0; i < SKIP_COUNT; i++)
		if (set->skipped[i])
			printf("  left out: %u, %s\n", set->skipped[i],
			       pkg_skip_reason_str(i));
	if (t->stale)
		printf("  left out: %u, installed packages since upgraded or "
		       "removed (run ehelf-batch again)\n", t->stale);
	if (t->shared)
		printf("  %zu build-IDs shipped by several packages, each carried by "
		       "one (docs/packaging.md)\n", t->shared);
	const char *url = o->url ? o->url : "http://localhost:8003/debian";
	char server[PATH_MAX + 16];
	server_command(server, sizeof server);
	printf("Serve it: %s --store %s --repo %s\n"
	       "  (the repository under /debian/, port 8003), or any static HTTP "
	       "server over %s\n", server, o->store, o->repo, o->repo);
	printf("Add it to apt, as root:\n");
	if (o->gpg_key)
		printf("  install -m 644 %s/ehelf-archive-keyring.gpg "
		       "/usr/share/keyrings/\n"
		       "  echo 'deb [signed-by=/usr/share/keyrings/"
		       "ehelf-archive-keyring.gpg] %s %s main' "
		       ">/etc/apt/sources.list.d/ehelf.list\n", o->repo, url,
		       o->suite);
	else
		printf("  echo 'deb [trusted=yes] %s %s main' "
		       ">/etc/apt/sources.list.d/ehelf.list   "
		       "(unsigned: give --gpg-key)\n", url, o->suite);
	printf("  apt update && apt install libc6-ehelf\n");
}

/* ---- main -------------------------------------------------------------- */

static int parse(int argc, char **argv, opts *o)
{
	enum { O_SUITE = 256, O_JSON, O_URL };
	static const struct option lo[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "suite", required_argument, NULL, O_SUITE },
		{ "gpg-key", required_argument, NULL, 'k' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "url", required_argument, NULL, O_URL },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (opts){ .suite = "ehelf", .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN) };
	int c;
	while ((c = getopt_long(argc, argv, "s:d:o:k:j:h", lo, NULL)) != -1) {
		char *end;
		switch (c) {
		case 's': o->store = optarg; break;
		case 'd': o->db = optarg; break;
		case 'o': o->repo = optarg; break;
		case 'k': o->gpg_key = optarg; break;
		case O_SUITE: o->suite = optarg; break;
		case O_URL: o->url = optarg; break;
		case O_JSON: o->json = true; break;
		case 'j':
			o->jobs = (int)strtol(optarg, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 1024) {
				fprintf(stderr, "ehelf-pkg: --jobs: '%s' is not a number "
					"from 1 to 1024\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (!o->store || !o->repo) {
		fprintf(stderr, "ehelf-pkg: --store and --out are required\n");
		usage(stderr);
		return 2;
	}
	if (!*o->suite || strspn(o->suite, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+")
	    != strlen(o->suite)) {
		fprintf(stderr, "ehelf-pkg: --suite: '%s' is not a suite name "
			"(letters, digits and .-_+)\n", o->suite);
		return 2;
	}
	o->names = argv + optind;
	o->n_names = argc - optind;
	if (o->jobs < 1)
		o->jobs = 1;
	return 0;
}

/* SOURCE_DATE_EPOCH, or DEFAULT_EPOCH set for the children; -1 if bad. */
static long long source_date_epoch(bool *given)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	*given = s && *s;
	if (!*given) {
		char v[32];
		snprintf(v, sizeof v, "%d", DEFAULT_EPOCH);
		setenv("SOURCE_DATE_EPOCH", v, 1);
		return DEFAULT_EPOCH;
	}
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	return *end || errno || v < 0 ? -1 : v;
}

/* REPO/.ehelf-pkg (SCRATCH), created, and locked against another
 * ehelf-pkg; the lock's descriptor, or -1 after a message. */
static int lock_repo(const char *scratch)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof path, "%s/lock", scratch);
	if (pkg_mkdirs(scratch) < 0) {
		fprintf(stderr, "ehelf-pkg: %s: %s\n", scratch, strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "ehelf-pkg: %s: %s\n", path,
			errno == EWOULDBLOCK ? "another ehelf-pkg is writing this "
			"repository" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Queue the selected packages whose key or .deb changed; count them all
 * in T and mark the unchanged ones live in STATE. */
static void plan(pkg_queue *q, pkg_set *set, pkg_state *state, long long epoch,
		 totals *t)
{
	for (size_t i = 0; i < set->n; i++) {
		pkg *p = &set->pkgs[i];
		if (!p->selected)
			continue;
		t->selected++;
		for (size_t k = 0; k < p->n_elf; k++) {
			const pkg_elf *e = &set->elfs[p->elf[k]];
			t->ehelf_bytes += e->size;
			t->eh_frame += e->eh_frame;
			t->eh_frame_hdr += e->eh_frame_hdr;
		}
		pkg_job *j = &q->jobs[q->n];
		pkg_state_key(set, p, epoch, j->key);
		pkg_state_entry *e = pkg_state_find(state, p->name, p->version,
						    p->arch);
		if (e && strcmp(e->key, j->key) == 0 &&
		    is_file(q->env.repo, e->pool_path)) {
			e->live = true;
			t->unchanged++;
			continue;
		}
		j->p = p;
		q->n++;
	}
}

/* Record the built packages in STATE, report the failures (an earlier good
 * build of the same version stays).  Returns 1 if a package failed. */
static int record(const pkg_queue *q, pkg_state *state, totals *t)
{
	int status = 0;
	for (size_t i = 0; i < q->n; i++) {
		const pkg_job *j = &q->jobs[i];
		pkg_state_entry *e;
		if (j->err.code == 0) {
			if ((e = pkg_state_put(state, j->p, j->key, j->pool_path)))
				e->live = true;
			t->built++;
			continue;
		}
		fprintf(stderr, "ehelf-pkg: %s: no package made: %s\n", j->p->name,
			j->err.msg);
		t->failed++;
		status = 1;
		e = pkg_state_find(state, j->p->name, j->p->version, j->p->arch);
		if (e && is_file(q->env.repo, e->pool_path))
			e->live = true;
	}
	return status;
}

int main(int argc, char **argv)
{
	opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	umask(022);
	bool epoch_given;
	long long epoch = source_date_epoch(&epoch_given);
	if (epoch < 0) {
		fprintf(stderr, "ehelf-pkg: SOURCE_DATE_EPOCH='%s' is not a number "
			"of seconds\n", getenv("SOURCE_DATE_EPOCH"));
		return 2;
	}
	ehelf_err err = { 0 };
	if (o.gpg_key && pkg_repo_check_key(o.gpg_key, &err) < 0) {
		fprintf(stderr, "ehelf-pkg: %s\n", err.msg);
		return 2;
	}
	double start = pkg_now();
	char db[PATH_MAX], scratch[PATH_MAX], state_path[PATH_MAX + 8];
	snprintf(db, sizeof db, "%s/ehelf.sqlite", o.store);
	snprintf(scratch, sizeof scratch, "%s/.ehelf-pkg", o.repo);
	snprintf(state_path, sizeof state_path, "%s/state", scratch);
	int lock = lock_repo(scratch);
	if (lock < 0)
		return 1;

	pkg_set set;
	if (pkg_db_load(&set, o.db ? o.db : db, &err) < 0) {
		fprintf(stderr, "ehelf-pkg: %s\n", err.msg);
		return 1;
	}
	pkg_dpkg *dpkg = NULL;
	if (pkg_dpkg_load(&dpkg, &err) < 0)
		fprintf(stderr, "ehelf-pkg: warning: this machine's packages are "
			"unknown (%s): packages of format 'installed' are left out\n",
			err.msg);
	totals t = { 0 };
	t.stale = drop_stale_installed(&set, dpkg);
	t.shared = pkg_owner_assign(&set, rank_of, dpkg);
	int status = select_packages(&set, &o);

	pkg_state state;
	if (pkg_state_load(&state, state_path, &err) < 0) {
		fprintf(stderr, "ehelf-pkg: %s\n", err.msg);
		return 1;
	}
	/* a run naming packages leaves the others as they are */
	for (size_t i = 0; i < state.n; i++)
		state.e[i].live = o.n_names > 0;
	pkg_queue q = { .set = &set, .dpkg = dpkg,
		    .env = { o.store, o.repo, scratch, epoch } };
	if (!(q.jobs = calloc(set.n ? set.n : 1, sizeof *q.jobs))) {
		fprintf(stderr, "ehelf-pkg: out of memory\n");
		return 1;
	}
	plan(&q, &set, &state, epoch, &t);
	pkg_queue_run(&q, o.jobs);
	status |= record(&q, &state, &t);
	if ((o.n_names == 0 && pkg_repo_prune(o.repo, &state, &err) < 0) ||
	    pkg_state_save(&state, state_path, true, &err) < 0) {
		fprintf(stderr, "ehelf-pkg: %s\n", err.msg);
		status = 1;
	}
	pkg_repo_opts ro = { o.repo, o.suite, o.gpg_key,
			     epoch_given ? epoch : (long long)time(NULL) };
	if (pkg_repo_index(&ro, &t.in_repo, &t.repo_bytes, &err) < 0) {
		fprintf(stderr, "ehelf-pkg: the repository's indices: %s\n", err.msg);
		status = 1;
	}
	t.seconds = pkg_now() - start;
	if (o.json)
		print_json(&t, &set);
	else
		print_text(&t, &set, &o);
	free(q.jobs);
	pkg_state_free(&state);
	pkg_dpkg_free(dpkg);
	pkg_set_free(&set);
	close(lock);
	return status;
}
