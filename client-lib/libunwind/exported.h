/*
 * exported.h - COMPAT marks a definition of libunwind's API: exported
 * from libehelf-unwind (everything else is hidden: -fvisibility=hidden).
 */
#ifndef EHELF_LIBUNWIND_EXPORTED_H
#define EHELF_LIBUNWIND_EXPORTED_H

#define COMPAT __attribute__((visibility("default")))

#endif
