/* progress.c - see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress *p)
{
	p->tty = isatty(STDERR_FILENO);
	p->start = progress_now();
	p->last = 0;
	p->width = 0;
}

static void draw(progress *p, const progress_counts *c, double now)
{
	double elapsed = now - p->start;
	double mib = (double)c->eh_frame_bytes / (1 << 20);
	double frac = c->input_total ? (double)c->input_done / (double)c->input_total
		      : c->packages_total ? (double)c->packages_done /
					    (double)c->packages_total : 0;
	char eta[32] = "--";
	if (frac > 0.01 && frac < 1) {
		double left = elapsed / frac - elapsed;
		snprintf(eta, sizeof eta, "%dm%02ds", (int)left / 60, (int)left % 60);
	} else if (frac >= 1) {
		snprintf(eta, sizeof eta, "0s");
	}
	int w = fprintf(stderr, "\r%llu/%llu packages, %llu ELFs (%llu built, "
			"%llu present, %llu failed), %.1f MiB .eh_frame, "
			"%.1f MiB/s, ETA %s",
			(unsigned long long)c->packages_done,
			(unsigned long long)c->packages_total,
			(unsigned long long)c->elfs, (unsigned long long)c->built,
			(unsigned long long)c->present,
			(unsigned long long)c->failed, mib,
			elapsed > 0 ? mib / elapsed : 0, eta);
	if (w < p->width)
		fprintf(stderr, "%*s", p->width - w, "");
	p->width = w;
	fflush(stderr);
}

void progress_update(progress *p, const progress_counts *c, bool force)
{
	if (!p->tty)
		return;
	double now = progress_now();
	if (!force && now - p->last < 0.2)
		return;
	p->last = now;
	draw(p, c, now);
}

void progress_end(progress *p, const progress_counts *c)
{
	if (!p->tty)
		return;
	draw(p, c, progress_now());
	fputc('\n', stderr);
}
