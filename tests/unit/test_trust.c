/*
 * test_trust - opening eh_elfs as docs/design.md's trust rules ask
 * (client-lib/trust.h), on a real eh_elf compiled here from zoo.so:
 *  - the file's own properties: a symbolic link, a file writable by others
 *    or by its group, one owned by another user (as root), a directory, a
 *    FIFO (refused at once, not waited on), a character device, a sparse
 *    file above the size bound, a missing file;
 *  - TRUST_SIGNED: a valid signature accepted; a missing .sig refused
 *    unless allow_unsigned; a key not trusted, a signature for another
 *    build-ID, a flipped byte in the code (accepted under TRUST_LOCAL:
 *    the structure is intact), a malformed, oversized, symlinked or
 *    world-writable .sig, no trusted keys: each refused; the same through
 *    trust_check_bytes;
 *  - the mapping: a sealed memfd in this process; in children, under the
 *    kernel's MDWE (what systemd's MemoryDenyWriteExecute asks: memory
 *    cannot become executable), where memfd_create is denied by seccomp
 *    (the anonymous fallback), and both (refused with its reason);
 *  - the reported attack: a shared object with a constructor (writing a
 *    marker file) and the ehelf note of a real eh_elf, refused by
 *    ehelf_object_open as "./evil.so" and "evil.so", found under zoo.so's
 *    build-ID in an $EHELF_PATH store, and under libz's in a libunwind
 *    program with libehelf-unwind preloaded: the marker never appears
 *    (while dlopen of it in a child does write it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../common/eh_elf_check.h"
#include "../../client-lib/trust.h"
#include "../../common/sign.h"
#include "eh_elf_image.h"
#include "unit.h"
#include "../../store/layout.h"

#ifdef __SANITIZE_ADDRESS__
enum { ASAN = 1 };
#else
enum { ASAN = 0 };
#endif

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

static char dir[] = "/tmp/test_trust.XXXXXX";
static char hex[BUILDID_HEX_MAX + 1];
static image real;
static const trust_policy local = { .origin = TRUST_LOCAL };

/* DIR/NAME into OUT (700 bytes). */
static const char *at(char *out, const char *name)
{
	snprintf(out, 700, "%s/%s", dir, name);
	return out;
}

static void refused(const char *path, const char *expect,
		    const trust_policy *p, const char *want)
{
	ehelf_object *o = trust_open(path, expect, p);
	CHECK(o == NULL);
	ehelf_object_close(o);
	if (!strstr(ehelf_last_error(), want))
		fprintf(stderr, "%s: got '%s', want '%s'\n", path,
			ehelf_last_error(), want);
	CHECK_CONTAINS(ehelf_last_error(), want);
}

/* One step at the first covered pc: the mapping runs. */
static bool steps(const ehelf_object *o)
{
	static uint64_t stack[64];
	ehelf_regs in = { .valid = EHELF_VALID_REGS }, out;
	for (int r = 0; r < EHELF_NREGS; r++)
		in.r[r] = (uint64_t)(uintptr_t)stack + 128;
	uint64_t pc = ehelf_object_info(o)->pc_lo;
	return ehelf_object_step_local(o, pc, &in, &out, (uint64_t)(uintptr_t)stack,
				       (uint64_t)(uintptr_t)(stack + 64)) == EHELF_STEP &&
	       ehelf_object_step(o, pc, &in, &out, im_read_stack, NULL) != EHELF_E_NOT_COVERED;
}

static void accepted(const char *path, const char *expect, const trust_policy *p)
{
	ehelf_object *o = trust_open(path, expect, p);
	CHECK(o != NULL);
	if (!o) {
		fprintf(stderr, "%s: %s\n", path, ehelf_last_error());
		return;
	}
	CHECK(steps(o));
	ehelf_object_close(o);
}

/* ---- the file's properties ---------------------------------------------- */

