/*
 * test_elf_file.c - opening real ELF files: this test's own executable, an
 * object file and a separate debug file with a compressed .debug_frame from
 * the build tree ($EHELF_BUILD), and files that are not (or no longer)
 * valid ELF.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../common/elf_file.h"
#include "unit.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = realloc(buf, cap);
		}
		size_t got = fread(buf + *n, 1, cap - *n, f);
		if (!got)
			break;
		*n += got;
	}
	fclose(f);
	return buf;
}

static char *write_temp(const void *data, size_t n)
{
	char *path = strdup("/tmp/ehelf-test-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

/* Read all FDEs; returns the count or a negative error. */
static long count_fdes(elf_file *f)
{
	cfi_reader *r = cfi_reader_new();
	ehelf_err err = { 0 };
	long n = 0;
	int rc = cfi_reader_add_elf(r, f, &err);
	uw_fde fde;
	while (rc >= 0 && (rc = cfi_reader_next(r, &fde, &err)) > 0)
		n++;
	cfi_reader_free(r);
	return rc < 0 ? rc : n;
}

int main(void)
{
	const char *build = getenv("EHELF_BUILD");
	if (!build)
		build = "build";
	char path[512];
	ehelf_err err = { 0 };
	elf_file f;

	/* this executable */
	CHECK(elf_file_open(&f, "/proc/self/exe", &err) == 0);
	CHECK(f.type == ET_DYN || f.type == ET_EXEC);
	const uint8_t *id;
	int idlen = elf_file_build_id(&f, &id);
	CHECK(idlen >= 8);
	uint8_t idcopy[64];
	if (idlen > 0)
		memcpy(idcopy, id, (size_t)idlen);
	elf_section eh;
	CHECK(elf_file_section(&f, ".eh_frame", &eh, &err) == 0);
	CHECK(eh.size > 0 && eh.data && eh.addr);
	uint64_t first;
	CHECK(elf_file_read_u64(&f, eh.addr, &first) == 0);
	CHECK(memcmp(&first, eh.data, 8) == 0);
	CHECK(elf_file_read_u64(&f, 0x10, &first) == ERR_NOTFOUND);
	CHECK(elf_file_section(&f, ".no.such.section", &eh, &err) ==
	      ERR_NOTFOUND);
	CHECK(count_fdes(&f) > 10);
	elf_file_close(&f);

	/* the same bytes from memory */
	size_t n = 0;
	char *image = slurp("/proc/self/exe", &n);
	CHECK(image != NULL);
	if (!image)
		UNIT_DONE("test_elf_file");
	CHECK(elf_file_open_mem(&f, image, n, "self (memory)", &err) == 0);
	const uint8_t *id2;
	CHECK(elf_file_build_id(&f, &id2) == idlen);
	CHECK(idlen > 0 && memcmp(id2, idcopy, (size_t)idlen) == 0);
	CHECK(count_fdes(&f) > 10);
	elf_file_close(&f);

	/* truncated copies: an error or fewer FDEs, never a crash */
	static const size_t cuts[] = { 0, 16, 63, 64, 200, 1000, 4096, 20000 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		if (cuts[i] > n)
			continue;
		char *tmp = write_temp(image, cuts[i]);
		if (elf_file_open(&f, tmp, &err) == 0) {
			count_fdes(&f);
			elf_file_close(&f);
		} else {
			CHECK_CONTAINS(err.msg, tmp);
		}
		unlink(tmp);
		free(tmp);
	}
	/* a 32-bit header is refused */
	image[EI_CLASS] = ELFCLASS32;
	char *tmp = write_temp(image, n);
	CHECK(elf_file_open(&f, tmp, &err) < 0);
	unlink(tmp);
	free(tmp);
	free(image);

	/* not an ELF file; a missing file */
	tmp = write_temp("#!/bin/sh\necho hi\n", 18);
	CHECK(elf_file_open(&f, tmp, &err) == ERR_FORMAT);
	CHECK_CONTAINS(err.msg, "not an ELF file");
	unlink(tmp);
	free(tmp);
	CHECK(elf_file_open(&f, "/nonexistent/ehelf", &err) == ERR_IO);
	CHECK_CONTAINS(err.msg, "/nonexistent/ehelf: cannot open");

	/* a relocatable object needs relocation: refused */
	snprintf(path, sizeof path, "%s/obj/common/err.o", build);
	CHECK(elf_file_open(&f, path, &err) == ERR_UNSUPPORTED);
	CHECK_CONTAINS(err.msg, "relocatable");

	/* a separate debug file: NOBITS .eh_frame, compressed .debug_frame */
	snprintf(path, sizeof path, "%s/fixtures/zoo-debugframe.debug", build);
	CHECK(elf_file_open(&f, path, &err) == 0);
	elf_section df;
	CHECK(elf_file_section(&f, ".eh_frame", &eh, &err) == 0);
	CHECK(eh.nobits && eh.data == NULL);
	CHECK(elf_file_section(&f, ".debug_frame", &df, &err) == 0);
	CHECK(df.size > 8 && df.data != NULL);
	if (df.data) {
		uint32_t cie_id;
		memcpy(&cie_id, df.data + 4, 4);
		CHECK_U64(cie_id, 0xffffffff); /* decompressed: a CIE */
	}
	CHECK(count_fdes(&f) >= 8);
	elf_file_close(&f);
	UNIT_DONE("test_elf_file");
}
