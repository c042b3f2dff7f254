/* readelf_frames.c - see readelf_frames.h. */
#include "readelf_frames.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../builder/cfi/unwind_ir.h"

typedef struct cie_row {
	uint64_t offset;
	re_row row;
	bool has_row;
} cie_row;

typedef struct parser {
	char section[32];
	bool in_entry, entry_is_cie;
	re_fde fde;
	re_row *rows;
	size_t nrows, cap;
	int colmap[64];   /* header column -> DWARF register, -1 if > 16 */
	int ncols;
	cie_row *cies;    /* sorted by offset: readelf prints in order */
	size_t ncies, ciecap;
	re_fde_fn fn;
	void *arg;
} parser;

static int reg_number(const char *name)
{
	if (strcmp(name, "ra") == 0)
		return UW_RA;
	char buf[16];
	for (unsigned r = 0; r < 128; r++)
		if (strcmp(uw_reg_name(r, buf), name) == 0)
			return (int)r;
	return 1000; /* unknown: treated as a column above 16 */
}

static const cie_row *find_cie(const parser *p, uint64_t off)
{
	size_t lo = 0, hi = p->ncies;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->cies[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ncies && p->cies[lo].offset == off ? &p->cies[lo] : NULL;
}

/* The entry being parsed ends: deliver it. */
static int finish_entry(parser *p)
{
	if (!p->in_entry)
		return 0;
	p->in_entry = false;
	if (p->entry_is_cie) {
		if (p->ncies == p->ciecap) {
			p->ciecap = p->ciecap ? 2 * p->ciecap : 16;
			p->cies = realloc(p->cies, p->ciecap * sizeof *p->cies);
			if (!p->cies)
				abort();
		}
		cie_row *c = &p->cies[p->ncies++];
		c->offset = p->fde.offset;
		c->has_row = p->nrows > 0;
		if (c->has_row)
			c->row = p->rows[0];
		return 0;
	}
	const cie_row *c = find_cie(p, p->fde.cie);
	p->fde.cie_row = c && c->has_row ? &c->row : NULL;
	p->fde.rows = p->rows;
	p->fde.nrows = p->nrows;
	memcpy(p->fde.section, p->section, sizeof p->section);
	return p->fn(p->arg, &p->fde);
}

static void parse_header(parser *p, char *line)
{
	p->ncols = 0;
	char *save = NULL;
	char *tok = strtok_r(line, " \t\n", &save); /* LOC */
	tok = strtok_r(NULL, " \t\n", &save);        /* CFA */
	while ((tok = strtok_r(NULL, " \t\n", &save)) && p->ncols < 64) {
		int r = reg_number(tok);
		p->colmap[p->ncols++] = r < RE_NCOLS ? r : -1;
	}
}

/* Next cell of a row.  readelf prints a register rule as "r9 (r9)": the
 * DWARF number, then the name in parentheses; the cell is the name. */
static char *next_cell(char **save)
{
	char *tok = strtok_r(NULL, " \t\n", save);
	if (tok && tok[0] == 'r' && *save && **save == '(') {
		char *name = strtok_r(NULL, " \t\n", save);
		size_t n = strlen(name);
		if (n >= 2 && name[n - 1] == ')') {
			name[n - 1] = '\0';
			return name + 1;
		}
		return NULL;
	}
	return tok;
}

static int parse_row(parser *p, char *line)
{
	if (p->nrows == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->rows = realloc(p->rows, p->cap * sizeof *p->rows);
		if (!p->rows)
			abort();
	}
	re_row *r = &p->rows[p->nrows];
	memset(r, 0, sizeof *r);
	char *save = NULL;
	char *tok = strtok_r(line, " \t\n", &save);
	r->loc = strtoull(tok, NULL, 16);
	tok = strtok_r(NULL, " \t\n", &save);
	if (!tok)
		return -1;
	snprintf(r->cfa, RE_STR, "%s", tok);
	for (int i = 0; i < p->ncols; i++) {
		tok = next_cell(&save);
		if (!tok)
			return -1;
		if (p->colmap[i] >= 0)
			snprintf(r->col[p->colmap[i]], RE_STR, "%s", tok);
		else if (strcmp(tok, "u") != 0)
			r->extra++;
	}
	p->nrows++;
	return 0;
}

static bool is_hex_word(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int parse_line(parser *p, char *line, char *errbuf, size_t errlen)
{
	int rc;
	if (strncmp(line, "Contents of the ", 16) == 0) {
		if ((rc = finish_entry(p)))
			return rc;
		sscanf(line + 16, "%31s", p->section);
		p->ncies = 0;
		return 0;
	}
	if (strncmp(line, "   LOC ", 7) == 0) {
		parse_header(p, line);
		return 0;
	}
	size_t len = strlen(line);
	/* "OOOOOOOO LLLL... IIIIIIII CIE ..." / "... FDE cie=XXXXXXXX pc=A..B" */
	if (len > 9 && is_hex_word(line, 8) && line[8] == ' ') {
		char *kind = strstr(line, " CIE");
		char *fde = strstr(line, " FDE cie=");
		if (!kind && !fde && !strstr(line, "ZERO terminator"))
			goto row;
		if ((rc = finish_entry(p)))
			return rc;
		memset(&p->fde, 0, sizeof p->fde);
		p->nrows = 0;
		p->ncols = 0;
		p->fde.offset = strtoull(line, NULL, 16);
		if (strstr(line, "ZERO terminator"))
			return 0;
		p->in_entry = true;
		p->entry_is_cie = fde == NULL;
		if (fde) {
			p->fde.cie = strtoull(fde + 9, NULL, 16);
			char *pc = strstr(fde, "pc=");
			if (!pc || sscanf(pc, "pc=%lx..%lx", &p->fde.lo,
					  &p->fde.hi) != 2) {
				snprintf(errbuf, errlen, "unparsed FDE line: %s",
					 line);
				return -1;
			}
		}
		return 0;
	}
row:
	if (len >= 17 && is_hex_word(line, 16) && line[16] == ' ' &&
	    p->in_entry) {
		if (parse_row(p, line) < 0) {
			snprintf(errbuf, errlen, "unparsed row: %s", line);
			return -1;
		}
	}
	return 0;
}

int readelf_frames(const char *path, re_fde_fn fn, void *arg, char *errbuf,
		   size_t errlen)
{
	int pfd[2];
	if (pipe(pfd) < 0) {
		snprintf(errbuf, errlen, "pipe failed");
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(errbuf, errlen, "fork failed");
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2); /* its warnings are not ours to show */
		close(pfd[0]);
		close(pfd[1]);
		execlp("readelf", "readelf", "--debug-dump=frames-interp",
		       "--debug-dump=no-follow-links", path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	FILE *in = fdopen(pfd[0], "r");
	parser p = { .fn = fn, .arg = arg };
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, in) > 0)
		rc = parse_line(&p, line, errbuf, errlen);
	if (rc == 0)
		rc = finish_entry(&p);
	fclose(in); /* a stopped run leaves readelf with a broken pipe */
	int status;
	waitpid(pid, &status, 0);
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) == 127)) {
		snprintf(errbuf, errlen, "readelf failed on %s", path);
		rc = -1;
	}
	free(line);
	free(p.rows);
	free(p.cies);
	return rc;
}
