/*
 * eh_elf_check.h - is a byte image exactly an eh_elf, as
 * builder/codegen/eh_elf_writer.c emits it and ehelf_abi.h describes it?
 *
 * The check reads nothing but IMG[0, LEN) (bounds-checked everywhere: it
 * meets files from the network), allocates nothing, and accepts only the
 * writer's structure: an x86_64 ET_DYN ELF header, exactly the writer's
 * program headers (one R+X PT_LOAD from offset 0, one RW PT_LOAD for
 * .dynamic, PT_DYNAMIC, PT_NOTE, a non-executable PT_GNU_STACK; no
 * PT_INTERP, PT_TLS or anything else), exactly the writer's dynamic tags
 * (DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT: so no DT_NEEDED, no
 * relocations, no DT_INIT/FINI or their arrays, no TEXTREL), its hash
 * table, its string table, and its four defined symbols (functions
 * ehelf_step_local, ehelf_step_remote, ehelf_describe in the executable
 * range, object ehelf_info of its exact size; no undefined, IFUNC or TLS
 * symbol), exactly one ehelf note (and no other) of the ABI version this
 * library reads, EHELF_ABI_VERSION (an older one is refused as "eh_elf
 * ABI version 4; this library reads 5: rebuild it with ehelf-batch"), and
 * an ehelf_info that repeats the note (its unused build-ID bytes zero,
 * its counts consistent) and whose check word matches its contents.
 * Then the whole file outside the blob (code and tables) must be byte for
 * byte what the writer emits (common/eh_elf_format.h): headers, the
 * fields it leaves 0, tables, every gap, the section headers when
 * present (.text of ehelf_info's code_size), and the file's length;
 * ehelf_step_local at the blob's start, ehelf_step_remote and
 * ehelf_describe at the offsets ehelf_info records, in that order inside
 * the code, and ehelf_info right after the code.  So every byte outside
 * the code and tables is either rebuilt and compared or, for ehelf_info's
 * statistics, bound by its check word; the code and tables themselves are
 * the signature's and the owner's to vouch for (docs/trust.md).  The
 * checks run in that order but for the note, checked right after the ELF
 * header so that an eh_elf of another ABI version is named as such.
 * Reasons never echo bytes of the image unescaped.
 *
 * Used by the loader (client-lib/trust.c, under ehelf_object_open) on
 * every eh_elf, local or fetched, so by ehelf-compile before it writes
 * one; by ehelf-server on each eh_elf it builds (server/ondemand.c); and
 * by the fuzz target tests/fuzz/fuzz_eh_elf_check.c.
 */
#ifndef EHELF_CLIENT_EH_ELF_CHECK_H
#define EHELF_CLIENT_EH_ELF_CHECK_H

#include <stddef.h>
#include <stdint.h>

enum { EH_ELF_MAX_BYTES = 512 << 20 };   /* larger files are refused */

/* What the loader needs of a checked image. */
typedef struct eh_elf_layout {
	uint64_t rx_size;        /* bytes [0, rx_size) form the R+X segment */
	uint64_t off_local, off_remote, off_describe; /* entry points in it */
	uint64_t off_info;       /* struct ehelf_info in it */
	uint32_t abi_version;
	uint8_t build_id[64];    /* the source build-ID it records */
	size_t build_id_len;
} eh_elf_layout;

/* Check IMG (LEN bytes).  Returns 0 with *L filled, or -1 with the reason
 * (one line naming the first property broken, e.g. "DT_NEEDED: depends on
 * another library") in WHY (WHYLEN bytes). */
int eh_elf_check(const uint8_t *img, size_t len, eh_elf_layout *l, char *why,
		 size_t whylen);

#endif
