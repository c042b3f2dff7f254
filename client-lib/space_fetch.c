/*
 * space_fetch.c - ehelf_space_fetch: the eh_elfs a space's modules lack,
 * from the resolution chain again (resolve.h), then fetched (fetch.h) and
 * attached (module_attach), while other threads may unwind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buildid.h"
#include "../common/err.h"
#include "fetch.h"
#include "object.h"
#include "resolve.h"
#include "space.h"

/* The distinct build-IDs of the modules of S without an eh_elf, into HEX
 * (S->n rows); their number. */
static size_t lacking(const ehelf_space *s, char (*hex)[BUILDID_HEX_MAX + 1])
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const module *m = s->mods[i];
		if (module_object(m) || !m->build_id_len ||
		    buildid_to_hex(m->build_id, m->build_id_len, hex[k],
				   sizeof hex[k]) < 0)
			continue;
		size_t j = 0;
		while (j < k && strcmp(hex[j], hex[k]) != 0)
			j++;
		k += j == k;
	}
	return k;
}

int ehelf_space_fetch(ehelf_space *s, double timeout_seconds)
{
	if (!s) {
		ehelf_set_error("ehelf_space_fetch: the space is NULL");
		return ERR_ARG;
	}
	const fetch_config *pc = resolve_config();
	if (!pc)
		return ERR_CONFIG; /* the reason is set */
	int attached = 0;
	/* what has appeared since the space was built, in any place */
	for (size_t i = 0; i < s->n; i++)
		attached += module_attach(s->mods[i]);
	char (*hex)[BUILDID_HEX_MAX + 1] = calloc(s->n ? s->n : 1, sizeof *hex);
	const char **ids = calloc(s->n ? s->n : 1, sizeof *ids);
	fetch_status *st = calloc(s->n ? s->n : 1, sizeof *st);
	if (!hex || !ids || !st) {
		free(hex);
		free(ids);
		free(st);
		ehelf_set_error("out of memory");
		return ERR_NOMEM;
	}
	size_t k = lacking(s, hex);
	for (size_t i = 0; i < k; i++)
		ids[i] = hex[i];
	fetch_config c = *pc;
	if (timeout_seconds > 0)
		c.timeout = timeout_seconds;
	ehelf_err err;
	int rc = k && c.urls[0] ? fetch_ids(&c, ids, k, st, NULL, &err) : 0;
	if (rc > 0)
		for (size_t i = 0; i < s->n; i++)
			attached += module_attach(s->mods[i]);
	free(hex);
	free(ids);
	free(st);
	if (rc < 0) {
		ehelf_set_error("%s", err.msg);
		return attached ? attached : rc < 0 ? rc : ERR_IO;
	}
	return attached;
}
