/*
 * soak - hold ehelf-server under a mixed hostile load for a while and
 * measure what good clients see and what the server holds:
 *   - 100 slow headers (a header byte every 500 ms), 50 slow bodies with
 *     Content-Length and 50 chunked (a body byte every 500 ms), and 100
 *     slow readers of PATH (1 KiB receive buffer, a byte every 500 ms),
 *     each reopened when the server closes it (at most 60 opened every
 *     500 ms);
 *   - a flood: 500 connections a second, 300 with a request for an
 *     unknown build-ID never read, 200 closed at once;
 *   - a good client: GET PATH on a new connection every 20 ms, its
 *     latency (connect to the last byte) measured, status and length
 *     checked.
 * Every second it reads the server's resident memory (VmRSS) and open
 * descriptors (/proc/PID/fd); every 5 s window it prints the good
 * requests' p99.  After SECONDS, the load stops; TIMEOUT + 2 s later the
 * descriptors are read once more.
 *
 * Usage: soak PORT PID SECONDS PATH TIMEOUT
 * Exits 0 when every good request got 200 and its whole body, every
 * window's p99 is under 10 ms, the RSS after the first 10 s stays within
 * 4 MiB of its lowest value, the descriptors during the load stay within
 * the hostile connections held (300) and the flood's margin (200) above
 * their start, and after the load within 8 of it; 1 otherwise; 2 on bad
 * usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { WINDOW_S = 5, MAX_SAMPLES = 1024, HOSTILE = 300 };
enum { P99_LIMIT_US = 10000, RSS_SLACK_KB = 4096, FD_FLOOD_MARGIN = 200 };

static int port;
static const char *path;
static atomic_bool stop;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(int rcvbuf)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the hostile connections --------------------------------------------- */

typedef enum kind { K_HEADER, K_BODY, K_CHUNKED, K_READER, K_N } kind;
static const int wanted[K_N] = { 100, 50, 50, 100 };

typedef struct slow {
	int fd;
	kind k;
} slow;

