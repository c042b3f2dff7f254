/* sign.c - see sign.h. */
#include "sign.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"

enum {
	KEY_FILE_MAX = 64 << 10, /* larger files are not PEM keys */
	PUB_BYTES = 32,          /* a raw Ed25519 public key */
	SIG_BYTES = 64,          /* an Ed25519 signature */
	SHA_HEX = 64,
	MSG_MAX = 256,
	/* offsets in a signature line */
	AT_KEYID = sizeof SIG_MAGIC,
	AT_SHA = AT_KEYID + SIG_KEYID_HEX + 1,
	AT_SIG = AT_SHA + SHA_HEX + 1,
};

struct sign_key {
	EVP_PKEY *pk;
	char id[SIG_KEYID_HEX + 1];
};

struct sign_keyring {
	struct sign_key *v;   /* public keys only */
	size_t n, cap;
};

/* ---- key files ------------------------------------------------------------ */

/* The contents of PATH, NUL-terminated, into *OUT (malloc'd). */
static int read_key_file(const char *path, char **out, ehelf_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(err, ERR_IO, "%s: cannot read the key: %s", path,
			       strerror(errno));
	char *buf = malloc(KEY_FILE_MAX + 1);
	size_t n = buf ? fread(buf, 1, KEY_FILE_MAX + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!buf)
		return err_set(err, ERR_NOMEM, "out of memory");
	if (bad) {
		free(buf);
		return err_set(err, ERR_IO, "%s: cannot read the key", path);
	}
	if (n > KEY_FILE_MAX) {
		free(buf);
		return err_set(err, ERR_FORMAT, "%s: not a PEM key (larger than "
			       "%d KiB)", path, KEY_FILE_MAX >> 10);
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* Encrypted keys are refused rather than prompted for. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static EVP_PKEY *pem_key(const char *pem, bool private)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	if (!b)
		return NULL;
	EVP_PKEY *pk = private ? PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL)
			       : PEM_read_bio_PUBKEY(b, NULL, no_passphrase, NULL);
	BIO_free(b);
	ERR_clear_error();
	return pk;
}

/* PK's key ID into ID (SIG_KEYID_HEX + 1 bytes), after checking that it is
 * an Ed25519 key; RAW gets its public key. */
static int key_id(EVP_PKEY *pk, const char *path, uint8_t raw[PUB_BYTES],
		  char *id, ehelf_err *err)
{
	if (!EVP_PKEY_is_a(pk, "ED25519")) {
		const char *type = EVP_PKEY_get0_type_name(pk);
		return err_set(err, ERR_FORMAT, "%s: %s key, not Ed25519: ehelf "
			       "signs with Ed25519 keys only (openssl genpkey "
			       "-algorithm ed25519)", path, type ? type : "another");
	}
	size_t len = PUB_BYTES;
	uint8_t digest[EVP_MAX_MD_SIZE];
	unsigned dlen = 0;
	if (EVP_PKEY_get_raw_public_key(pk, raw, &len) != 1 || len != PUB_BYTES ||
	    EVP_Digest(raw, len, digest, &dlen, EVP_sha256(), NULL) != 1) {
		ERR_clear_error();
		return err_set(err, ERR_FORMAT, "%s: cannot read the Ed25519 "
			       "public key", path);
	}
	buildid_to_hex(digest, SIG_KEYID_HEX / 2, id, SIG_KEYID_HEX + 1);
	return 0;
}

int sign_key_load(sign_key **out, const char *path, ehelf_err *err)
{
	char *pem = NULL;
	int rc = read_key_file(path, &pem, err);
	if (rc < 0)
		return rc;
	EVP_PKEY *pk = pem_key(pem, true);
	if (!pk) {
		EVP_PKEY *pub = pem_key(pem, false);
		if (pub)
			rc = err_set(err, ERR_FORMAT, "%s: a public key; signing "
				     "needs the private key (openssl genpkey "
				     "-algorithm ed25519 -out KEY)", path);
		else if (strstr(pem, "ENCRYPTED"))
			rc = err_set(err, ERR_FORMAT, "%s: an encrypted private "
				     "key; decrypt it first (openssl pkey -in KEY "
				     "-out PLAIN)", path);
		else
			rc = err_set(err, ERR_FORMAT, "%s: not a PEM private key",
				     path);
		EVP_PKEY_free(pub);
		free(pem);
		return rc;
	}
	free(pem);
	sign_key *k = calloc(1, sizeof *k);
	uint8_t raw[PUB_BYTES];
	rc = k ? key_id(pk, path, raw, k->id, err)
	       : err_set(err, ERR_NOMEM, "out of memory");
	if (rc < 0) {
		EVP_PKEY_free(pk);
		free(k);
		return rc;
	}
	k->pk = pk;
	*out = k;
	return 0;
}

void sign_key_free(sign_key *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pk);
	free(k);
}

const char *sign_key_id(const sign_key *k)
{
	return k->id;
}

/* ---- signing -------------------------------------------------------------- */

