/*
 * slowloris - hold many connections to an HTTP server open with requests
 * that never finish: each sends a request line, then one byte of a header
 * every INTERVAL_MS milliseconds, for SECONDS seconds.  Used by
 * run-server-tests.sh to check that such clients neither stop the server
 * from answering others nor outlive its timeouts when they go quiet.
 *
 * Usage: slowloris PORT CONNECTIONS SECONDS INTERVAL_MS [MODE [PATH]]
 * MODE (default header):
 *   header   a request line, then one header byte an interval
 *   body     complete headers of a GET with Content-Length: 1000000000,
 *            then one body byte an interval
 *   chunked  the same with Transfer-Encoding: chunked, a 1-byte chunk an
 *            interval
 *   reader   a complete GET of PATH, whose answer it reads one byte an
 *            interval (receive buffer 1 KiB)
 * INTERVAL_MS 0: send (or read) nothing after the start (idle clients).
 * Prints "opened N, closed by the server M" and exits 0; 1 when fewer
 * than CONNECTIONS could be opened; 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: slowloris PORT CONNECTIONS SECONDS "
			"INTERVAL_MS [header|body|chunked|reader [PATH]]\n");
		return 2;
	}
	const char *mode = argc > 5 ? argv[5] : "header";
	const char *path = argc > 6 ? argv[6] : "/";
	char start[1024];
	const char *drip = "a";
	bool reader = false;
	if (!strcmp(mode, "header")) {
		snprintf(start, sizeof start, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "X-Slow: ");
	} else if (!strcmp(mode, "body")) {
		snprintf(start, sizeof start, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Content-Length: 1000000000\r\n\r\n");
	} else if (!strcmp(mode, "chunked")) {
		snprintf(start, sizeof start, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n");
		drip = "1\r\na\r\n";
	} else if (!strcmp(mode, "reader")) {
		snprintf(start, sizeof start, "GET %s HTTP/1.1\r\nHost: 127.0.0.1"
			 "\r\n\r\n", path);
		reader = true;
	} else {
		fprintf(stderr, "slowloris: unknown mode %s\n", mode);
		return 2;
	}
	int port = atoi(argv[1]), n = atoi(argv[2]);
	double seconds = atof(argv[3]), interval = atof(argv[4]) / 1000;
	bool idle = interval == 0;
	if (idle)
		interval = 0.1;
	if (port <= 0 || n <= 0 || seconds <= 0 || interval < 0) {
		fprintf(stderr, "slowloris: bad arguments\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	int *fds = calloc((size_t)n, sizeof *fds);
	if (!fds)
		return 1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	int opened = 0;
	int rcvbuf = 1024;
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] >= 0 && reader)
			setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				   sizeof rcvbuf);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&sa,
					  sizeof sa) < 0 ||
		    send(fds[i], start, strlen(start), MSG_NOSIGNAL) < 0) {
			fprintf(stderr, "slowloris: connection %d: %s\n", i,
				strerror(errno));
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
			continue;
		}
		opened++;
	}
	double end = now() + seconds;
	int closed = 0;
	while (now() < end) {
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			/* the server closed it (EOF or reset), or an answer
			 * came (read whole, but by a reader a byte at a time) */
			struct pollfd p = { fds[i], POLLIN, 0 };
			char buf[512];
			size_t take = reader ? (idle ? 0 : 1) : sizeof buf;
			if (take && poll(&p, 1, 0) > 0 &&
			    recv(fds[i], buf, take, MSG_DONTWAIT) <= 0) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
				continue;
			}
			if (!idle && !reader &&
			    send(fds[i], drip, strlen(drip), MSG_NOSIGNAL) < 0) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
			}
		}
		usleep((useconds_t)(interval * 1e6));
	}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	printf("opened %d, closed by the server %d\n", opened, closed);
	return opened == n ? 0 : 1;
}
