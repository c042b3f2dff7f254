/* layout.c - see layout.h. */
#include "layout.h"

#include <stdio.h>

#include "../common/buildid.h"

int store_layout_rel(const char *hex, const char *suffix, char *out, size_t n)
{
	if (!buildid_valid_hex(hex))
		return -1;
	int len = snprintf(out, n, STORE_LAYOUT_DIR "/%.2s/%s.so%s", hex,
			   hex + 2, suffix);
	return len < 0 || (size_t)len >= n ? -1 : len;
}

int store_layout_path(const char *root, const char *hex, char *out, size_t n)
{
	int len = snprintf(out, n, "%s/", root);
	if (len < 0 || (size_t)len >= n)
		return -1;
	int rel = store_layout_rel(hex, "", out + len, n - (size_t)len);
	return rel < 0 ? -1 : len + rel;
}
