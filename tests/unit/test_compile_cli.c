/*
 * test_compile_cli.c - ehelf-compile's options for on-demand builds, run
 * as a program on the fixtures ($EHELF_BUILD): --json (every field, the
 * sha256 of the output), --expect-build-id (a mismatch refused, nothing
 * written), --debug-file (a stripped library and its separate debug file
 * give the eh_elf of the unstripped library; a debug file of another
 * build-ID refused), --sign-key (OUT.sig verified by sign_verify and by
 * the openssl CLI; removed again by an unsigned build; keys that are not
 * usable refused with status 2 before anything is written).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../builder/codegen/compile.h"
#include "../../abi/ehelf_abi.h"
#include "../../common/sign.h"
#include "unit.h"

static char dir[] = "/tmp/test_compile_cli.XXXXXX";
static const char *build;

/* Run the shell command made of FMT, its stdout to DIR/out and its
 * stderr to DIR/err; its exit status (-1 if it did not exit). */
__attribute__((format(printf, 1, 2)))
static int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof cmd - (size_t)n, " >'%s/out' 2>'%s/err'", dir, dir);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The contents of DIR/NAME, NUL-terminated, malloc'd ("" if unreadable),
 * *LEN bytes. */
static char *load(const char *name, size_t *len)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "rb");
	size_t n = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	while (f && buf && !feof(f) && !ferror(f)) {
		n += fread(buf + n, 1, cap - n, f);
		if (n == cap) {
			char *b = realloc(buf, 2 * cap + 1);
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
	}
	if (f)
		fclose(f);
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* The same as text, in a static buffer (DIR/out, DIR/err). */
static const char *slurp(const char *name)
{
	static char text[1 << 16];
	char *b = load(name, NULL);
	snprintf(text, sizeof text, "%s", b ? b : "");
	free(b);
	return text;
}

static bool exists(const char *name)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

/* The value of KEY in the JSON object in DIR/out, as text (a string's
 * quotes dropped) into OUT. */
static const char *field(const char *key, char *out, size_t n)
{
	char pat[128];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *j = slurp("out"), *p = strstr(j, pat);
	out[0] = '\0';
	if (!p)
		return out;
	p += strlen(pat);
	if (*p == '"')
		p++;
	size_t len = strcspn(p, "\",}");
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
	return out;
}

static long num(const char *key)
{
	char v[64];
	return strtol(field(key, v, sizeof v), NULL, 10);
}

static void check_json(const char *build_id, const char *signer)
{
	static const char *const keys[] = {
		"output_bytes", "code_bytes", "table_bytes", "fdes", "rows",
		"rulesets", "entries", "overlaps", "unsupported_rulesets",
		"unsupported_rows", "eh_frame_bytes", "eh_frame_hdr_bytes",
		"debug_frame_bytes", "compile_ms", "abi_version",
		"generator_version", "sha256", "build_id", "signed_by",
	};
	char v[200];
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		CHECK(field(keys[i], v, sizeof v)[0] != '\0');
		if (!v[0])
			fprintf(stderr, "  no %s in %s", keys[i], slurp("out"));
	}
	size_t len;
	char *image = load("o.so", &len), sha[65];
	sign_sha256_hex(image, len, sha);
	free(image);
	CHECK_STR(field("sha256", v, sizeof v), sha);
	CHECK(num("output_bytes") == (long)len);
	CHECK(num("code_bytes") + num("table_bytes") < (long)len);
	CHECK(num("rows") > 0 && num("fdes") > 0 && num("entries") > 0);
	CHECK(num("abi_version") == EHELF_ABI_VERSION);
	CHECK(num("generator_version") == EHELF_GENERATOR_VERSION);
	CHECK_STR(field("build_id", v, sizeof v), build_id);
	CHECK_STR(field("signed_by", v, sizeof v), signer ? signer : "null");
}