void sign_sha256_hex(const void *data, size_t len, char out[65])
{
	uint8_t digest[EVP_MAX_MD_SIZE] = { 0 };
	unsigned dlen = 0;
	if (EVP_Digest(data, len, digest, &dlen, EVP_sha256(), NULL) != 1)
		ERR_clear_error(); /* only when out of memory: all zeros */
	buildid_to_hex(digest, SHA_HEX / 2, out, SHA_HEX + 1);
}

/* The signed message (sign.h) into OUT (MSG_MAX bytes); its length. */
static size_t sig_message(char *out, const char *hex, const char *sha,
			  const char *keyid)
{
	int n = snprintf(out, MSG_MAX, SIG_MAGIC "\n%s\n%s\n%s\n", hex, sha, keyid);
	return n < 0 || n >= MSG_MAX ? 0 : (size_t)n;
}

int sign_ehelf(const sign_key *k, const char *hex, const void *data,
	       size_t len, char *out, size_t outsz, ehelf_err *err)
{
	if (!buildid_valid_hex(hex))
		return err_set(err, ERR_ARG, "cannot sign: invalid build-ID '%.130s'",
			       hex);
	if (outsz < SIG_LINE_MAX)
		return err_set(err, ERR_ARG, "cannot sign: buffer too small");
	char sha[SHA_HEX + 1], msg[MSG_MAX];
	sign_sha256_hex(data, len, sha);
	size_t mlen = sig_message(msg, hex, sha, k->id);
	uint8_t sig[SIG_BYTES];
	size_t slen = sizeof sig;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestSignInit(c, NULL, NULL, NULL, k->pk) == 1 &&
		 EVP_DigestSign(c, sig, &slen, (const uint8_t *)msg, mlen) == 1 &&
		 slen == SIG_BYTES;
	EVP_MD_CTX_free(c);
	if (!ok) {
		ERR_clear_error();
		return err_set(err, ERR_NOMEM, "cannot sign the eh_elf of %s with "
			       "key %s (out of memory?)", hex, k->id);
	}
	char sighex[2 * SIG_BYTES + 1];
	buildid_to_hex(sig, SIG_BYTES, sighex, sizeof sighex);
	return snprintf(out, outsz, "%s %s %s %s\n", SIG_MAGIC, k->id, sha,
			sighex);
}

/* ---- trusted keys --------------------------------------------------------- */

sign_keyring *sign_keyring_new(void)
{
	return calloc(1, sizeof(sign_keyring));
}

void sign_keyring_free(sign_keyring *kr)
{
	if (!kr)
		return;
	for (size_t i = 0; i < kr->n; i++)
		EVP_PKEY_free(kr->v[i].pk);
	free(kr->v);
	free(kr);
}

size_t sign_keyring_count(const sign_keyring *kr)
{
	return kr->n;
}

static const struct sign_key *keyring_find(const sign_keyring *kr,
					   const char *id)
{
	for (size_t i = 0; i < kr->n; i++)
		if (!strcmp(kr->v[i].id, id))
			return &kr->v[i];
	return NULL;
}

/* Add PATH's key: 1, 0 when a key with its ID is there already, or a
 * negative ERR_*.  Only the public half is kept. */
static int keyring_add(sign_keyring *kr, const char *path, ehelf_err *err)
{
	char *pem = NULL;
	int rc = read_key_file(path, &pem, err);
	if (rc < 0)
		return rc;
	EVP_PKEY *pk = pem_key(pem, false);
	if (!pk)
		pk = pem_key(pem, true);
	free(pem);
	if (!pk)
		return err_set(err, ERR_FORMAT, "%s: not a PEM public key (openssl "
			       "pkey -in KEY -pubout writes one)", path);
	struct sign_key k = { 0 };
	uint8_t raw[PUB_BYTES];
	rc = key_id(pk, path, raw, k.id, err);
	EVP_PKEY_free(pk);
	if (rc < 0)
		return rc;
	if (keyring_find(kr, k.id))
		return 0;
	if (kr->n == kr->cap) {
		size_t cap = kr->cap ? 2 * kr->cap : 8;
		struct sign_key *v = realloc(kr->v, cap * sizeof *v);
		if (!v)
			return err_set(err, ERR_NOMEM, "out of memory");
		kr->v = v;
		kr->cap = cap;
	}
	k.pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, PUB_BYTES);
	if (!k.pk) {
		ERR_clear_error();
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	kr->v[kr->n++] = k;
	return 1;
}

int sign_keyring_add_file(sign_keyring *kr, const char *path, ehelf_err *err)
{
	int rc = keyring_add(kr, path, err);
	return rc < 0 ? rc : 0;
}

static int is_pem(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return e->d_name[0] != '.' && n > 4 && !strcmp(e->d_name + n - 4, ".pem");
}