static void file_rules(void)
{
	char p[700], q[700];
	at(p, "real.so");
	CHECK(write_mode(p, real.b, real.len, 0644) == 0);
	accepted(p, hex, &local);
	accepted(p, NULL, &local);

	refused(at(q, "missing.so"), NULL, &local, "missing.so: No such file");
	CHECK(symlink(p, at(q, "link.so")) == 0);
	refused(q, NULL, &local, "link.so: a symbolic link (not followed)");
	CHECK(write_mode(at(q, "o+w.so"), real.b, real.len, 0666) == 0);
	refused(q, NULL, &local, "o+w.so: writable by others (mode 0666)");
	CHECK(write_mode(at(q, "g+w.so"), real.b, real.len, 0664) == 0);
	refused(q, NULL, &local, "g+w.so: writable by its group (mode 0664)");
	if (geteuid() == 0) {
		struct passwd *nobody = getpwnam("nobody");
		uid_t uid = nobody ? nobody->pw_uid : 65534;
		CHECK(write_mode(at(q, "nobody.so"), real.b, real.len, 0644) == 0);
		CHECK(chown(q, uid, (gid_t)-1) == 0);
		char want[100];
		snprintf(want, sizeof want, "owned by uid %u, neither root nor this user",
			 (unsigned)uid);
		refused(q, NULL, &local, want);
	} else {
		fprintf(stderr, "test_trust: not root: no file of another owner\n");
	}
	CHECK(mkdir(at(q, "dir.so"), 0755) == 0);
	refused(q, NULL, &local, "dir.so: a directory, not a regular file");
	CHECK(mkfifo(at(q, "fifo.so"), 0644) == 0);
	refused(q, NULL, &local, "fifo.so: a FIFO, not a regular file");
	refused("/dev/null", NULL, &local, "a character device, not a regular file");
	CHECK(write_mode(at(q, "huge.so"), real.b, real.len, 0644) == 0);
	CHECK(truncate(q, (off_t)EH_ELF_MAX_BYTES + 1) == 0); /* sparse */
	refused(q, NULL, &local, "huge.so: 536870913 bytes, above the 536870912-byte bound");
	unlink(q);
}

/* ---- signatures ----------------------------------------------------------- */

static void write_key(const char *path, EVP_PKEY *k, bool private)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK((private ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL)
		       : PEM_write_PUBKEY(f, k)) == 1);
	fclose(f);
}

/* The signature line of DATA for build-ID ID by the key in PEM file KEY. */
static void sign_with(const char *key, const char *id, const image *im,
		      char line[SIG_LINE_MAX])
{
	sign_key *k = NULL;
	ehelf_err e = { 0 };
	CHECK(sign_key_load(&k, key, &e) == 0);
	line[0] = 0;
	CHECK(k && sign_ehelf(k, id, im->b, im->len, line, SIG_LINE_MAX, &e) ==
	      SIG_LINE_LEN);
	sign_key_free(k);
}

