/*
 * script.h - one perf sample to text: its kernel frames from the sample's
 * callchain, its user frames unwound by ehelf, each named with its
 * symbol and file, printed as `perf script -F comm,tid,time,event,ip,sym,
 * symoff,dso --no-inline` prints them, or counted into folded stacks
 * (`comm;outermost;...;innermost count`, what FlameGraph's
 * stackcollapse-perf.pl makes of perf script's output).
 */
#ifndef EHELF_PERF_TOOL_SCRIPT_H
#define EHELF_PERF_TOOL_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>

#include "../perfdata/perf_data.h"
#include "dso.h"
#include "outbuf.h"
#include "procs.h"
#include "unwind_stats.h"

/* One frame as printed. */
typedef struct script_frame {
	uint64_t ip;        /* as perf prints it: kernel address, or the
			     * mapping-relative address of a user frame */
	const char *sym;    /* NULL: [unknown] */
	uint64_t off;
	const char *dso;    /* "[kernel.kallsyms]", the mapping's name, or
			     * "[unknown]" */
	bool kernel;
} script_frame;

/* A frame before it is named: a kernel address, or a user pc of process
 * PR (NULL: the marker of a stack cut off by the end of its copy, ip
 * (uint64_t)-1, as perf shows it). */
typedef struct raw_frame {
	uint64_t ip;
	const proc *pr;
	bool kernel;
} raw_frame;

typedef struct folded_table folded_table;
typedef struct line_cache line_cache;

typedef struct script_ctx {
	const perf_reader *reader; /* for the kernel's build-ID */
	procs *procs;
	outbuf *out;
	bool folded;            /* count stacks instead of printing samples */
	folded_table *stacks;
	symtab *kallsyms;       /* loaded on the first kernel frame
				 * (kernel_syms.h) */
	size_t name_width;      /* the longest event name of the file, as
				 * perf script pads them; 0 until the
				 * first sample (pipe mode: the attributes
				 * met by then, as perf) */
	sym_memo kallsyms_memo;
	bool kallsyms_tried;
	line_cache *lines;      /* frame lines already printed (script.c) */
	/* statistics */
	uint64_t samples, kernel_frames, user_frames, unwound_samples;
	unwind_stats stats;
	/* the part of each stack copy read first (perf_reader_set_partial),
	 * fitted to the spans of the samples' frames when TUNE is set (the
	 * reader, with partial stacks on): every SPAN_ROUND samples, the size
	 * that costs least, reading that much of every copy against reading
	 * again the whole copies of the samples whose frames span more */
	perf_reader *tune;
	uint32_t span_hist[129];  /* samples by span, 512-byte buckets */
	uint32_t span_n;
	uint64_t span_full;       /* their copies' bytes */
} script_ctx;

/* Set up C for printing the samples of R to OUT (FOLDED: aggregate); R
 * may be NULL (then the kernel is the running one).  0 or ERR_NOMEM. */
int script_init(script_ctx *c, const perf_reader *r, procs *p, outbuf *out,
		bool folded);
void script_fini(script_ctx *c);

/*
 * F's name in a folded stack into BUF (CAP bytes, NUL-terminated when CAP
 * > 0; returns its length), tidied as stackcollapse-perf.pl does by
 * default: for an unknown function the file's base name in brackets; ';'
 * made ':'; everything from the first '(' that does not open "(anonymous
 * namespace)" left out, unless the name is a Go method's
 * ("net/http.(*Client).Do"); quotes left out; in the process "java"
 * (JAVA), the 'L' of a JVM class name ("Ljava/lang/Object;.wait") left
 * out.  Unlike the script, a name containing "->" (C++'s operator->)
 * stays one frame: the script splits it there, taking it for perf's
 * chain of inlined functions.
 */
size_t script_fold_name(const script_frame *f, bool java, char *buf,
			size_t cap);

/* The frames of sample EV into F (at most MAX): kernel then user.  Returns
 * their number. */
int script_frames(script_ctx *c, const perf_event *ev, script_frame *f,
		  int max);

/* The user frames of sample EV into F (at most MAX), as script_sample
 * prints them: unwound from its registers and stack copy (callers at
 * their return address - 1, as perf shows them; a stack cut off by the
 * end of its copy ends with perf's marker), else (*UNWOUND false) those
 * of its recorded callchain.  Counted into C's statistics (but the
 * sample itself: the caller counts it).  Returns their number. */
int script_user_frames(script_ctx *c, const perf_event *ev, raw_frame *f,
		       int max, bool *unwound);

/* The entries of EV's callchain in its kernel context, counted into C's
 * statistics the same way by script and inject.  Returns their number. */
uint64_t script_count_kernel(script_ctx *c, const perf_event *ev);

/* Print (or count) sample EV.  0, or ERR_NOMEM. */
int script_sample(script_ctx *c, const perf_event *ev);

/* With FOLDED: print the stacks and their counts, sorted.  0 or ERR_NOMEM. */
int script_print_folded(script_ctx *c);

#endif
