/* conditional.c - see conditional.h. */
#define _GNU_SOURCE /* timegm, strptime */
#include "conditional.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Month NAME (3 letters) as 0..11, or -1. */
static int month_of(const char *name)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *p = strlen(name) == 3 ? strstr(months, name) : NULL;
	return p && (p - months) % 3 == 0 ? (int)(p - months) / 3 : -1;
}

/* Is the first word of S, up to END, one of the day names in NAMES
 * (each followed by a space)? */
static bool day_named(const char *s, size_t len, const char *names)
{
	for (const char *n = names; *n; ) {
		size_t l = strcspn(n, " ");
		if (l == len && !strncmp(s, n, l))
			return true;
		n += l + (n[l] == ' ');
	}
	return false;
}

/* A two-digit year YY as RFC 9110 5.6.7 reads it: the year ending so
 * that is not more than 50 years ahead of this one. */
static int full_year(int yy)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	int this_year = tm.tm_year + 1900;
	int y = this_year - this_year % 100 + yy;
	return y > this_year + 50 ? y - 100 : y;
}

int http_date_parse(const char *s, time_t *t)
{
	static const char short_days[] = "Sun Mon Tue Wed Thu Fri Sat";
	static const char long_days[] = "Sunday Monday Tuesday Wednesday "
					"Thursday Friday Saturday";
	char mon[4];
	int day, year, h, m, sec, used = -1;
	size_t n = strlen(s), comma = strcspn(s, ",");
	if (n == 29 && comma == 3 && s[4] == ' ') {
		/* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
		if (!day_named(s, 3, short_days) ||
		    sscanf(s + 5, "%2d %3s %4d %2d:%2d:%2d GMT%n", &day, mon,
			   &year, &h, &m, &sec, &used) != 6 || used != 24)
			return -1;
	} else if (comma < n && comma >= 6 && s[comma + 1] == ' ') {
		/* RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" */
		const char *d = s + comma + 2;
		if (!day_named(s, comma, long_days) || strlen(d) != 22 ||
		    sscanf(d, "%2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n", &day, mon,
			   &year, &h, &m, &sec, &used) != 6 || used != 22 ||
		    d[2] != '-' || d[6] != '-')
			return -1;
		year = full_year(year);
	} else if (n == 24 && s[3] == ' ') {
		/* asctime: "Sun Nov  6 08:49:37 1994" */
		char d2[3] = { s[8], s[9], '\0' };
		if (!day_named(s, 3, short_days) || s[7] != ' ' ||
		    (d2[0] != ' ' && (d2[0] < '0' || d2[0] > '9')) ||
		    d2[1] < '0' || d2[1] > '9' ||
		    sscanf(s + 4, "%3s", mon) != 1 || s[10] != ' ' ||
		    sscanf(s + 11, "%2d:%2d:%2d %4d%n", &h, &m, &sec, &year,
			   &used) != 4 || used != 13)
			return -1;
		day = atoi(d2);
	} else {
		return -1;
	}
	int mo = month_of(mon);
	if (mo < 0 || day < 1 || day > 31 || h < 0 || h > 23 || m < 0 ||
	    m > 59 || sec < 0 || sec > 60 || year < 1900)
		return -1;
	struct tm tm = { .tm_year = year - 1900, .tm_mon = mo, .tm_mday = day,
			 .tm_hour = h, .tm_min = m, .tm_sec = sec };
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
