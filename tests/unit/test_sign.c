/*
 * test_sign.c - Ed25519 signatures of eh_elfs (common/sign.h): keys made
 * here with OpenSSL, a sign/verify round trip checked also against an
 * independent verification of the documented message, and every refusal:
 * altered bytes, another build-ID, malformed lines, unknown keys, files
 * that are not keys, public keys where a private one is needed, and keys
 * of another algorithm.
 */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/buildid.h"
#include "../../common/sign.h"
#include "unit.h"

static char dir[] = "/tmp/test_sign.XXXXXX";

/* DIR/NAME into OUT (1024 bytes). */
static const char *path_of(char *out, const char *name)
{
	snprintf(out, 1024, "%s/%s", dir, name);
	return out;
}

static void write_text(const char *name, const char *text)
{
	char p[1024];
	FILE *f = fopen(path_of(p, name), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* PK into NAME, its private key (PRIVATE) or its public key. */
static void write_key(const char *name, EVP_PKEY *pk, int private)
{
	char p[1024];
	FILE *f = fopen(path_of(p, name), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK((private ? PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL)
		       : PEM_write_PUBKEY(f, pk)) == 1);
	fclose(f);
}

/* The key ID as docs/signatures.md defines it, computed here. */
static void expected_id(EVP_PKEY *pk, char out[SIG_KEYID_HEX + 1])
{
	uint8_t raw[32], digest[32];
	size_t len = sizeof raw;
	unsigned dlen = 0;
	CHECK(EVP_PKEY_get_raw_public_key(pk, raw, &len) == 1 && len == 32);
	CHECK(EVP_Digest(raw, len, digest, &dlen, EVP_sha256(), NULL) == 1);
	buildid_to_hex(digest, 8, out, SIG_KEYID_HEX + 1);
}

/* Verify LINE with PK outside sign.c: the documented message, OpenSSL. */
static int independent_verify(EVP_PKEY *pk, const char *hex, const char *line)
{
	char keyid[17], sha[65], sighex[129], msg[512];
	if (sscanf(line, "ehelf-sig-1 %16s %64s %128s", keyid, sha, sighex) != 3)
		return 0;
	uint8_t sig[64];
	if (buildid_from_hex(sighex, sig, sizeof sig) != 64)
		return 0;
	int n = snprintf(msg, sizeof msg, "ehelf-sig-1\n%s\n%s\n%s\n", hex, sha,
			 keyid);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestVerifyInit(c, NULL, NULL, NULL, pk) == 1 &&
		 EVP_DigestVerify(c, sig, 64, (uint8_t *)msg, (size_t)n) == 1;
	EVP_MD_CTX_free(c);
	return ok;
}

/* sign_verify of LINE (its own length) and DATA for HEX: the code, and
 * the message in MSG. */
static int verify(const sign_keyring *kr, const char *hex, const void *data,
		  size_t len, const char *line, ehelf_err *e)
{
	memset(e, 0, sizeof *e);
	return sign_verify(kr, hex, data, len, line, strlen(line), e);
}

static void check_refusals(const sign_keyring *kr, const char *hex,
			   const uint8_t *data, size_t len, const char *line)
{
	ehelf_err e;
	char bad[SIG_LINE_MAX];
	uint8_t copy[4096];
	memcpy(copy, data, len);

	copy[100] ^= 1; /* one bit of the eh_elf */
	CHECK(verify(kr, hex, copy, len, line, &e) == ERR_UNSUPPORTED);
	CHECK_CONTAINS(e.msg, "eh_elf bytes do not match the signed SHA-256");
	CHECK(verify(kr, hex, data, len - 1, line, &e) == ERR_UNSUPPORTED);

	/* the signature made for HEX, presented for another build-ID */
	CHECK(verify(kr, "0123456789abcdef", data, len, line, &e) == ERR_UNSUPPORTED);
	CHECK_CONTAINS(e.msg, "bad signature");
	CHECK(verify(kr, "0123456789ABCDEF", data, len, line, &e) == ERR_ARG);

	/* truncated, extended, empty */
	snprintf(bad, sizeof bad, "%.*s", SIG_LINE_LEN - 2, line);
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "malformed signature line");
	snprintf(bad, sizeof bad, "%.*s0\n", SIG_LINE_LEN - 1, line);
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_FORMAT);
	CHECK(verify(kr, hex, data, len, "", &e) == ERR_FORMAT);
	CHECK(sign_verify(kr, hex, data, len, line, 100, &e) == ERR_FORMAT);

	/* uppercase hex in each field, another magic, a tab for a space */
	static const struct { size_t at; const char *what; } fields[] = {
		{ 12, "key ID" }, { 29, "SHA-256" }, { 94, "signature" },
		{ 221, "signature" },
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		snprintf(bad, sizeof bad, "%s", line);
		bad[fields[i].at] = 'A';
		CHECK(verify(kr, hex, data, len, bad, &e) == ERR_FORMAT);
		CHECK_CONTAINS(e.msg, "lowercase hex");
		CHECK_CONTAINS(e.msg, fields[i].what);
	}
	snprintf(bad, sizeof bad, "%s", line);
	bad[10] = '2';
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "does not start with 'ehelf-sig-1 '");
	snprintf(bad, sizeof bad, "%s", line);
	bad[28] = '\t';
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_FORMAT);

	/* one hex digit of the signature changed */
	snprintf(bad, sizeof bad, "%s", line);
	bad[150] = bad[150] == '0' ? '1' : '0';
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_UNSUPPORTED);
	CHECK_CONTAINS(e.msg, "bad signature");
	/* another key ID in front of the same signature */
	snprintf(bad, sizeof bad, "%s", line);
	bad[12] = bad[12] == '0' ? '1' : '0';
	CHECK(verify(kr, hex, data, len, bad, &e) == ERR_NOTFOUND);
	CHECK_CONTAINS(e.msg, "signature by unknown key");
}

