/*
 * kallsyms_perfmap.c - symbol tables from text (kallsyms_perfmap.h): the
 * kernel's /proc/kallsyms (or a copy), and a JIT's perf map file.
 */
#include "kallsyms_perfmap.h"
#include "symbol_tree.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of hex digit C in either case, or -1.  C | 0x20 folds case,
 * and also takes bytes 0x10-0x19 as digits (as the parse always has;
 * kallsyms has no such bytes). */
static int hex_value(unsigned char c)
{
	unsigned folded = c | 0x20u, digit = folded - '0', letter = folded - 'a';
	return digit < 10u ? (int)digit : letter < 6u ? (int)letter + 10 : -1;
}

static char *read_all(const char *path, size_t *size, ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: cannot open: %s", path,
			       strerror(errno)), NULL;
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf)
			break;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(err, ERR_IO, "%s: read: %s", path,
				strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	buf[len] = '\0';
	*size = len;
	return buf;
}

symtab *symtab_load_kallsyms_file(const char *path, ehelf_err *err)
{
	size_t size;
	char *text = read_all(path, &size, err);
	if (!text)
		return NULL;
	struct builder b = { .root = -1, .kernel = true, .plain = true };
	bool any_address = false;
	/* "ADDRESS TYPE NAME[\t[MODULE]]\n": parsed by hand, as it is
	 * 120,000 lines of it, which strtoull and friends take 3 times
	 * longer to go through */
	for (char *line = text, *end = text + size; line < end;) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		if (eol)
			*eol = '\0';
		char *next = eol ? eol + 1 : end;
		uint64_t addr = 0;
		char *p = line;
		int d;
		while ((d = hex_value((unsigned char)*p)) >= 0 && p - line < 16) {
			addr = addr << 4 | (uint64_t)d;
			p++;
		}
		if (p != line && p[0] == ' ' && p[1] && p[2] == ' ') {
			char type = (char)toupper((unsigned char)p[1]);
			const char *name = p + 3;
			uint8_t bind = islower((unsigned char)p[1]) ? STB_LOCAL :
				       type == 'W' ? STB_WEAK : STB_GLOBAL;
			if ((type == 'T' || type == 'W' || type == 'D' ||
			     type == 'B') && name[0] != '$') {
				if (symtree_insert(&b, addr, 0, bind, name,
						   false) < 0)
					break;
				any_address |= addr != 0;
			}
		}
		line = next;
	}
	if (!any_address) {	/* addresses hidden: nothing usable */
		symtree_builder_free(&b);
		b = (struct builder){ .root = -1, .kernel = true, .plain = true };
	}
	symtree_fixup_end(&b);
	symtree_fixup_duplicate(&b);
	symtab *s = symtree_finish(&b, err);
	free(text);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

symtab *symtab_load_kallsyms(ehelf_err *err)
{
	return symtab_load_kallsyms_file("/proc/kallsyms", err);
}

/*
 * perf 6.1's dso__load_perf_map(), quirks included: each line as getline()
 * returns it loses its last character (the newline, or the last one of a
 * final line without it); START and SIZE are what strtoull(..., 16) makes
 * of the text (leading blanks, a "0x"), each followed by one separator
 * character, and a line is skipped unless at least 3 characters follow
 * each of them (so a name has 3 or more); every symbol is inserted as it
 * comes, [START, START + SIZE), none removed.
 */
symtab *symtab_load_perf_map(const char *path, ehelf_err *err)
{
	size_t size;
	char *text = read_all(path, &size, err);
	if (!text)
		return NULL;
	struct builder b = { .root = -1, .plain = true };
	for (char *line = text, *end = text + size; line < end;) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		char *next = eol ? eol + 1 : end;
		size_t line_len = (size_t)(next - line) - 1;
		line[line_len] = '\0';
		char *p;
		uint64_t start = strtoull(line, &p, 16);
		size_t len = (size_t)(p - line) + 1;
		if (len + 2 < line_len) {
			uint64_t sym_size = strtoull(line + len, &p, 16);
			len = (size_t)(p - line) + 1;
			if (len + 2 < line_len) {
				if (symtree_insert(&b, start, sym_size,
						   STB_GLOBAL, line + len,
						   false) < 0)
					break;
			}
		}
		line = next;
	}
	symtab *s = symtree_finish(&b, err);
	free(text);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}
