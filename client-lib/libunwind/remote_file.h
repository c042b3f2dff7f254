/*
 * remote_file.h - a module of a remote address space found among the
 * files this process has open, when its ELF header cannot be read through
 * access_mem: perf top maps only the executable segment of the modules of
 * processes already running (it synthesizes their executable mappings
 * alone), and perf's find_proc_info has just opened the module's file to
 * read its .eh_frame_hdr (perf keeps such descriptors open).  A file
 * matches when an executable PT_LOAD of it, mapped at the table's range,
 * is as long as the range and puts its PT_GNU_EH_FRAME at the table's
 * segbase: the runtime address of .eh_frame_hdr, or where perf puts it
 * when it knows only the executable mapping (that mapping's start taken
 * for the first PT_LOAD's).
 */
#ifndef EHELF_LIBUNWIND_REMOTE_FILE_H
#define EHELF_LIBUNWIND_REMOTE_FILE_H

#include <stdint.h>

#include "remote_module.h"

/* Describe the module whose executable mapping is [START, END) and whose
 * .eh_frame_hdr is at runtime address EH_FRAME_HDR from the first open
 * file of this process that matches (see above): OUT's bias and build-ID
 * (start and end set too).  0, or -1 when no open file matches.  Reads
 * /proc/self/fd and opens files: never from an eh_elf step. */
int remote_file_find(uint64_t start, uint64_t end, uint64_t eh_frame_hdr,
		     remote_module *out);

#endif
