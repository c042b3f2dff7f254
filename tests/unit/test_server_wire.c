/* test_server_wire.c - the raw checks of request heads (server/wire.h)
 * on a real socket pair, the head delivered whole, in pieces and a byte
 * at a time: what passes, what is refused (the 400 on the wire, the read
 * reset), and where scanning stops. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../server/wire.h"
#include "unit.h"

typedef struct result {
	size_t passed;     /* bytes recv() handed over */
	bool reset;        /* a recv() failed with ECONNRESET */
	char answer[512];  /* what the server side sent back */
} result;

/* Send HEAD (LEN bytes) into a watched socket in pieces of STEP bytes,
 * reading each piece through recv(); then collect the answer. */
static result run(const char *head, size_t len, size_t step)
{
	result r = { 0 };
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return r;
	wire_watch(sv[0]);
	char buf[4096];
	for (size_t off = 0; off < len && !r.reset; off += step) {
		size_t n = len - off < step ? len - off : step;
		if (send(sv[1], head + off, n, MSG_NOSIGNAL) != (ssize_t)n)
			break;
		size_t want = n;
		while (want && !r.reset) {
			ssize_t got = recv(sv[0], buf, sizeof buf, MSG_DONTWAIT);
			if (got < 0 && errno == ECONNRESET)
				r.reset = true;
			else if (got <= 0)
				break; /* held back: a cut after a good head */
			else {
				r.passed += (size_t)got;
				want -= (size_t)got < want ? (size_t)got : want;
			}
		}
	}
	if (!r.reset) { /* a refusal held for the next read */
		ssize_t got = recv(sv[0], buf, sizeof buf, MSG_DONTWAIT);
		r.reset = got < 0 && errno == ECONNRESET;
	}
	ssize_t a = recv(sv[1], r.answer, sizeof r.answer - 1, MSG_DONTWAIT);
	r.answer[a > 0 ? a : 0] = '\0';
	wire_unwatch(sv[0]);
	close(sv[0]);
	close(sv[1]);
	return r;
}

#define HEAD "GET / HTTP/1.1\r\nHost: x\r\n"

static void good(const char *head, size_t len)
{
	for (size_t step = 1; step <= len; step = step * 3 + 1) {
		result r = run(head, len, step);
		CHECK(!r.reset);
		CHECK(r.passed == len);
		CHECK(r.answer[0] == '\0');
	}
}

static void refused(const char *head, size_t len, const char *why)
{
	for (size_t step = 1; step <= len; step = step * 3 + 1) {
		result r = run(head, len, step);
		CHECK(r.reset);
		CHECK(!strncmp(r.answer, "HTTP/1.1 400 Bad Request\r\n", 26));
		CHECK_CONTAINS(r.answer, why);
		/* one response: one status line */
		CHECK(strstr(r.answer + 1, "HTTP/1.1") == NULL);
	}
}

#define GOOD(s) good(s, sizeof s - 1)
#define REFUSED(s, why) refused(s, sizeof s - 1, why)

int main(void)
{
	metrics m;
	metrics_init(&m);
	CHECK(wire_init(&m) == 0);

	GOOD(HEAD "\r\n");
	GOOD("\r\n\r\n" HEAD "\r\n");                  /* empty lines first */
	GOOD(HEAD "Content-Length: 0\r\n\r\n" HEAD "\r\n");
	GOOD(HEAD "content-length:  00 \r\nX-A: a\tb\r\n\r\n");
	GOOD(HEAD "X-Content-Length: -1\r\n\r\n");     /* another header */
	GOOD(HEAD "Content-Lengthy: -1\r\n\r\n");
	/* a body is announced: not scanned after its head (the handler
	 * refuses it), so bytes of it pass */
	GOOD(HEAD "Content-Length: 5\r\n\r\na\0b\0c");
	GOOD(HEAD "Transfer-Encoding: chunked\r\n\r\n1\r\n\0\r\n");

	REFUSED(HEAD "Content-Length: -1\r\n\r\n", "malformed Content-Length");
	REFUSED(HEAD "CONTENT-LENGTH: 1x\r\n\r\n", "malformed Content-Length");
	REFUSED(HEAD "Content-Length:\r\n\r\n", "malformed Content-Length");
	REFUSED(HEAD "Content-Length: 1 2\r\n\r\n", "malformed Content-Length");
	REFUSED(HEAD "Content-Length: 12345678901234567890\r\n\r\n",
		"more than 19 digits");
	REFUSED(HEAD "X-A: a\0b\r\n\r\n", "NUL");
	REFUSED("GET /a\0b HTTP/1.1\r\n\r\n", "NUL");
	REFUSED(HEAD "X-\0A: b\r\n\r\n", "NUL");
	REFUSED(HEAD "X-A: a\r\n b\r\n\r\n", "obsolete line folding");
	REFUSED(HEAD "X-A: a\r\n\tb\r\n\r\n", "obsolete line folding");

	/* a bad head pipelined behind a good one, in one read: the good one
	 * is handed over whole, the refusal comes at the next read */
	static const char two[] = HEAD "\r\n" HEAD "X-A: \0\r\n\r\n";
	result r = run(two, sizeof two - 1, sizeof two - 1);
	CHECK(r.passed == sizeof HEAD + 1);
	CHECK(r.reset);
	CHECK_CONTAINS(r.answer, "NUL");

	/* an unwatched descriptor passes anything */
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	char buf[64];
	CHECK(send(sv[1], "a\0b\r\n\r\n", 7, 0) == 7);
	CHECK(recv(sv[0], buf, sizeof buf, 0) == 7);
	close(sv[0]);
	close(sv[1]);

	/* each refusal is counted as a 400 of route "other" */
	CHECK(atomic_load(&m.requests[ROUTE_UNKNOWN][2]) > 0);
	UNIT_DONE("test_server_wire");
}