/* The *.pem files of directory DIR (N bytes of a list), in name order. */
static int add_dir(sign_keyring *kr, const char *dir, size_t n, ehelf_err *err)
{
	char path[4096];
	if (n >= sizeof path - 256)
		return err_set(err, ERR_ARG, "%.*s: path too long", (int)n, dir);
	memcpy(path, dir, n);
	path[n] = '\0';
	struct dirent **names = NULL;
	int count = scandir(path, &names, is_pem, alphasort);
	if (count < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0
		       : err_set(err, ERR_IO, "%s: cannot list trusted keys: %s",
				 path, strerror(errno));
	int added = 0, rc = 0;
	for (int i = 0; i < count; i++) {
		if (rc >= 0) {
			snprintf(path + n, sizeof path - n, "/%s", names[i]->d_name);
			rc = keyring_add(kr, path, err);
			added += rc > 0;
		}
		free(names[i]);
	}
	free(names);
	return rc < 0 ? rc : added;
}

int sign_keyring_add_dirs(sign_keyring *kr, const char *dirs, ehelf_err *err)
{
	int added = 0;
	for (const char *p = dirs; ; ) {
		size_t n = strcspn(p, ":");
		if (n) {
			int rc = add_dir(kr, p, n, err);
			if (rc < 0)
				return rc;
			added += rc;
		}
		if (!p[n])
			return added;
		p += n + 1;
	}
}

/* ---- verifying ------------------------------------------------------------ */

/* Is field NAME of LINE, N characters at AT followed by SEP (0: the last
 * field), lowercase hex? */
static int check_field(const char *line, size_t at, size_t n, char sep,
		       const char *name, ehelf_err *err)
{
	for (size_t i = at; i < at + n; i++)
		if (!((line[i] >= '0' && line[i] <= '9') ||
		      (line[i] >= 'a' && line[i] <= 'f')))
			return err_set(err, ERR_FORMAT, "malformed signature line: "
				       "its %s is not %zu lowercase hex digits",
				       name, n);
	if (sep && line[at + n] != sep)
		return err_set(err, ERR_FORMAT, "malformed signature line: no "
			       "space after its %s", name);
	return 0;
}

int sign_verify(const sign_keyring *kr, const char *hex, const void *data,
		size_t len, const char *line, size_t linelen, ehelf_err *err)
{
	if (!buildid_valid_hex(hex))
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	if (linelen && line[linelen - 1] == '\n')
		linelen--;
	if (linelen != SIG_LINE_LEN - 1)
		return err_set(err, ERR_FORMAT, "malformed signature line: %zu "
			       "characters, not %d ('" SIG_MAGIC " KEYID SHA256 "
			       "SIGNATURE')", linelen, SIG_LINE_LEN - 1);
	if (memcmp(line, SIG_MAGIC " ", AT_KEYID) != 0)
		return err_set(err, ERR_FORMAT, "malformed signature line: it does "
			       "not start with '" SIG_MAGIC " '");
	int rc = check_field(line, AT_KEYID, SIG_KEYID_HEX, ' ', "key ID", err);
	if (rc == 0)
		rc = check_field(line, AT_SHA, SHA_HEX, ' ', "SHA-256", err);
	if (rc == 0)
		rc = check_field(line, AT_SIG, 2 * SIG_BYTES, 0, "signature",
				 err);
	if (rc < 0)
		return rc;
	char keyid[SIG_KEYID_HEX + 1], sha[SHA_HEX + 1], sighex[2 * SIG_BYTES + 1];
	char actual[SHA_HEX + 1];
	memcpy(keyid, line + AT_KEYID, SIG_KEYID_HEX);
	keyid[SIG_KEYID_HEX] = '\0';
	memcpy(sha, line + AT_SHA, SHA_HEX);
	sha[SHA_HEX] = '\0';
	memcpy(sighex, line + AT_SIG, 2 * SIG_BYTES);
	sighex[2 * SIG_BYTES] = '\0';

	sign_sha256_hex(data, len, actual);
	if (strcmp(actual, sha) != 0)
		return err_set(err, ERR_UNSUPPORTED, "eh_elf bytes do not match the "
			       "signed SHA-256 (signed %s, the bytes have %s)",
			       sha, actual);
	const struct sign_key *k = keyring_find(kr, keyid);
	if (!k)
		return err_set(err, ERR_NOTFOUND, "signature by unknown key %s (not "
			       "one of the %zu trusted keys)", keyid, kr->n);
	uint8_t sig[SIG_BYTES];
	buildid_from_hex(sighex, sig, sizeof sig);
	char msg[MSG_MAX];
	size_t mlen = sig_message(msg, hex, sha, keyid);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestVerifyInit(c, NULL, NULL, NULL, k->pk) == 1 &&
		 EVP_DigestVerify(c, sig, sizeof sig, (const uint8_t *)msg,
				  mlen) == 1;
	EVP_MD_CTX_free(c);
	ERR_clear_error();
	if (!ok)
		return err_set(err, ERR_UNSUPPORTED, "bad signature: key %s did not "
			       "sign this eh_elf for build-ID %s (signed for "
			       "another build-ID, or altered)", keyid, hex);
	return 0;
}