static void signatures(void)
{
	EVP_PKEY *k1 = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	EVP_PKEY *k2 = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	CHECK(k1 && k2);
	if (!k1 || !k2)
		return;
	char key1[700], key2[700], pub[700], p[700], sig[720];
	write_key(at(key1, "k1.pem"), k1, true);
	write_key(at(key2, "k2.pem"), k2, true);
	write_key(at(pub, "k1.pub.pem"), k1, false);
	ehelf_err e = { 0 };
	sign_keyring *kr = sign_keyring_new();
	CHECK(kr && sign_keyring_add_file(kr, pub, &e) == 0);
	const trust_policy sgn = { .origin = TRUST_SIGNED, .keys = kr };
	const trust_policy dev = { .origin = TRUST_SIGNED, .keys = kr,
				   .allow_unsigned = true };
	const trust_policy nokeys = { .origin = TRUST_SIGNED };

	at(p, "signed.so");
	snprintf(sig, sizeof sig, "%s.sig", p);
	char line[SIG_LINE_MAX], other[SIG_LINE_MAX];
	sign_with(key1, hex, &real, line);
	CHECK(write_mode(p, real.b, real.len, 0644) == 0);
	CHECK(write_mode(sig, line, strlen(line), 0644) == 0);
	accepted(p, hex, &sgn);
	accepted(p, NULL, &sgn);
	refused(p, NULL, &nokeys, "signed.so: no trusted keys");
	refused(p, "00112233", &sgn, "records build-ID");

	/* a flipped byte in the code, the .sig of the original */
	image flip = image_copy(&real);
	flip.b[im_code(&flip) + 1] ^= 0x40;
	CHECK(write_mode(p, flip.b, flip.len, 0644) == 0);
	refused(p, hex, &sgn, "eh_elf bytes do not match the signed SHA-256");
	ehelf_object *o = trust_open(p, hex, &local); /* structure intact */
	CHECK(o != NULL);
	ehelf_object_close(o);
	CHECK(write_mode(p, real.b, real.len, 0644) == 0);

	/* signed by a key not trusted; for another build-ID */
	sign_with(key2, hex, &real, other);
	CHECK(write_mode(sig, other, strlen(other), 0644) == 0);
	refused(p, hex, &sgn, "signature by unknown key");
	sign_with(key1, "0123456789abcdef", &real, other);
	CHECK(write_mode(sig, other, strlen(other), 0644) == 0);
	refused(p, hex, &sgn, "bad signature");
	CHECK(write_mode(sig, "ehelf-sig-1 nonsense\n", 21, 0644) == 0);
	refused(p, hex, &sgn, "malformed signature line");
	char big[300];
	memset(big, 'a', sizeof big);
	CHECK(write_mode(sig, big, sizeof big, 0644) == 0);
	refused(p, hex, &sgn, "signed.so.sig: 300 bytes, above the 255-byte bound");
	CHECK(write_mode(sig, line, strlen(line), 0666) == 0);
	refused(p, hex, &sgn, "signed.so.sig: writable by others");
	char realsig[720];
	CHECK(write_mode(at(realsig, "good.sig"), line, strlen(line), 0644) == 0);
	unlink(sig);
	CHECK(symlink(realsig, sig) == 0);
	refused(p, hex, &sgn, "signed.so.sig: a symbolic link (not followed)");

	/* no .sig at all: refused, unless allow_unsigned */
	unlink(sig);
	refused(p, hex, &sgn, "signed.so: unsigned (no .sig)");
	accepted(p, hex, &dev);
	accepted(p, hex, &local);

	/* the same through trust_check_bytes (a download) */
	char why[512];
	CHECK(trust_check_bytes(real.b, real.len, hex, line, strlen(line), &sgn,
				why, sizeof why) == 0);
	CHECK(trust_check_bytes(real.b, real.len, NULL, line, SIG_LINE_LEN - 1, &sgn,
				why, sizeof why) == 0);
	CHECK(trust_check_bytes(real.b, real.len, hex, NULL, 0, &sgn, why,
				sizeof why) == -1);
	CHECK_CONTAINS(why, "unsigned");
	CHECK(trust_check_bytes(real.b, real.len, hex, NULL, 0, &dev, why,
				sizeof why) == 0);
	CHECK(trust_check_bytes(real.b, real.len, hex, NULL, 0, &local, why,
				sizeof why) == 0);
	CHECK(trust_check_bytes(flip.b, flip.len, hex, line, strlen(line), &sgn,
				why, sizeof why) == -1);
	CHECK_CONTAINS(why, "do not match the signed SHA-256");
	CHECK(trust_check_bytes(real.b, real.len, "abcd", line, strlen(line), &sgn,
				why, sizeof why) == -1);
	CHECK_CONTAINS(why, "not abcd");
	CHECK(trust_check_bytes(real.b, real.len - 1, hex, line, strlen(line), &sgn,
				why, sizeof why) == -1);
	CHECK_CONTAINS(why, "truncated");
	free(flip.b);
	sign_keyring_free(kr);
	EVP_PKEY_free(k1);
	EVP_PKEY_free(k2);
}

/* ---- the mapping ---------------------------------------------------------- */

/* Is there a mapping of the memfd NAME in this process? */
static bool mapped_memfd(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[1024];
	bool found = false;
	while (f && fgets(l, sizeof l, f))
		found |= strstr(l, name) != NULL && strstr(l, " r-xp ") != NULL;
	if (f)
		fclose(f);
	return found;
}

static int deny_memfd(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_memfd_create, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof *f, f };
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}

/* In a child: MDWE if asked (exit 77 when the kernel lacks it), memfd
 * denied if asked, then open PATH: exit 0 when it behaves as it should. */