int main(void)
{
	CHECK(mkdtemp(dir) != NULL);
	EVP_PKEY *k1 = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	EVP_PKEY *k2 = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	CHECK(k1 && k2 && rsa);
	if (!k1 || !k2 || !rsa)
		UNIT_DONE("test_sign");
	write_key("k1.pem", k1, 1);
	write_key("k1.pub.pem", k1, 0);
	write_key("k2.pem", k2, 1);
	write_key("rsa.pem", rsa, 1);
	write_key("rsa.pub.pem", rsa, 0);
	write_text("garbage.pem", "not a key\n");
	char p[1024], id1[17], id2[17];
	expected_id(k1, id1);
	expected_id(k2, id2);

	/* sign_sha256_hex: FIPS 180-2's example */
	char sha[65];
	sign_sha256_hex("abc", 3, sha);
	CHECK_STR(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

	/* a signature and its round trip */
	ehelf_err e = { 0 };
	sign_key *key = NULL, *other = NULL;
	CHECK(sign_key_load(&key, path_of(p, "k1.pem"), &e) == 0);
	CHECK(sign_key_load(&other, path_of(p, "k2.pem"), &e) == 0);
	if (!key || !other)
		UNIT_DONE("test_sign");
	CHECK_STR(sign_key_id(key), id1);
	uint8_t data[4096];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	const char *hex = "3f1e5d7a9c0b2e4f6a8c1d3e5f7a9b0c2d4e6f81";
	char line[SIG_LINE_MAX], again[SIG_LINE_MAX];
	CHECK(sign_ehelf(key, hex, data, sizeof data, line, sizeof line, &e) ==
	      SIG_LINE_LEN);
	CHECK(strlen(line) == SIG_LINE_LEN && line[SIG_LINE_LEN - 1] == '\n');
	CHECK(strncmp(line, "ehelf-sig-1 ", 12) == 0);
	CHECK(strncmp(line + 12, id1, 16) == 0);
	sign_sha256_hex(data, sizeof data, sha);
	CHECK(strncmp(line + 29, sha, 64) == 0);
	CHECK(independent_verify(k1, hex, line));
	CHECK(!independent_verify(k2, hex, line));
	CHECK(sign_ehelf(key, hex, data, sizeof data, again, sizeof again, &e) > 0);
	CHECK_STR(again, line); /* Ed25519 is deterministic */
	CHECK(sign_ehelf(key, "ABCD", data, sizeof data, again, sizeof again, &e) ==
	      ERR_ARG);
	CHECK(sign_ehelf(key, hex, data, sizeof data, again, 100, &e) == ERR_ARG);

	sign_keyring *kr = sign_keyring_new();
	CHECK(kr != NULL);
	if (!kr)
		UNIT_DONE("test_sign");
	CHECK(sign_keyring_add_file(kr, path_of(p, "k1.pub.pem"), &e) == 0);
	CHECK(sign_keyring_add_file(kr, path_of(p, "k1.pem"), &e) == 0); /* again */
	CHECK(sign_keyring_count(kr) == 1);
	CHECK(verify(kr, hex, data, sizeof data, line, &e) == 0);
	CHECK(sign_verify(kr, hex, data, sizeof data, line, SIG_LINE_LEN - 1, &e)
	      == 0); /* without its '\n' */
	check_refusals(kr, hex, data, sizeof data, line);

	/* signed by a key the ring does not hold */
	char by2[SIG_LINE_MAX];
	CHECK(sign_ehelf(other, hex, data, sizeof data, by2, sizeof by2, &e) > 0);
	CHECK(verify(kr, hex, data, sizeof data, by2, &e) == ERR_NOTFOUND);
	char want[64];
	snprintf(want, sizeof want, "signature by unknown key %s", id2);
	CHECK_CONTAINS(e.msg, want);

	/* files that are not what is needed */
	sign_key *k = NULL;
	CHECK(sign_key_load(&k, path_of(p, "missing.pem"), &e) == ERR_IO);
	CHECK_CONTAINS(e.msg, "missing.pem");
	CHECK(sign_key_load(&k, path_of(p, "garbage.pem"), &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "not a PEM private key");
	CHECK(sign_key_load(&k, path_of(p, "k1.pub.pem"), &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "a public key; signing needs the private key");
	CHECK(sign_key_load(&k, path_of(p, "rsa.pem"), &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "RSA key, not Ed25519: ehelf signs with Ed25519 keys only");
	CHECK(sign_key_load(&k, dir, &e) < 0); /* a directory */
	CHECK(k == NULL);
	CHECK(sign_keyring_add_file(kr, path_of(p, "garbage.pem"), &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "not a PEM public key");
	CHECK(sign_keyring_add_file(kr, path_of(p, "rsa.pub.pem"), &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "RSA key, not Ed25519");
	CHECK(sign_keyring_add_file(kr, path_of(p, "nope.pem"), &e) == ERR_IO);
	CHECK(sign_keyring_count(kr) == 1);

	/* directories of keys: *.pem only, missing directories skipped,
	 * duplicates counted once, a private key's public half */
	char d1[1024], d2[1024], dirs[4096];
	CHECK(mkdir(path_of(d1, "trusted"), 0755) == 0);
	CHECK(mkdir(path_of(d2, "more"), 0755) == 0);
	write_key("trusted/a.pem", k1, 0);
	write_key("trusted/b.pem", k1, 1);
	write_key("more/c.pem", k2, 1);
	write_text("trusted/readme.txt", "not a key, not a .pem\n");
	snprintf(dirs, sizeof dirs, "%s/absent::%s:%s", dir, d1, d2);
	sign_keyring *kr2 = sign_keyring_new();
	CHECK(kr2 && sign_keyring_add_dirs(kr2, dirs, &e) == 2);
	CHECK(kr2 && sign_keyring_count(kr2) == 2);
	CHECK(kr2 && verify(kr2, hex, data, sizeof data, by2, &e) == 0);
	CHECK(kr2 && verify(kr2, hex, data, sizeof data, line, &e) == 0);
	write_text("more/d.pem", "-----BEGIN PUBLIC KEY-----\nxx\n");
	CHECK(kr2 && sign_keyring_add_dirs(kr2, d2, &e) == ERR_FORMAT);
	CHECK_CONTAINS(e.msg, "more/d.pem: not a PEM public key");
	sign_keyring_free(kr2);

	sign_keyring_free(kr);
	sign_key_free(key);
	sign_key_free(other);
	EVP_PKEY_free(k1);
	EVP_PKEY_free(k2);
	EVP_PKEY_free(rsa);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_sign");
}
