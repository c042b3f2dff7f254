/*
 * conditional.h - HTTP dates and conditional requests (RFC 9110 13.1,
 * 13.2.2): If-None-Match wins over If-Modified-Since; a match answers 304.
 */
#ifndef EHELF_SERVER_CONDITIONAL_H
#define EHELF_SERVER_CONDITIONAL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum { HTTP_DATE_MAX = 32 };

/* T as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") into OUT. */
void http_date(time_t t, char out[HTTP_DATE_MAX]);

/* Parse an HTTP date in any of the three forms RFC 9110 5.6.7 asks a
 * recipient to read: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), RFC
 * 850 ("Sunday, 06-Nov-94 08:49:37 GMT", its two-digit year never more
 * than 50 years ahead) and asctime ("Sun Nov  6 08:49:37 1994").
 * Returns 0, or -1 when S is none of them (the header is then ignored). */
int http_date_parse(const char *s, time_t *t);

/* Does a request with these headers (either may be NULL) already hold the
 * representation whose ETag is ETAG (quoted, weak with a W/ prefix) and
 * whose modification time is MTIME?  If-None-Match compares weakly. */
bool conditional_not_modified(const char *if_none_match,
			      const char *if_modified_since, const char *etag,
			      time_t mtime);

#endif
