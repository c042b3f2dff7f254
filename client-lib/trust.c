/*
 * trust.c - see trust.h.
 *
 * trust_open: one descriptor (O_NOFOLLOW: a symbolic link is refused;
 * O_NONBLOCK: a FIFO cannot hang the open), fstat's verdict on that
 * descriptor, the whole file read into memory, the .sig the same way, the
 * checks on those bytes, then those bytes mapped: copied into a sealed
 * memfd mapped PROT_READ|PROT_EXEC, MAP_PRIVATE (allowed under systemd's
 * MemoryDenyWriteExecute and the kernel's PR_SET_MDWE, which refuse
 * making anonymous memory executable), else, where memfd_create does not
 * exist, into anonymous memory made executable with mprotect.
 */
#define _GNU_SOURCE
#include "trust.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../common/eh_elf_check.h"
#include "object.h"

/* ---- reading a file carefully ------------------------------------------- */

static const char *file_kind(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	}
	return "not a regular file";
}

/* Open PATH (relative to DIR) as trust.h's local rules say and read it whole: at most MAX
 * bytes, into BUF (MAX bytes) or, when BUF is NULL, into *OUT (malloc'd).
 * Returns its length, or -1 with the reason in WHY; -2 when it does not
 * exist (ENOENT). */
static ssize_t read_careful(int dir, const char *path, size_t max, void *buf,
			    uint8_t **out, char *why, size_t whylen)
{
	int fd = openat(dir, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
				   O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			snprintf(why, whylen, "a symbolic link (not followed)");
		else
			snprintf(why, whylen, "%s", strerror(e));
		return e == ENOENT ? -2 : -1;
	}
	struct stat st;
	ssize_t rc = -1;
	uint8_t *data = NULL;
	if (fstat(fd, &st) < 0) {
		snprintf(why, whylen, "fstat: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s, not a regular file", file_kind(st.st_mode));
	} else if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, whylen, "owned by uid %u, neither root nor this user",
			 (unsigned)st.st_uid);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, whylen, "writable by %s (mode %04o)",
			 st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
	} else if ((uint64_t)st.st_size > max) {
		snprintf(why, whylen, "%lld bytes, above the %zu-byte bound",
			 (long long)st.st_size, max);
	} else if (!(data = buf ? buf : malloc(st.st_size ? (size_t)st.st_size : 1))) {
		snprintf(why, whylen, "out of memory");
	} else {
		size_t n = (size_t)st.st_size, got = 0;
		while (got < n) {
			ssize_t r = pread(fd, data + got, n - got, (off_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				snprintf(why, whylen, "read: %s",
					 r < 0 ? strerror(errno) : "the file shrank");
				break;
			}
			got += (size_t)r;
		}
		if (got == n) {
			rc = (ssize_t)n;
			if (!buf)
				*out = data;
		} else if (!buf) {
			free(data);
		}
	}
	close(fd);
	return rc;
}

/* ---- the checks ------------------------------------------------------------ */

static const trust_policy local_policy = { .origin = TRUST_LOCAL };

/* Everything trust.h asks of IMG (LEN bytes) besides the file's own
 * properties; *L receives its layout. */
static int check_image(const uint8_t *img, size_t len, const char *expect_hex,
		       const char *sig, size_t siglen, const trust_policy *p,
		       eh_elf_layout *l, char *why, size_t whylen)
{
	if (eh_elf_check(img, len, l, why, whylen) < 0)
		return -1;
	char hex[BUILDID_HEX_MAX + 1] = "";
	if (l->build_id_len)
		buildid_to_hex(l->build_id, l->build_id_len, hex, sizeof hex);
	if (expect_hex && strcmp(hex, expect_hex) != 0) {
		snprintf(why, whylen, "records build-ID %s, not %s",
			 *hex ? hex : "(none)", expect_hex);
		return -1;
	}
	if (p->origin != TRUST_SIGNED || p->allow_unsigned)
		return 0;
	if (!sig) {
		snprintf(why, whylen, "unsigned (no .sig), and unsigned eh_elfs "
			 "are refused (EHELF_ALLOW_UNSIGNED=1 is for development)");
		return -1;
	}
	if (!*hex) {
		snprintf(why, whylen, "records no build-ID: a signature cannot "
			 "name it");
		return -1;
	}
	if (!p->keys || sign_keyring_count(p->keys) == 0) {
		snprintf(why, whylen, "no trusted keys to verify its signature "
			 "(EHELF_TRUSTED_KEYS, /etc/ehelf/trusted-keys)");
		return -1;
	}
	ehelf_err err = { 0 };
	if (sign_verify(p->keys, hex, img, len, sig, siglen, &err) < 0) {
		snprintf(why, whylen, "%s", err.msg);
		return -1;
	}
	return 0;
}

int trust_check_bytes(const uint8_t *img, size_t len, const char *expect_hex,
		      const char *sig, size_t siglen, const trust_policy *policy,
		      char *why, size_t whylen)
{
	eh_elf_layout l;
	return check_image(img, len, expect_hex, sig, siglen,
			   policy ? policy : &local_policy, &l, why, whylen);
}