static int child(const char *path, bool mdwe, bool no_memfd)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (mdwe) {
			if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0)
				_exit(77);
			void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED || mprotect(m, 4096, PROT_READ | PROT_EXEC) == 0)
				_exit(2); /* MDWE is not what it says */
		}
		if (no_memfd && deny_memfd() < 0)
			_exit(3);
		ehelf_object *o = ehelf_object_open(path);
		if (mdwe && no_memfd)
			_exit(!o && strstr(ehelf_last_error(), "memfd_create is "
					   "unavailable and anonymous memory cannot "
					   "be made executable") ? 0 : 4);
		if (!o) {
			fprintf(stderr, "child: %s\n", ehelf_last_error());
			_exit(5);
		}
		_exit(steps(o) && mapped_memfd("memfd:ehelf-") == !no_memfd ? 0 : 6);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void mapping(void)
{
	char p[700], name[200];
	at(p, "real.so");
	CHECK(write_mode(p, real.b, real.len, 0644) == 0);
	ehelf_object *o = ehelf_object_open(p);
	CHECK(o != NULL);
	snprintf(name, sizeof name, "memfd:ehelf-%s", hex);
	CHECK(mapped_memfd(name));
	/* the bytes mapped are the file's, whatever happens to it now */
	CHECK(unlink(p) == 0);
	CHECK(o && steps(o));
	ehelf_object_close(o);
	CHECK(!mapped_memfd(name));
	CHECK(write_mode(p, real.b, real.len, 0644) == 0);

	int rc = child(p, true, false);
	if (rc == 77)
		fprintf(stderr, "test_trust: no PR_SET_MDWE here: not tried\n");
	else
		CHECK(rc == 0);
	CHECK(child(p, false, true) == 0);
	if (rc != 77)
		CHECK(child(p, true, true) == 0);
}

/* ---- the reported attack ---------------------------------------------------- */

/* TEXT as DIR/NAME, compiled by gcc FLAGS -o OUT ... LIBS.  Returns 0 or
 * -1. */
static int compile_c(const char *name, const char *text, const char *flags,
		     const char *out, const char *libs)
{
	char src[700], cmd[2200];
	if (write_mode(at(src, name), text, strlen(text), 0644) < 0)
		return -1;
	snprintf(cmd, sizeof cmd, "gcc %s -o '%s' '%s' %s", flags, out, src, libs);
	return system(cmd) == 0 ? 0 : -1;
}

/* A C initializer of N bytes. */
static void c_bytes(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s0x%02x", i ? "," : "", b[i]);
}

/* evil.so: a constructor that creates MARKER, the ehelf note and
 * ehelf_info of the real eh_elf, and the three entry points. */
static int build_evil(const char *so, const char *marker)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	if (!f)
		return -1;
	const Elf64_Phdr *nt = im_phdr(&real, PT_NOTE, 0);
	fprintf(f, "#include <fcntl.h>\n#include <unistd.h>\n"
		"__attribute__((constructor)) static void evil(void)\n"
		"{ int fd = open(\"%s\", O_CREAT | O_WRONLY, 0644); if (fd >= 0) close(fd); }\n"
		"__attribute__((section(\".note.ehelf\"), aligned(4), used))\n"
		"static const unsigned char note[] = {", marker);
	c_bytes(f, real.b + nt->p_offset, nt->p_filesz);
	fprintf(f, "};\n__attribute__((aligned(8))) const unsigned char ehelf_info[] = {");
	c_bytes(f, (const uint8_t *)im_info(&real), sizeof(struct ehelf_info));
	fprintf(f, "};\nint ehelf_step_local(void) { return -1; }\n"
		"int ehelf_step_remote(void) { return -1; }\n"
		"unsigned long ehelf_describe(void) { return 0; }\n");
	fclose(f);
	int rc = compile_c("evil.c", text, "-shared -fPIC -O1", so, "");
	free(text);
	return rc;
}

/* A libunwind program linked with libz that unwinds once (the reported
 * setting: libehelf-unwind preloaded, an eh_elf for libz looked up). */
