/* pkg_control.c - see pkg_control.h. */
#define _GNU_SOURCE
#include "pkg_control.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subproc.h"

const char *pkg_ehelf_arch(const pkg *p)
{
	return strcmp(p->arch, "all") == 0 ? "amd64" : p->arch;
}

/* Debian policy 5.6.1: lowercase letters, digits, '+', '-', '.'; two
 * characters at least, starting with a letter or digit. */
static bool valid_name(const char *s)
{
	if (strlen(s) < 2 || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-.") == strlen(s);
}

/* Policy 5.6.12's characters, starting with a digit (of the epoch or the
 * upstream version: dpkg-deb refuses anything else); dpkg checks the
 * rest of the syntax. */
static bool valid_version_chars(const char *s)
{
	return *s >= '0' && *s <= '9' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789.+-~:") == strlen(s);
}

int pkg_control_check(const pkg *p, ehelf_err *err)
{
	if (!valid_name(p->name))
		return err_set(err, ERR_FORMAT, "package name '%s' is not a Debian "
			       "package name: no -ehelf package can be made",
			       p->name);
	if (!valid_version_chars(p->version))
		return err_set(err, ERR_FORMAT, "%s: version '%s' is not a Debian "
			       "version (a digit, then letters, digits and .+-~: "
			       "only): no installable -ehelf package can be made",
			       p->name, p->version);
	const char *argv[] = { "dpkg", "--validate-version", p->version, NULL };
	if (subproc_run(argv, NULL, err) < 0)
		return err_prefix(err, "%s: version '%s' is not installable",
				  p->name, p->version);
	if (!valid_name(p->arch))
		return err_set(err, ERR_FORMAT, "%s: architecture '%s' is not a "
			       "Debian architecture", p->name, p->arch);
	return 0;
}

int pkg_pool_path(const pkg *p, const pkg_meta *m, char *out, size_t n,
		  ehelf_err *err)
{
	const char *src = valid_name(m->source) ? m->source : p->name;
	const char *colon = strchr(p->version, ':');
	const char *version = colon ? colon + 1 : p->version;
	int prefix = strncmp(src, "lib", 3) == 0 && src[3] ? 4 : 1;
	int len = snprintf(out, n, "pool/main/%.*s/%s/%s-ehelf_%s_%s.deb", prefix,
			   src, src, p->name, version, pkg_ehelf_arch(p));
	return len < 0 || (size_t)len >= n
	       ? err_set(err, ERR_ARG, "%s: package path too long", p->name) : 0;
}

char *pkg_control_text(const pkg_set *set, const pkg *p, const pkg_meta *m,
		       uint64_t installed_kib)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f, "Package: %s-ehelf\n", p->name);
	if (strcmp(m->source_version, p->version) != 0)
		fprintf(f, "Source: %s (%s)\n", m->source, m->source_version);
	else
		fprintf(f, "Source: %s\n", m->source);
	fprintf(f, "Version: %s\n"
		"Auto-Built-Package: ehelf\n"
		"Architecture: %s\n"
		"Maintainer: %s\n"
		"Installed-Size: %" PRIu64 "\n"
		"Depends: %s (= %s)\n"
		"Section: debug\n"
		"Priority: optional\n",
		p->version, pkg_ehelf_arch(p), m->maintainer, installed_kib,
		p->name, p->version);
	if (strcmp(m->multi_arch, "same") == 0 && strcmp(p->arch, "all") != 0)
		fputs("Multi-Arch: same\n", f);
	fprintf(f, "Description: compiled unwind tables (eh_elfs) for %s\n"
		" The eh_elfs of the ELF files of %s: their DWARF unwind tables\n"
		" (.eh_frame) compiled by ehelf into native code, which unwinders\n"
		" that use them (libehelf, libehelf-unwind, ehelf-perf) find by GNU\n"
		" build-ID under /usr/lib/ehelf/.build-id/ and run instead of\n"
		" interpreting DWARF, without any network access.\n",
		p->name, p->name);
	fputs("Build-Ids:", f);
	for (size_t k = 0; k < p->n_elf; k++)
		fprintf(f, " %s", set->elfs[p->elf[k]].build_id);
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
