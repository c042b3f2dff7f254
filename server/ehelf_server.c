/*
 * ehelf-server - serve a store of eh_elfs over HTTP by GNU build-ID,
 * debuginfod style, and build on demand what upstream debuginfod servers
 * know and the store lacks.  The API, the headers and the limits are in
 * docs/server.md; the modules: route (what a path names), artifact (the
 * files, beneath the store), index (the database ehelf-batch writes),
 * ondemand + upstream + build_child (builds), http (libmicrohttpd),
 * wire (the raw checks of request heads), metrics and status_page.
 *
 * Exit status: 0 stopped by SIGTERM or SIGINT, 1 cannot serve (store,
 * database, address), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/sign.h"
#include "artifact.h"
#include "http.h"
#include "index.h"
#include "metrics.h"
#include "ondemand.h"
#include "repo.h"
#include "wire.h"
#include "../store/layout.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-server --store DIR [--db FILE] [--listen ADDR] [--port N]\n"
	      "                    [--port-file FILE] [-j N] [--threads N]\n"
	      "                    [--upstream URLS] [--sign-key KEY]\n"
	      "                    [--max-connections N] [--timeout S] [--repo DIR]\n"
	      "                    [--max-download MIB]\n"
	      "                    [--verbose]\n"
	      "\n"
	      "Serve the eh_elfs of a store that ehelf-batch wrote over HTTP, by\n"
	      "GNU build-ID: GET/HEAD /buildid/HEX/eh_elf and /buildid/HEX/eh_elf.sig,\n"
	      "/metrics (Prometheus) and / (status).  With upstream debuginfod\n"
	      "servers, an eh_elf the store lacks is built on demand: the ELF is\n"
	      "fetched, compiled by ehelf-compile in a child process under limits,\n"
	      "signed, stored and served.  Without them the store is only read.\n"
	      "\n"
	      "  -s, --store DIR          the store (DIR/.build-id/XX/REST.so)\n"
	      "  -d, --db FILE            its database (default: DIR/ehelf.sqlite;\n"
	      "                           served without it if absent)\n"
	      "  -l, --listen ADDR        numeric IPv4/IPv6 address (default: all)\n"
	      "  -p, --port N             port (default 8003; 0: any free port)\n"
	      "      --port-file FILE     write the port to FILE once listening\n"
	      "  -j, --jobs N             on-demand compiles at once (default: cores;\n"
	      "                           4 x N builds fetch at once)\n"
	      "      --threads N          HTTP threads (default: cores)\n"
	      "  -u, --upstream URLS      space-separated debuginfod URLs to build\n"
	      "                           from (default: $DEBUGINFOD_URLS; \"\": none)\n"
	      "      --sign-key KEY       sign on-demand builds with this Ed25519 PEM\n"
	      "                           private key (docs/signatures.md)\n"
	      "      --repo DIR           also serve this apt repository (ehelf-pkg\n"
	      "                           --out DIR) under /debian/\n"
	      "      --max-connections N  above N open connections, answer 503\n"
	      "                           (default 1024)\n"
	      "      --timeout S          close connections idle for S seconds\n"
	      "                           (default 15)\n"
	      "      --negative-ttl S     remember failed builds and IDs no upstream\n"
	      "                           has for S seconds (default 600)\n"
	      "      --max-queue N        builds waiting beyond the running ones;\n"
	      "                           more: 503 (default 64)\n"
	      "      --build-timeout S    wall-clock limit of one build, upstream\n"
	      "                           fetches included (default 120)\n"
	      "      --build-cpu S        CPU-time limit of one compile (default 60)\n"
	      "      --build-memory MIB   address-space limit of one compile\n"
	      "                           (default 4096; 0: none, for a compiler\n"
	      "                           built with AddressSanitizer)\n"
	      "      --max-download MIB   largest file fetched from upstream\n"
	      "                           (default 1024; 0: no limit)\n"
	      "      --compiler PATH      ehelf-compile (default: beside this program)\n"
	      "  -v, --verbose            log each request and build on stderr\n"
	      "  -h, --help               show this help\n"
	      "\n"
	      "Stops on SIGTERM or SIGINT.  Exit status: 0 stopped, 1 cannot serve,\n"
	      "2 usage.\n", out);
}

/* A positive integer option; exits 2 on a bad value. */
static long number(const char *opt, const char *s, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "ehelf-server: %s: '%s' is not a number from %ld "
			"to %ld\n", opt, s, min, max);
		exit(2);
	}
	return v;
}