static int build_unw_prog(const char *out)
{
	return compile_c("unw.c", "#include <libunwind.h>\n#include <stdio.h>\n"
			 "#include <zlib.h>\nint main(void) { void *ips[32];\n"
			 "printf(\"%s\\n\", zlibVersion());\n"
			 "return unw_backtrace(ips, 32) > 0 ? 0 : 1; }\n",
			 "-O1", out, "-lunwind -lz");
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* FILE's GNU build-ID in OUT (129 bytes).  Returns 0 or -1. */
static int build_id_of(const char *file, char *out)
{
	elf_file f;
	ehelf_err e;
	const uint8_t *id;
	int n = -1;
	if (elf_file_open(&f, file, &e) < 0)
		return -1;
	n = elf_file_build_id(&f, &id);
	if (n > 0)
		n = buildid_to_hex(id, (size_t)n, out, 129);
	elf_file_close(&f);
	return n > 0 ? 0 : -1;
}

/* Put the DATA (LEN) as HEX's eh_elf in the store STORE. */
static void store_put(const char *store, const char *id, const void *data, size_t len)
{
	char file[900], cmd[1000];
	CHECK(store_layout_path(store, id, file, sizeof file) > 0);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", file);
	CHECK(system(cmd) == 0);
	CHECK(write_mode(file, data, len, 0644) == 0);
}

static void attack(const char *build)
{
	char so[700], marker[700], sub[700], cwd[4096];
	at(so, "evil.so");
	at(marker, "marker");
	if (build_evil(so, marker) < 0) {
		fprintf(stderr, "test_trust: cannot build evil.so with gcc: attack "
			"not tried\n");
		CHECK(0);
		return;
	}
	/* the constructor is real: dlopen runs it (in a child) */
	pid_t pid = fork();
	if (pid == 0) {
		void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
		_exit(h ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(exists(marker));
	unlink(marker);
	/* its ehelf note is a real one: what it is refused for is its
	 * structure */
	FILE *f = fopen(so, "rb");
	static uint8_t buf[1 << 20];
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	eh_elf_layout l;
	char why[512] = "";
	CHECK(n > 0 && eh_elf_check(buf, n, &l, why, sizeof why) == -1);
	CHECK(!strstr(why, "ehelf note"));

	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	const char *names[] = { "./evil.so", "evil.so", so };
	for (int i = 0; i < 3; i++) {
		ehelf_object *o = ehelf_object_open(names[i]);
		CHECK(o == NULL);
		ehelf_object_close(o);
		CHECK(strncmp(ehelf_last_error(), names[i], strlen(names[i])) == 0);
		CHECK(!exists(marker));
	}
	/* a bare name is a path from the current directory, never searched */
	CHECK(mkdir(at(sub, "sub"), 0755) == 0 && chdir(sub) == 0);
	ehelf_object *o = ehelf_object_open("evil.so");
	CHECK(o == NULL);
	CHECK_CONTAINS(ehelf_last_error(), "evil.so: No such file");
	CHECK(chdir(cwd) == 0);

	/* planted in an $EHELF_PATH store under zoo.so's build-ID */
	char store[700], zoo[700];
	at(store, "store");
	snprintf(zoo, sizeof zoo, "%s/fixtures/zoo.so", build);
	void *h = dlopen(zoo, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	store_put(store, hex, buf, n);
	setenv("EHELF_PATH", store, 1);
	ehelf_space *s = ehelf_space_new();
	int with_evil = -1, with_real = -1;
	CHECK(s && ehelf_space_load_self(s) == 0);
	ehelf_space_modules(s, &with_evil);
	ehelf_space_free(s);
	CHECK(!exists(marker));
	store_put(store, hex, real.b, real.len); /* the genuine one is used */
	s = ehelf_space_new();
	CHECK(s && ehelf_space_load_self(s) == 0);
	ehelf_space_modules(s, &with_real);
	ehelf_space_free(s);
	CHECK(with_real == with_evil + 1);
	unsetenv("EHELF_PATH");
	if (h)
		dlclose(h);

	/* the reported setting: libehelf-unwind preloaded into a libunwind
	 * program, the eh_elf of libz looked up in the store */
	if (ASAN) {
		fprintf(stderr, "test_trust: ASan build: the preload attack is "
			"not run (the program is not ASan's)\n");
		return;
	}
	char pre[700], prog[700], libz[128 + 1], cmd[3000];
	snprintf(pre, sizeof pre, "%s/lib/libehelf-unwind.so", build);
	if (!exists(pre) || build_id_of("/lib/x86_64-linux-gnu/libz.so.1", libz) < 0 ||
	    build_unw_prog(at(prog, "unw")) < 0) {
		fprintf(stderr, "test_trust: no libehelf-unwind.so, libz or "
			"libunwind here: preload attack not tried\n");
		return;
	}
	store_put(store, libz, buf, n);
	snprintf(cmd, sizeof cmd, "EHELF_PATH='%s' LD_PRELOAD='%s' '%s' >/dev/null",
		 store, pre, prog);
	CHECK(system(cmd) == 0);
	CHECK(!exists(marker));
}

int main(void)
{
	const char *build = unit_build_dir("test_trust");
	CHECK(mkdtemp(dir) != NULL);
	char zoo[600];
	snprintf(zoo, sizeof zoo, "%s/fixtures/zoo.so", build);
	CHECK(image_compile(zoo, &real, hex) == 0);
	if (unit_failures)
		UNIT_DONE("test_trust");
	file_rules();
	signatures();
	mapping();
	attack(build);
	free(real.b);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_trust");
}