static int open_slow(kind k)
{
	char req[512];
	int fd = dial(k == K_READER ? 1024 : 0);
	if (fd < 0)
		return -1;
	switch (k) {
	case K_HEADER:
		snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
		break;
	case K_BODY:
		snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: x\r\n"
			 "Content-Length: 1000000000\r\n\r\n");
		break;
	case K_CHUNKED:
		snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: x\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n");
		break;
	default:
		snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
		break;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static atomic_uint_fast64_t reopened;

static void *hostile_main(void *arg)
{
	(void)arg;
	slow s[HOSTILE];
	int n = 0;
	for (int k = 0; k < K_N; k++)
		for (int i = 0; i < wanted[k]; i++)
			s[n++] = (slow){ -1, (kind)k };
	while (!atomic_load(&stop)) {
		int opened = 0;
		for (int i = 0; i < n; i++) {
			if (s[i].fd < 0) {
				/* at most 60 a round: 300 within 3 s, not in a
				 * burst the good client would queue behind */
				if (opened < 60) {
					s[i].fd = open_slow(s[i].k);
					opened++;
					atomic_fetch_add(&reopened, 1);
				}
				continue;
			}
			char buf[512];
			struct pollfd p = { s[i].fd, POLLIN, 0 };
			size_t take = s[i].k == K_READER ? 1 : sizeof buf;
			bool gone = false;
			if (poll(&p, 1, 0) > 0 &&
			    recv(s[i].fd, buf, take, MSG_DONTWAIT) <= 0)
				gone = true;
			else if (s[i].k == K_HEADER || s[i].k == K_BODY)
				gone = send(s[i].fd, "a", 1, MSG_NOSIGNAL) < 0;
			else if (s[i].k == K_CHUNKED)
				gone = send(s[i].fd, "1\r\na\r\n", 6, MSG_NOSIGNAL) < 0;
			if (gone) {
				close(s[i].fd);
				s[i].fd = -1;
			}
		}
		usleep(500000);
	}
	for (int i = 0; i < n; i++)
		if (s[i].fd >= 0)
			close(s[i].fd);
	return NULL;
}

/* ---- the flood ------------------------------------------------------------- */

static void *flood_main(void *arg)
{
	(void)arg;
	static const char req[] = "GET /buildid/0123456789abcdef0123456789abcdef01234567"
				  "/eh_elf HTTP/1.1\r\nHost: x\r\n\r\n";
	while (!atomic_load(&stop)) {
		for (int i = 0; i < 5; i++) {
			int fd = dial(0);
			if (fd < 0)
				continue;
			if (i < 3)
				send(fd, req, sizeof req - 1, MSG_NOSIGNAL);
			close(fd);
		}
		usleep(10000);
	}
	return NULL;
}

/* ---- the good client ------------------------------------------------------- */

typedef struct window {
	int us[MAX_SAMPLES];
	int n, errors;
} window;

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static window cur;

/* One GET of PATH: its latency in microseconds, or -1 if it failed. */
static int good_request(void)
{
	char req[512], buf[65536];
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close"
		 "\r\n\r\n", path);
	double t0 = now();
	int fd = dial(0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = { 2, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	ssize_t r;
	while (got < sizeof buf - 1 && (r = recv(fd, buf + got, sizeof buf - 1 - got, 0)) > 0)
		got += (size_t)r;
	close(fd);
	double t = now() - t0;
	buf[got] = '\0';
	char *body = strstr(buf, "\r\n\r\n");
	char *cl = strcasestr(buf, "\r\nContent-Length: ");
	if (strncmp(buf, "HTTP/1.1 200 ", 13) || !body || !cl || cl > body ||
	    (size_t)atol(cl + 18) != got - (size_t)(body + 4 - buf))
		return -1;
	return (int)(t * 1e6);
}

static void *good_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int us = good_request();
		pthread_mutex_lock(&wlock);
		if (us < 0)
			cur.errors++;
		else if (cur.n < MAX_SAMPLES)
			cur.us[cur.n++] = us;
		pthread_mutex_unlock(&wlock);
		usleep(20000);
	}
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* ---- the server's resources ---------------------------------------------------- */

static long rss_kb(int pid)
{
	char p[64], line[256];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	FILE *f = fopen(p, "r");
	long kb = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static int open_fds(int pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/fd", pid);
	DIR *d = opendir(p);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: soak PORT PID SECONDS PATH TIMEOUT\n");
		return 2;
	}
	port = atoi(argv[1]);
	int pid = atoi(argv[2]), seconds = atoi(argv[3]), timeout = atoi(argv[5]);
	path = argv[4];
	if (port <= 0 || pid <= 0 || seconds < 2 * WINDOW_S || timeout <= 0) {
		fprintf(stderr, "soak: bad arguments\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fds0 = open_fds(pid);
	long rss0 = rss_kb(pid);
	if (fds0 < 0 || rss0 < 0) {
		fprintf(stderr, "soak: cannot read /proc/%d\n", pid);
		return 1;
	}
	pthread_t th[3];
	pthread_create(&th[0], NULL, hostile_main, NULL);
	pthread_create(&th[1], NULL, flood_main, NULL);
	pthread_create(&th[2], NULL, good_main, NULL);
	bool ok = true;
	long rss_min = -1, rss_max = -1;
	int fds_max = 0, total = 0, errors = 0, worst_p99 = 0;
	double t0 = now();
	for (int w = 0; w < seconds / WINDOW_S; w++) {
		for (int s = 0; s < WINDOW_S; s++) {
			usleep(1000000);
			long rss = rss_kb(pid);
			int fds = open_fds(pid);
			if (rss < 0 || fds < 0) {
				fprintf(stderr, "soak: the server is gone\n");
				atomic_store(&stop, true);
				return 1;
			}
			if (now() - t0 >= 10) {
				rss_min = rss_min < 0 || rss < rss_min ? rss : rss_min;
				rss_max = rss > rss_max ? rss : rss_max;
			}
			fds_max = fds > fds_max ? fds : fds_max;
		}
		pthread_mutex_lock(&wlock);
		window win = cur;
		cur.n = cur.errors = 0;
		pthread_mutex_unlock(&wlock);
		qsort(win.us, (size_t)win.n, sizeof win.us[0], cmp_int);
		int p99 = win.n ? win.us[(win.n * 99) / 100] : 0;
		total += win.n;
		errors += win.errors;
		worst_p99 = p99 > worst_p99 ? p99 : worst_p99;
		printf("soak: %3d s: %d good requests, %d failed, p99 %.2f ms, "
		       "max %.2f ms; server RSS %ld KiB, %d descriptors\n",
		       (w + 1) * WINDOW_S, win.n, win.errors, p99 / 1000.0,
		       win.n ? win.us[win.n - 1] / 1000.0 : 0.0, rss_kb(pid),
		       open_fds(pid));
		if (win.errors || !win.n || p99 >= P99_LIMIT_US)
			ok = false;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	sleep((unsigned)timeout + 2);
	int fds_end = open_fds(pid);
	printf("soak: %d good requests, %d failed, worst window p99 %.2f ms; "
	       "hostile connections opened %llu; RSS %ld KiB at start, %ld..%ld "
	       "KiB after 10 s; descriptors %d at start, at most %d, %d after\n",
	       total, errors, worst_p99 / 1000.0,
	       (unsigned long long)atomic_load(&reopened), rss0, rss_min,
	       rss_max, fds0, fds_max, fds_end);
	if (rss_max - rss_min > RSS_SLACK_KB) {
		printf("soak: FAIL: the RSS grew by %ld KiB\n", rss_max - rss_min);
		ok = false;
	}
	if (fds_max > fds0 + HOSTILE + FD_FLOOD_MARGIN || fds_end < 0 ||
	    fds_end > fds0 + 8) {
		printf("soak: FAIL: descriptors not bounded or not released\n");
		ok = false;
	}
	if (errors || worst_p99 >= P99_LIMIT_US)
		printf("soak: FAIL: %d good requests failed, worst p99 %.2f ms "
		       "(limit %.0f)\n", errors, worst_p99 / 1000.0,
		       P99_LIMIT_US / 1000.0);
	return ok ? 0 : 1;
}
