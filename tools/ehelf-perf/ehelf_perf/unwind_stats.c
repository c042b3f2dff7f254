/* unwind_stats.c - see unwind_stats.h. */
#include "unwind_stats.h"

#include <inttypes.h>
#include <string.h>

static const char *const path_names[5] = {
	"first", "eh_elf", "dwarf", "frame_pointer", "plt",
};
static const char *const stop_names[STOP_KINDS] = {
	"outermost", "stack_copy_end", "no_mapping", "no_cfi_step",
	"frame_limit",
};
static const char *const stop_text[STOP_KINDS] = {
	"the outermost frame (_start, clone, a thread's start)",
	"the end of the sample's stack copy (perf record --call-graph "
	"dwarf,SIZE records more)",
	"a return address in no file mapping",
	"no caller from the CFI (a pc no CFI covers, a step that failed, or "
	"the outermost frame of a file without symbols)",
	"the frame limit",
};

/* Whether NAME is a function where stacks end. */
static bool outermost_name(const char *name)
{
	static const char *const names[] = {
		"_start", "__clone3", "__clone", "clone", "clone3",
		"_dl_start_user", "__GI___clone3", "start_thread",
	};
	for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static enum unwind_stop stop_of(const proc *pr, const ehelf_frame *f, int n,
				int max)
{
	const ehelf_frame *last = &f[n - 1];
	if (last->flags & EHELF_FRAME_TRUNCATED)
		return STOP_COPY_END;
	if (n >= max)
		return STOP_LIMIT;
	const pmap *m = proc_find(pr, last->pc - (n > 1));
	if (!m || !m->d)
		return STOP_NO_MAP;
	uint64_t off;
	const char *sym = m->has_bias ? dso_symbol(m->d, last->pc - (n > 1) - m->bias,
						   &off)
				      : NULL;
	return outermost_name(sym) ? STOP_OUTERMOST : STOP_NO_STEP;
}

static void count_dwarf(unwind_stats *s, const dso *d)
{
	for (unsigned i = 0; i < s->ndwarf; i++)
		if (s->dwarf[i].d == d) {
			s->dwarf[i].steps++;
			return;
		}
	if (s->ndwarf == STATS_DWARF_FILES) {
		s->dwarf_other++;
		return;
	}
	s->dwarf[s->ndwarf].d = d;
	s->dwarf[s->ndwarf++].steps = 1;
}

void unwind_stats_stack(unwind_stats *s, const proc *pr,
			const ehelf_frame *f, int n, int max)
{
	for (int i = 0; i < n; i++) {
		uint32_t p = f[i].path < 5 ? f[i].path : 0;
		s->by_path[p]++;
		if (p == EHELF_PATH_DWARF && i > 0) {
			/* the step from the frame before, in its file */
			const pmap *m = proc_find(pr, f[i - 1].pc - (i > 1));
			if (m && m->d)
				count_dwarf(s, m->d);
		}
	}
	s->stops[stop_of(pr, f, n, max)]++;
}

static void json_str(FILE *out, const char *str)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void build_id_hex(const dso *d, char *hex)
{
	for (size_t i = 0; i < d->build_id_len && i < 32; i++)
		sprintf(hex + 2 * i, "%02x", d->build_id[i]);
	hex[2 * (d->build_id_len < 32 ? d->build_id_len : 32)] = '\0';
}

static void print_json(const unwind_stats *s, const char *command, FILE *out)
{
	fprintf(out, "{\"command\":\"%s\",\"samples\":%" PRIu64
		",\"unwound\":%" PRIu64 ",\"no_user_stack\":%" PRIu64
		",\"user_frames_from_callchain\":%" PRIu64
		",\"kernel_frames\":%" PRIu64 ",\"user_frames\":%" PRIu64
		",\"steps\":{", command, s->samples, s->unwound,
		s->no_user_stack, s->from_chain, s->kernel_frames,
		s->user_frames);
	for (int p = 0; p < 5; p++)
		fprintf(out, "%s\"%s\":%" PRIu64, p ? "," : "", path_names[p],
			s->by_path[p]);
	fputs("},\"stopped\":{", out);
	for (int k = 0; k < STOP_KINDS; k++)
		fprintf(out, "%s\"%s\":%" PRIu64, k ? "," : "", stop_names[k],
			s->stops[k]);
	fputs("},\"dwarf_files\":[", out);
	for (unsigned i = 0; i < s->ndwarf; i++) {
		char hex[65];
		build_id_hex(s->dwarf[i].d, hex);
		fputs(i ? ",{\"file\":" : "{\"file\":", out);
		json_str(out, s->dwarf[i].d->path);
		fprintf(out, ",\"build_id\":\"%s\",\"steps\":%" PRIu64 "}", hex,
			s->dwarf[i].steps);
	}
	fprintf(out, "],\"dwarf_steps_in_other_files\":%" PRIu64 "}\n",
		s->dwarf_other);
}

void unwind_stats_print(const unwind_stats *s, const char *command, bool json,
			FILE *out)
{
	if (json) {
		print_json(s, command, out);
		return;
	}
	fprintf(out, "ehelf-perf %s: %" PRIu64 " samples, %" PRIu64 " unwound "
		"here, %" PRIu64 " without a user stack to unwind, %" PRIu64
		" with the recorded callchain's user frames; %" PRIu64
		" kernel frames, %" PRIu64 " user frames\n", command, s->samples,
		s->unwound, s->no_user_stack, s->from_chain, s->kernel_frames,
		s->user_frames);
	uint64_t steps = s->by_path[1] + s->by_path[2] + s->by_path[3] +
			 s->by_path[4];
	fprintf(out, "  steps: %" PRIu64 " by eh_elf, %" PRIu64 " by DWARF CFI "
		"(no eh_elf), %" PRIu64 " by the PLT rule, %" PRIu64
		" by the frame-pointer guess (no CFI)%s\n", s->by_path[1],
		s->by_path[2], s->by_path[4], s->by_path[3],
		steps ? "" : " (nothing stepped)");
	fputs("  stopped at:", out);
	bool any = false;
	for (int k = 0; k < STOP_KINDS; k++)
		if (s->stops[k]) {
			fprintf(out, "%s %" PRIu64 " %s", any ? ";" : "",
				s->stops[k], stop_text[k]);
			any = true;
		}
	fputs(any ? "\n" : " nothing unwound\n", out);
	if (!s->ndwarf)
		return;
	fputs("  files stepped through DWARF CFI, without an eh_elf (steps):\n",
	      out);
	for (unsigned i = 0; i < s->ndwarf; i++) {
		char hex[65];
		build_id_hex(s->dwarf[i].d, hex);
		fprintf(out, "    %s (build-ID %s): %" PRIu64 "\n",
			s->dwarf[i].d->path, hex[0] ? hex : "none",
			s->dwarf[i].steps);
	}
	if (s->dwarf_other)
		fprintf(out, "    and %" PRIu64 " steps in other files\n",
			s->dwarf_other);
	fputs("  their eh_elfs: from an ehelf-server ($EHELF_URLS), their "
	      "-ehelf packages (apt install PACKAGE-ehelf), or built here: "
	      "`ehelf-batch --store STORE DIR` over a directory holding those "
	      "files, then EHELF_PATH=STORE (docs/perf.md)\n", out);
}
