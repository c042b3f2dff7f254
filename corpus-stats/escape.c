/* escape.c - see escape.h. */
#include "escape.h"

#include <string.h>

void escape_json(FILE *out, const char *s)
{
	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			putc(*p, out);
	}
	putc('"', out);
}

void escape_html(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: putc(*p, out);
		}
	}
}

/* PREFIX then S, in double quotes, quotes of S doubled. */
static void csv_quoted(FILE *out, const char *prefix, const char *s)
{
	putc('"', out);
	fputs(prefix, out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			putc('"', out);
		putc(*p, out);
	}
	putc('"', out);
}

void escape_csv(FILE *out, const char *s)
{
	size_t n = strlen(s);
	if (strpbrk(s, ",\"\r\n") == NULL &&
	    (n == 0 || (s[0] != ' ' && s[n - 1] != ' '))) {
		fputs(s, out);
		return;
	}
	csv_quoted(out, "", s);
}

void escape_csv_text(FILE *out, const char *s)
{
	if (!s[0] || !strchr("=+-@\t\r", s[0])) {
		escape_csv(out, s);
		return;
	}
	csv_quoted(out, "'", s);
}