/* ehelf-compile beside this program. */
static int default_compiler(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return -1;
	self[len] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(out, n, "%s/ehelf-compile", self) < (int)n ? 0 : -1;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* libdebuginfod reads its configuration from the environment: set it
 * before any thread starts. */
static int configure_upstream(const char *store, const char *urls,
			      double negative_ttl, long max_download_mib,
			      char cache[PATH_MAX])
{
	/* libdebuginfod's downloads: where the environment says, else in
	 * the store (writable when building on demand) */
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	if (env && *env)
		snprintf(cache, PATH_MAX, "%s", env);
	else
		snprintf(cache, PATH_MAX, "%s/.cache/debuginfod", store);
	if (mkdirs(cache) < 0) {
		fprintf(stderr, "ehelf-server: %s: cannot create: %s\n", cache,
			strerror(errno));
		return -1;
	}
	setenv("DEBUGINFOD_URLS", urls, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	/* its per-server timeout (connect, or less than 100 bytes/s); the
	 * whole build's limit, retries included, is the progress
	 * function's (upstream.h) */
	setenv("DEBUGINFOD_TIMEOUT", getenv("DEBUGINFOD_TIMEOUT") ?
	       getenv("DEBUGINFOD_TIMEOUT") : "30", 1);
	char num[32];
	/* a file larger than --max-download is refused from its
	 * Content-Length (and cut by the progress function without one) */
	if (max_download_mib > 0) {
		snprintf(num, sizeof num, "%lld", (long long)max_download_mib << 20);
		setenv("DEBUGINFOD_MAXSIZE", num, 1);
	} else {
		unsetenv("DEBUGINFOD_MAXSIZE");
	}
	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");
	/* libdebuginfod's own negative cache lasts as long as ours */
	char path[PATH_MAX + 32], ttl[32];
	snprintf(path, sizeof path, "%s/cache_miss_s", cache);
	int n = snprintf(ttl, sizeof ttl, "%.0f\n", negative_ttl);
	ehelf_err err = { 0 };
	if (atomic_write(path, NULL, ttl, (size_t)n, &err) < 0) {
		fprintf(stderr, "ehelf-server: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_PORT_FILE = 256, O_THREADS, O_SIGN_KEY, O_MAX_CONN, O_TIMEOUT,
	       O_NEG_TTL, O_MAX_QUEUE, O_BUILD_TIMEOUT, O_BUILD_CPU, O_BUILD_MEM,
	       O_COMPILER, O_REPO, O_MAX_DOWNLOAD };
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, O_PORT_FILE },
		{ "jobs", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "upstream", required_argument, NULL, 'u' },
		{ "sign-key", required_argument, NULL, O_SIGN_KEY },
		{ "max-connections", required_argument, NULL, O_MAX_CONN },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "negative-ttl", required_argument, NULL, O_NEG_TTL },
		{ "max-queue", required_argument, NULL, O_MAX_QUEUE },
		{ "build-timeout", required_argument, NULL, O_BUILD_TIMEOUT },
		{ "build-cpu", required_argument, NULL, O_BUILD_CPU },
		{ "build-memory", required_argument, NULL, O_BUILD_MEM },
		{ "compiler", required_argument, NULL, O_COMPILER },
		{ "max-download", required_argument, NULL, O_MAX_DOWNLOAD },
		{ "repo", required_argument, NULL, O_REPO },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1)
		cores = 1;
	const char *store = NULL, *db = NULL, *listen = NULL, *port_file = NULL,
		   *key_path = NULL, *upstream = getenv("DEBUGINFOD_URLS"),
		   *repo_path = NULL;
	char compiler[PATH_MAX] = "";
	long port = 8003, jobs = cores, threads = cores, max_conn = 1024,
	     timeout = 15, neg_ttl = 600, max_queue = 64, build_timeout = 120,
	     build_cpu = 60, build_mem = 4096, max_download = 1024;
	bool verbose = false;
	int c;
	while ((c = getopt_long(argc, argv, "s:d:l:p:j:u:vh", opts, NULL)) != -1) {
		switch (c) {
		case 's': store = optarg; break;
		case 'd': db = optarg; break;
		case 'l': listen = optarg; break;
		case 'p': port = number("--port", optarg, 0, 65535); break;
		case O_PORT_FILE: port_file = optarg; break;
		case 'j': jobs = number("--jobs", optarg, 1, 1024); break;
		case O_THREADS: threads = number("--threads", optarg, 1, 1024); break;
		case 'u': upstream = optarg; break;
		case O_SIGN_KEY: key_path = optarg; break;
		case O_MAX_CONN:
			max_conn = number("--max-connections", optarg, 1, 1000000);
			break;
		case O_TIMEOUT: timeout = number("--timeout", optarg, 1, 86400); break;
		case O_NEG_TTL:
			neg_ttl = number("--negative-ttl", optarg, 0, 31536000);
			break;
		case O_MAX_QUEUE:
			max_queue = number("--max-queue", optarg, 0, 100000);
			break;
		case O_BUILD_TIMEOUT:
			build_timeout = number("--build-timeout", optarg, 1, 86400);
			break;
		case O_BUILD_CPU:
			build_cpu = number("--build-cpu", optarg, 1, 86400);
			break;
		case O_BUILD_MEM:
			build_mem = number("--build-memory", optarg, 0, 1 << 20);
			if (build_mem > 0 && build_mem < 64) {
				fprintf(stderr, "ehelf-server: --build-memory: at "
					"least 64 MiB, or 0 for no limit\n");
				return 2;
			}
			break;
		case O_COMPILER: snprintf(compiler, sizeof compiler, "%s", optarg);
			break;
		case O_REPO: repo_path = optarg; break;
		case O_MAX_DOWNLOAD:
			max_download = number("--max-download", optarg, 0, 1 << 20);
			break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !store) {
		fprintf(stderr, "ehelf-server: %s\n", optind != argc ?
			"unexpected argument" : "--store DIR is required");
		usage(stderr);
		return 2;
	}
	bool ondemand_on = upstream && *upstream;
	if (!compiler[0] && default_compiler(compiler, sizeof compiler) < 0) {
		fprintf(stderr, "ehelf-server: cannot find ehelf-compile: give "
			"--compiler\n");
		return 2;
	}
	if (ondemand_on && access(compiler, X_OK) != 0) {
		fprintf(stderr, "ehelf-server: %s: %s (needed for on-demand "
			"builds; give --compiler)\n", compiler, strerror(errno));
		return 2;
	}
	ehelf_err err = { 0 };
	sign_key *key = NULL;
	if (key_path && sign_key_load(&key, key_path, &err) < 0) {
		fprintf(stderr, "ehelf-server: --sign-key: %s\n", err.msg);
		return 2;
	}
	if (key_path && !ondemand_on)
		fprintf(stderr, "ehelf-server: note: --sign-key signs on-demand "
			"builds only, and there is no --upstream\n");

	/* every thread inherits this mask: signals are taken by sigwait */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* connections are descriptors: as many as allowed */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}

	int status = 1;
	metrics m;
	metrics_init(&m);
	/* the raw checks of request heads (wire.h), sized for that limit */
	if (wire_init(&m) < 0) {
		fprintf(stderr, "ehelf-server: cannot set up the checks of request "
			"heads (out of memory?)\n");
		return 1;
	}

	char ids[PATH_MAX], dbpath[PATH_MAX];
	snprintf(ids, sizeof ids, "%s/" STORE_LAYOUT_DIR, store);
	snprintf(dbpath, sizeof dbpath, "%s", db ? db : "");
	if (!db)
		snprintf(dbpath, sizeof dbpath, "%s/ehelf.sqlite", store);
	char cache[PATH_MAX] = "";
	if (ondemand_on && (mkdirs(ids) < 0 ||
			    configure_upstream(store, upstream, (double)neg_ttl,
					       max_download, cache) < 0)) {
		fprintf(stderr, "ehelf-server: %s: cannot prepare the store for "
			"on-demand builds: %s\n", store, strerror(errno));
		return 1;
	}
	server_index *ix = NULL;
	artifact_store *as = NULL;
	ondemand *od = NULL;
	http_server *http = NULL;
	repo *rp = NULL;
	if (repo_path && repo_open(&rp, repo_path, &err) < 0) {
		fprintf(stderr, "ehelf-server: %s\n", err.msg);
		goto out;
	}
	int rc = index_open(&ix, dbpath, ondemand_on, &err);
	if (rc == ERR_NOTFOUND && db) {
		fprintf(stderr, "ehelf-server: --db: %s\n", err.msg);
		goto out;
	}
	if (rc < 0 && rc != ERR_NOTFOUND) {
		fprintf(stderr, "ehelf-server: %s\n", err.msg);
		goto out;
	}
	if (artifact_store_open(&as, store, index_sha256, ix, &m, &err) < 0) {
		fprintf(stderr, "ehelf-server: %s\n", err.msg);
		goto out;
	}
	if (ondemand_on) {
		ondemand_opts oo = {
			.store = store, .upstream = upstream, .compiler = compiler,
			.key = key, .index = ix, .artifacts = as, .metrics = &m,
			.jobs = (int)jobs, .max_queue = (int)max_queue,
			.negative_ttl = (double)neg_ttl, .verbose = verbose,
			.cache = cache,
			.max_download = (uint64_t)max_download << 20,
			.limits = { .cpu_seconds = (unsigned)build_cpu,
				    .memory_bytes = build_mem ? (uint64_t)build_mem << 20
							      : RLIM_INFINITY,
				    .file_bytes = 1ull << 30,
				    .wall_seconds = (double)build_timeout },
		};
		if (ondemand_start(&od, &oo, &err) < 0) {
			fprintf(stderr, "ehelf-server: %s\n", err.msg);
			goto out;
		}
	}
	http_opts ho = {
		.listen = listen, .port = (unsigned)port, .threads = (int)threads,
		.max_connections = (unsigned)max_conn, .timeout = (unsigned)timeout,
		.verbose = verbose, .artifacts = as, .index = ix, .ondemand = od,
		.metrics = &m, .store = store, .repo = rp,
		.upstream = ondemand_on ? upstream : NULL,
		.signing_key = key ? sign_key_id(key) : NULL,
	};
	if (http_start(&http, &ho, &err) < 0) {
		fprintf(stderr, "ehelf-server: %s\n", err.msg);
		goto out;
	}
	if (port_file) {
		char text[16];
		int n = snprintf(text, sizeof text, "%u\n", http_port(http));
		if (atomic_write(port_file, NULL, text, (size_t)n, &err) < 0) {
			fprintf(stderr, "ehelf-server: --port-file: %s\n", err.msg);
			goto out;
		}
	}
	fprintf(stderr, "ehelf-server: serving %s on port %u%s%s%s\n", store,
		http_port(http), ix ? "" : " (no index database)",
		ondemand_on ? "; on-demand builds from " : "; read-only",
		ondemand_on ? upstream : "");
	int sig = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	fprintf(stderr, "ehelf-server: %s: stopping\n", strsignal(sig));
	status = 0;
out:
	ondemand_stop(od);     /* parked requests answered 503 */
	http_stop(http);
	ondemand_free(od);
	artifact_store_close(as);
	index_close(ix);
	repo_close(rp);
	sign_key_free(key);
	return status;
}
