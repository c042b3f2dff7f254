/*
 * object.h - libehelf's internal side of ehelf_object: an eh_elf mapped by
 * trust.c (trust.h), its entry points found from the checked layout
 * (eh_elf_check.h); and the thread's last error, which every part of
 * libehelf sets (object.c keeps it).  The public calls are in
 * include/ehelf.h.
 */
#ifndef EHELF_CLIENT_OBJECT_H
#define EHELF_CLIENT_OBJECT_H

#include <stddef.h>

#include "../common/eh_elf_check.h"
#include "include/ehelf.h"

/* An object over the R+X segment mapped at BASE (MAPLEN bytes, unmapped
 * by ehelf_object_close) of an eh_elf whose layout is L.  Returns NULL
 * (with ehelf_last_error() set) when out of memory; BASE is then still
 * the caller's. */
ehelf_object *object_new(void *base, size_t maplen, const eh_elf_layout *l);

/* Set the thread's last error (ehelf_last_error). */
void ehelf_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
