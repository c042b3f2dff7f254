/* status_page.c - see status_page.h. */
#include "status_page.h"

#include <inttypes.h>

/* S with HTML's special characters escaped. */
static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
}

static void row(FILE *out, const char *name, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", name);
	esc(out, value);
	fputs("</td></tr>\n", out);
}

void status_write_html(const status_info *si, FILE *out)
{
	char v[256];
	double up = metrics_now() - si->metrics->start;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>ehelf-server</title><style>body{font-family:sans-serif;"
	      "max-width:46em;margin:2em auto}th{text-align:left;padding-right:"
	      "1em}</style></head><body>\n<h1>ehelf-server</h1>\n<p>eh_elfs "
	      "(compiled unwind tables) by GNU build-ID: <code>GET /buildid/"
	      "HEX/eh_elf</code>, its signature <code>/buildid/HEX/eh_elf.sig"
	      "</code>; <a href=\"/metrics\">metrics</a>.</p>\n<table>\n", out);
	row(out, "store", si->store);
	if (si->have_totals) {
		snprintf(v, sizeof v, "%" PRIu64, si->ehelfs);
		row(out, "eh_elfs", v);
		if (si->ehelf_bytes < 1048576)
			snprintf(v, sizeof v, "%.1f KiB",
				 (double)si->ehelf_bytes / 1024);
		else
			snprintf(v, sizeof v, "%.1f MiB",
				 (double)si->ehelf_bytes / 1048576);
		row(out, "store size", v);
		snprintf(v, sizeof v, "%" PRIu64, si->packages);
		row(out, "packages indexed", v);
	} else {
		row(out, "index", "none (the store is served without its database)");
	}
	snprintf(v, sizeof v, "%.0f s", up);
	row(out, "uptime", v);
	row(out, "upstreams", si->upstream && *si->upstream ? si->upstream
			      : "none (no on-demand builds)");
	if (si->ondemand) {
		snprintf(v, sizeof v, "%d running, %d waiting", si->running,
			 si->queued);
		row(out, "on-demand builds", v);
	}
	row(out, "signing key", si->signing_key ? si->signing_key : "none");
	fputs("</table>\n</body></html>\n", out);
}

void status_write_metrics(const status_info *si, FILE *out)
{
	metrics_write(si->metrics, out);
	if (si->have_totals) {
		metrics_gauge(out, "store_ehelfs", "eh_elfs in the store's index.",
			      (double)si->ehelfs);
		metrics_gauge(out, "store_bytes", "Bytes of the indexed eh_elfs.",
			      (double)si->ehelf_bytes);
	}
	if (si->ondemand) {
		metrics_gauge(out, "ondemand_running", "On-demand builds running.",
			      si->running);
		metrics_gauge(out, "ondemand_queued", "On-demand builds waiting.",
			      si->queued);
	}
}