int main(void)
{
	build = unit_build_dir("test_compile_cli");
	CHECK(mkdtemp(dir) != NULL);
	char cc[600], zoo[600], dfso[600], dfdebug[600], v[200];
	snprintf(cc, sizeof cc, "'%s/bin/ehelf-compile'", build);
	snprintf(zoo, sizeof zoo, "%s/fixtures/zoo.so", build);
	snprintf(dfso, sizeof dfso, "%s/fixtures/zoo-debugframe.so", build);
	snprintf(dfdebug, sizeof dfdebug, "%s/fixtures/zoo-debugframe.debug", build);

	/* --json; its build_id is the one --expect-build-id must name */
	CHECK(run("%s '%s' -o '%s/o.so' --json", cc, zoo, dir) == 0);
	char id[200];
	field("build_id", id, sizeof id);
	CHECK(strlen(id) == 40);
	check_json(id, NULL);
	CHECK(num("eh_frame_bytes") > 0 && num("debug_frame_bytes") == 0);
	CHECK(run("%s '%s' -o '%s/o.so' --stats --json", cc, zoo, dir) == 2);

	/* --expect-build-id */
	CHECK(run("%s '%s' -o '%s/o.so' --expect-build-id %s --json", cc, zoo,
		  dir, id) == 0);
	CHECK_STR(field("build_id", v, sizeof v), id);
	char other[64];
	snprintf(other, sizeof other, "%.39s%c", id, id[39] == '0' ? '1' : '0');
	CHECK(run("%s '%s' -o '%s/x.so' --expect-build-id %s", cc, zoo, dir,
		  other) == 1);
	CHECK_CONTAINS(slurp("err"), "not the expected");
	CHECK_CONTAINS(slurp("err"), other);
	CHECK(!exists("x.so"));
	CHECK(run("%s '%s' -o '%s/x.so' --expect-build-id %s", cc, zoo, dir,
		  "ABCD") == 2);
	CHECK(run("%s '%s' -o '%s/x.so' --expect-build-id %s --build-id %s", cc,
		  zoo, dir, id, id) == 2);

	/* --debug-file: the library without its .debug_frame, and the
	 * separate debug file objcopy made of it */
	CHECK(run("objcopy --remove-section .debug_frame '%s' '%s/stripped.so'",
		  dfso, dir) == 0);
	/* no unwind tables left: status 3 (the server then asks for the
	 * debuginfo) */
	CHECK(run("%s '%s/stripped.so' -o '%s/x.so'", cc, dir, dir) == 3);
	CHECK(run("%s '%s' -o '%s/whole.so' --json", cc, dfso, dir) == 0);
	long fdes = num("fdes"), rows = num("rows");
	CHECK(run("%s '%s/stripped.so' --debug-file '%s' -o '%s/o.so' --json",
		  cc, dir, dfdebug, dir) == 0);
	CHECK(num("fdes") == fdes && num("rows") == rows && rows > 0);
	CHECK(num("debug_frame_bytes") > 0);
	check_json(field("build_id", v, sizeof v), NULL);
	size_t a, b;
	char *whole = load("whole.so", &a), *pair = load("o.so", &b);
	CHECK(whole && pair && a == b && a > 0 && memcmp(whole, pair, a) == 0);
	free(whole);
	free(pair);
	CHECK(run("%s '%s/stripped.so' --debug-file '%s' -o '%s/x.so'", cc, dir,
		  zoo, dir) == 1);
	CHECK_CONTAINS(slurp("err"), "not its debug file");
	CHECK(!exists("x.so"));
	CHECK(run("%s '%s/stripped.so' --debug-file '%s/none.debug' -o '%s/x.so'",
		  cc, dir, dir, dir) == 1);
	CHECK(!exists("x.so"));

	/* --sign-key, checked by sign_verify and by the openssl CLI */
	CHECK(run("openssl genpkey -algorithm ed25519 -out '%s/key.pem' && "
		  "openssl pkey -in '%s/key.pem' -pubout -out '%s/key.pub.pem' && "
		  "openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:1024 "
		  "-out '%s/rsa.pem'", dir, dir, dir, dir) == 0);
	CHECK(run("%s '%s' -o '%s/o.so' --sign-key '%s/key.pem' --json", cc, zoo,
		  dir, dir) == 0);
	char keyfile[1100];
	snprintf(keyfile, sizeof keyfile, "%s/key.pem", dir);
	ehelf_err e = { 0 };
	sign_key *k = NULL;
	CHECK(sign_key_load(&k, keyfile, &e) == 0);
	check_json(id, k ? sign_key_id(k) : "?");
	sign_key_free(k);
	size_t len, siglen;
	char *image = load("o.so", &len), *line = load("o.so.sig", &siglen);
	CHECK(image && line && siglen == SIG_LINE_LEN);
	sign_keyring *kr = sign_keyring_new();
	snprintf(keyfile, sizeof keyfile, "%s/key.pub.pem", dir);
	CHECK(kr && sign_keyring_add_file(kr, keyfile, &e) == 0);
	CHECK(kr && image && sign_verify(kr, id, image, len, line, siglen, &e) == 0);
	CHECK(kr && image && sign_verify(kr, other, image, len, line, siglen, &e) ==
	      ERR_UNSUPPORTED);
	sign_keyring_free(kr);
	free(image);
	free(line);
	/* the openssl CLI alone, as docs/signatures.md shows */
	const char *cli =
		"cd '%s' && read -r magic kid sha sig < o.so.sig && "
		"[ \"$(sha256sum < o.so | cut -c1-64)\" = \"$sha\" ] && "
		"printf 'ehelf-sig-1\\n%%s\\n%%s\\n%%s\\n' %s \"$sha\" \"$kid\" > msg && "
		"printf %%s \"$sig\" | xxd -r -p > sig.bin && "
		"openssl pkeyutl -verify -pubin -inkey key.pub.pem -rawin -in msg "
		"-sigfile sig.bin";
	CHECK(run(cli, dir, id) == 0);
	CHECK_CONTAINS(slurp("out"), "Signature Verified Successfully");
	CHECK(run(cli, dir, other) != 0);
	/* an unsigned build over it removes the stale signature */
	CHECK(run("%s '%s' -o '%s/o.so'", cc, zoo, dir) == 0);
	CHECK(exists("o.so") && !exists("o.so.sig"));

	/* keys that cannot sign: status 2, nothing written */
	static const char *const bad_keys[][2] = {
		{ "missing.pem", "cannot read the key" },
		{ "key.pub.pem", "a public key; signing needs the private key" },
		{ "rsa.pem", "RSA key, not Ed25519" },
		{ "o.so", "not a PEM private key" },
	};
	for (size_t i = 0; i < sizeof bad_keys / sizeof *bad_keys; i++) {
		CHECK(run("%s '%s' -o '%s/x.so' --sign-key '%s/%s'", cc, zoo, dir,
			  dir, bad_keys[i][0]) == 2);
		CHECK_CONTAINS(slurp("err"), bad_keys[i][1]);
		CHECK(!exists("x.so") && !exists("x.so.sig"));
	}

	char cmd[1200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_compile_cli");
}
