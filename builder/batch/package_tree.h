/*
 * package_tree.h - the reader of files on disk: a directory tree, an installed package or one
 * ELF file: PKG_DIR, PKG_INSTALLED and PKG_FILE jobs (for pkg_open).
 */
#ifndef EHELF_BATCH_PACKAGE_TREE_H
#define EHELF_BATCH_PACKAGE_TREE_H

#include "package_types.h"

int pkg_open_tree(const pkg_job *job, pkg_reader **r, ehelf_err *err);

#endif
