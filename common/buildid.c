/* buildid.c - see buildid.h. */
#include "buildid.h"

#include <stdio.h>
#include <string.h>

int buildid_to_hex(const uint8_t *id, size_t n, char *out, size_t outsz)
{
	static const char digits[] = "0123456789abcdef";
	if (n == 0 || n > BUILDID_MAX_BYTES || outsz < 2 * n + 1)
		return -1;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * n] = '\0';
	return (int)(2 * n);
}

static int hex_value(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

int buildid_from_hex(const char *hex, uint8_t *out, size_t outsz)
{
	if (!buildid_valid_hex(hex) || strlen(hex) / 2 > outsz)
		return -1;
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)(hex_value(hex[2 * i]) << 4 |
				   hex_value(hex[2 * i + 1]));
	return (int)n;
}

bool buildid_valid_hex(const char *s)
{
	size_t n = strnlen(s, BUILDID_HEX_MAX + 1);
	if (n < 2 || n > BUILDID_HEX_MAX || n % 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool buildid_same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	size_t n = na < nb ? na : nb;
	if (memcmp(a, b, n) != 0)
		return false;
	for (size_t i = n; i < na; i++)
		if (a[i])
			return false;
	for (size_t i = n; i < nb; i++)
		if (b[i])
			return false;
	return true;
}
