/* buildid_cache.c - see buildid_cache.h. */
#include "buildid_cache.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../common/buildid.h"

int buildid_cache_path(const char *name, const char *file, const uint8_t *id,
		       size_t len, char *buf, size_t cap)
{
	char hex[BUILDID_HEX_MAX + 1];
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	if (buildid_to_hex(id, len, hex, sizeof hex) < 0)
		return -1;
	int n = dir && *dir ? snprintf(buf, cap, "%s/%s/%s/%s", dir, name, hex, file)
	      : home && *home ? snprintf(buf, cap, "%s/.debug/%s/%s/%s", home, name,
					 hex, file)
	      : -1;
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}
