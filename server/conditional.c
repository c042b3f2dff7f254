/* conditional.c - see conditional.h. */
#define _GNU_SOURCE /* timegm, strptime */
#include "conditional.h"

#include <stdio.h>
#include <string.h>

void http_date(time_t t, char out[HTTP_DATE_MAX])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	/* strftime's %a and %b follow the locale: spell them out */
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu",
					 "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May",
					    "Jun", "Jul", "Aug", "Sep", "Oct",
					    "Nov", "Dec" };
	char rest[16];
	strftime(rest, sizeof rest, "%H:%M:%S", &tm);
	snprintf(out, HTTP_DATE_MAX, "%s, %02d %s %04d %s GMT", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, rest);
}

int http_date_parse(const char *s, time_t *t)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char mon[4];
	int day, year, h, m, sec, used = -1;
	/* "Sun, 06 Nov 1994 08:49:37 GMT": 29 characters exactly */
	if (strlen(s) != 29 || s[3] != ',' || s[4] != ' ')
		return -1;
	char wday[4] = { s[0], s[1], s[2], '\0' };
	const char *w = strstr(days, wday);
	if (!w || (w - days) % 3 ||
	    sscanf(s + 5, "%2d %3s %4d %2d:%2d:%2d GMT%n", &day, mon, &year,
		   &h, &m, &sec, &used) != 6 || used != 24)
		return -1;
	const char *p = strstr(months, mon);
	if (!p || (p - months) % 3 || strlen(mon) != 3 || day < 1 ||
	    day > 31 || h > 23 || m > 59 || sec > 60)
		return -1;
	struct tm tm = { .tm_year = year - 1900, .tm_mon = (int)(p - months) / 3,
			 .tm_mday = day, .tm_hour = h, .tm_min = m,
			 .tm_sec = sec };
	*t = timegm(&tm);
	return 0;
}

/* Is ETAG one of the entity tags of the If-None-Match list S?  Weak
 * comparison (W/ ignored), as RFC 9110 asks for If-None-Match. */
static bool etag_listed(const char *s, const char *etag)
{
	if (!strncmp(etag, "W/", 2))
		etag += 2;
	size_t elen = strlen(etag);
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		if (*s == '*')
			return true;
		if (!strncmp(s, "W/", 2))
			s += 2;
		const char *start = s;
		if (*s == '"') {
			const char *end = strchr(s + 1, '"');
			if (!end)
				return false;
			s = end + 1;
		} else {
			while (*s && *s != ',')
				s++;
		}
		if ((size_t)(s - start) == elen && !memcmp(start, etag, elen))
			return true;
	}
	return false;
}

bool conditional_not_modified(const char *if_none_match,
			      const char *if_modified_since, const char *etag,
			      time_t mtime)
{
	if (if_none_match)
		return etag_listed(if_none_match, etag);
	time_t since;
	return if_modified_since &&
	       http_date_parse(if_modified_since, &since) == 0 &&
	       mtime <= since;
}