/* ---- mapping -------------------------------------------------------------- */

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* A memfd for executable mappings: MFD_EXEC where the kernel knows it
 * (since 6.3, vm.memfd_noexec may otherwise make it non-executable). */
static int exec_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_ALLOW_SEALING | MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create(name, MFD_ALLOW_SEALING | MFD_CLOEXEC);
	return fd;
}

/* The R+X segment IMG[0, SIZE) mapped from a sealed memfd named NAME.
 * Returns the mapping, or MAP_FAILED with errno set and *NO_MEMFD true
 * when memfd_create is unavailable (ENOSYS, or refused by a seccomp
 * filter or vm.memfd_noexec: EPERM, EACCES). */
static void *map_memfd(const uint8_t *img, size_t size, const char *name,
		       bool *no_memfd)
{
	int fd = exec_memfd(name);
	*no_memfd = fd < 0 && (errno == ENOSYS || errno == EPERM || errno == EACCES);
	if (fd < 0)
		return MAP_FAILED;
	void *m = MAP_FAILED;
	size_t done = 0;
	while (done < size) {
		ssize_t w = write(fd, img + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errno = w < 0 ? errno : ENOSPC;
			break;
		}
		done += (size_t)w;
	}
	if (done == size &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
					  F_SEAL_SEAL) == 0)
		m = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	/* sealed before mapping: the mapping holds the checked bytes; say
	 * so once more, it costs one pass over them */
	if (m != MAP_FAILED && memcmp(m, img, size) != 0) {
		munmap(m, size);
		m = MAP_FAILED;
		e = EIO;
	}
	errno = e;
	return m;
}

/* The same in anonymous memory, for kernels without memfd_create. */
static void *map_anon(const uint8_t *img, size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return m;
	memcpy(m, img, size);
	if (mprotect(m, size, PROT_READ | PROT_EXEC) < 0) {
		int e = errno;
		munmap(m, size);
		errno = e;
		return MAP_FAILED;
	}
	return m;
}

/* The object of the checked IMG; NULL with the error set. */
static ehelf_object *map_object(const char *path, const uint8_t *img,
				const eh_elf_layout *l)
{
	char name[16 + BUILDID_HEX_MAX] = "ehelf";
	if (l->build_id_len) {
		name[5] = '-';
		buildid_to_hex(l->build_id, l->build_id_len, name + 6,
			       sizeof name - 6);
	}
	size_t size = (size_t)l->rx_size;
	bool no_memfd;
	void *m = map_memfd(img, size, name, &no_memfd);
	if (m == MAP_FAILED && no_memfd) {
		m = map_anon(img, size);
		if (m == MAP_FAILED) {
			ehelf_set_error("%s: cannot map it: memfd_create is "
					"unavailable and anonymous memory cannot "
					"be made executable (%s)", path,
					strerror(errno));
			return NULL;
		}
	} else if (m == MAP_FAILED) {
		ehelf_set_error("%s: cannot map it: %s", path, strerror(errno));
		return NULL;
	}
	ehelf_object *o = object_new(m, size, l);
	if (!o)
		munmap(m, size);
	return o;
}

ehelf_object *trust_open_at(int dir, const char *name, const char *path,
			    const char *expect_hex, const trust_policy *policy)
{
	if (!policy)
		policy = &local_policy;
	if (!name || !path) {
		ehelf_set_error("no eh_elf path given");
		return NULL;
	}
	char why[512];
	uint8_t *img = NULL;
	ssize_t len = read_careful(dir, name, EH_ELF_MAX_BYTES, NULL, &img, why,
				   sizeof why);
	if (len < 0) {
		ehelf_set_error("%s: %s", path, why);
		return NULL;
	}
	char sigpath[4096], sig[SIG_LINE_MAX];
	ssize_t siglen = -2;
	if (policy->origin == TRUST_SIGNED && !policy->allow_unsigned) {
		snprintf(sigpath, sizeof sigpath, "%s.sig", name);
		siglen = read_careful(dir, sigpath, SIG_LINE_MAX - 1, sig, NULL, why,
				      sizeof why);
		if (siglen == -1) {
			ehelf_set_error("%s.sig: %s", path, why);
			free(img);
			return NULL;
		}
	}
	eh_elf_layout l;
	ehelf_object *o = NULL;
	if (check_image(img, (size_t)len, expect_hex, siglen >= 0 ? sig : NULL,
			siglen >= 0 ? (size_t)siglen : 0, policy, &l, why,
			sizeof why) < 0)
		ehelf_set_error("%s: %s", path, why);
	else
		o = map_object(path, img, &l);
	free(img);
	return o;
}

ehelf_object *trust_open(const char *path, const char *expect_hex,
			 const trust_policy *policy)
{
	return trust_open_at(AT_FDCWD, path, path, expect_hex, policy);
}

/* The public call (include/ehelf.h), here rather than in object.c so that
 * object.c, below trust, does not call back up into it. */
ehelf_object *ehelf_object_open(const char *path)
{
	/* a path the program gives: used as it is, never searched for */
	static const trust_policy local = { .origin = TRUST_LOCAL };
	return trust_open(path, NULL, &local);
}
