/* test_server_route.c - what ehelf-server makes of a request before it
 * touches anything: the route of a path, HTTP dates, conditional
 * requests. */
#include <string.h>

#include "../../server/conditional.h"
#include "../../server/route.h"
#include "unit.h"

static route_kind kind(const char *path)
{
	route r;
	route_parse(path, strlen(path), &r);
	return r.kind;
}

int main(void)
{
	route r;
	const char *id = "0123456789abcdef0123456789abcdef01234567";
	char p[300];
	snprintf(p, sizeof p, "/buildid/%s/eh_elf", id);
	route_parse(p, strlen(p), &r);
	CHECK(r.kind == ROUTE_EHELF);
	CHECK_STR(r.hex, id);
	snprintf(p, sizeof p, "/buildid/%s/eh_elf.sig", id);
	CHECK(kind(p) == ROUTE_SIG);
	snprintf(p, sizeof p, "/buildid/%s/executable", id);
	CHECK(kind(p) == ROUTE_UNKNOWN);
	snprintf(p, sizeof p, "/buildid/%s/eh_elf/x", id);
	CHECK(kind(p) == ROUTE_UNKNOWN);
	CHECK(kind("/") == ROUTE_STATUS);
	CHECK(kind("/metrics") == ROUTE_METRICS);
	CHECK(kind("/metrics/") == ROUTE_UNKNOWN);
	CHECK(kind("/nothing") == ROUTE_UNKNOWN);
	CHECK(kind("/buildid/ab/eh_elf") == ROUTE_EHELF);  /* 2 digits */
	CHECK(kind("/buildid/a/eh_elf") == ROUTE_BAD_ID);
	CHECK(kind("/buildid/abc/eh_elf") == ROUTE_BAD_ID);
	CHECK(kind("/buildid/AB/eh_elf") == ROUTE_BAD_ID);
	CHECK(kind("/buildid/../eh_elf") == ROUTE_BAD_ID);
	CHECK(kind("/buildid//eh_elf") == ROUTE_BAD_ID);
	CHECK(kind("/buildid/") == ROUTE_BAD_ID);
	CHECK(kind("/buildid/zz") == ROUTE_BAD_ID);
	char big[BUILDID_HEX_MAX + 32];
	memset(big, 'a', sizeof big);
	memcpy(big, "/buildid/", 9);
	big[9 + BUILDID_HEX_MAX] = '\0';            /* 128 digits */
	CHECK(kind(big) == ROUTE_UNKNOWN);          /* valid, no artifact */
	big[9 + BUILDID_HEX_MAX] = 'a';
	big[9 + BUILDID_HEX_MAX + 2] = '\0';        /* 130 digits */
	CHECK(kind(big) == ROUTE_BAD_ID);
	/* a NUL decoded into the path: LEN says more than strlen */
	CHECK((route_parse("/buildid/ab\0cd/eh_elf", 21, &r), r.kind) ==
	      ROUTE_UNKNOWN);
	/* the apt repository */
	route_parse("/debian/dists/stable/Release", 28, &r);
	CHECK(r.kind == ROUTE_REPO);
	CHECK_STR(r.rel, "dists/stable/Release");
	CHECK(kind("/debian/pool/main/z/zlib1g-ehelf_1:1.2.13+dfsg~1_amd64.deb")
	      == ROUTE_REPO);
	CHECK(kind("/debian/") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/dists/") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/../etc/passwd") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/dists/../../x") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/./Release") == ROUTE_BAD_PATH);
	CHECK(kind("/debian//Release") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/a b") == ROUTE_BAD_PATH);
	CHECK(kind("/debian/a\\b") == ROUTE_BAD_PATH);
	CHECK(kind("/debian") == ROUTE_UNKNOWN);
	CHECK_STR(route_label(ROUTE_REPO), "repo");
	CHECK_STR(route_label(ROUTE_EHELF), "eh_elf");
	CHECK_STR(route_label(ROUTE_BAD_ID), "bad_id");

	char d[HTTP_DATE_MAX];
	http_date(784111777, d);
	CHECK_STR(d, "Sun, 06 Nov 1994 08:49:37 GMT");
	time_t t;
	CHECK(http_date_parse("Sun, 06 Nov 1994 08:49:37 GMT", &t) == 0);
	CHECK(t == 784111777);
	/* the two obsolete forms RFC 9110 5.6.7 asks a recipient to read */
	t = 0;
	CHECK(http_date_parse("Sunday, 06-Nov-94 08:49:37 GMT", &t) == 0);
	CHECK(t == 784111777);
	t = 0;
	CHECK(http_date_parse("Sun Nov  6 08:49:37 1994", &t) == 0);
	CHECK(t == 784111777);
	CHECK(http_date_parse("Sun Nov 16 08:49:37 1994", &t) == 0);
	CHECK(t == 784111777 + 10 * 86400);
	CHECK(http_date_parse("Sunday, 06-Nov-1994 08:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("Sun, 06-Nov-94 08:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("Sun Nov 6 08:49:37 1994", &t) == -1);
	CHECK(http_date_parse("Sun Nov  6 08:49:37 1994 GMT", &t) == -1);
	CHECK(http_date_parse("Sunday, 06-Xyz-94 08:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("Sun, 06 Nov 1994 08:49:37 UTC", &t) == -1);
	CHECK(http_date_parse("Xyz, 06 Nov 1994 08:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("Sun, 06 Foo 1994 08:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("Sun, 06 Nov 1994 25:49:37 GMT", &t) == -1);
	CHECK(http_date_parse("", &t) == -1);

	const char *etag = "\"abc\"";
	CHECK(conditional_not_modified("\"abc\"", NULL, etag, 100));
	CHECK(conditional_not_modified("W/\"abc\"", NULL, etag, 100));
	CHECK(conditional_not_modified("\"x\", \"abc\"", NULL, etag, 100));
	CHECK(conditional_not_modified("*", NULL, etag, 100));
	CHECK(!conditional_not_modified("\"abcd\"", NULL, etag, 100));
	CHECK(!conditional_not_modified("\"ab", NULL, etag, 100));
	CHECK(!conditional_not_modified("", NULL, etag, 100));
	CHECK(conditional_not_modified("W/\"abc\"", NULL, "W/\"abc\"", 100));
	CHECK(conditional_not_modified("\"abc\"", NULL, "W/\"abc\"", 100));
	/* If-None-Match decides alone when present */
	CHECK(!conditional_not_modified("\"x\"", "Sun, 06 Nov 1994 08:49:37 GMT",
					etag, 100));
	CHECK(conditional_not_modified(NULL, "Sun, 06 Nov 1994 08:49:37 GMT",
				       etag, 784111777));
	CHECK(!conditional_not_modified(NULL, "Sun, 06 Nov 1994 08:49:37 GMT",
					etag, 784111778));
	CHECK(!conditional_not_modified(NULL, "yesterday", etag, 100));
	CHECK(!conditional_not_modified(NULL, NULL, etag, 100));
	UNIT_DONE("test_server_route");
}
