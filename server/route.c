/* route.c - see route.h. */
#include "route.h"

#include <string.h>

/* A path of the repository: plain components of safe characters. */
static void repo_path(const char *rel, route *r)
{
	r->kind = ROUTE_BAD_PATH;
	size_t n = strlen(rel);
	if (n == 0 || n >= sizeof r->rel || rel[n - 1] == '/')
		return;
	for (const char *p = rel; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+~:=@,/-", *p))
			return;
	for (const char *c = rel; c; ) {
		const char *slash = strchr(c, '/');
		size_t len = slash ? (size_t)(slash - c) : strlen(c);
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return;
		c = slash ? slash + 1 : NULL;
	}
	memcpy(r->rel, rel, n + 1);
	r->kind = ROUTE_REPO;
}

void route_parse(const char *path, size_t len, route *r)
{
	r->kind = ROUTE_UNKNOWN;
	r->hex[0] = '\0';
	r->rel[0] = '\0';
	if (strlen(path) != len) /* a %00 decoded into the path */
		return;
	if (!strcmp(path, "/")) {
		r->kind = ROUTE_STATUS;
		return;
	}
	if (!strcmp(path, "/metrics")) {
		r->kind = ROUTE_METRICS;
		return;
	}
	static const char repo[] = "/debian/";
	if (!strncmp(path, repo, sizeof repo - 1)) {
		repo_path(path + sizeof repo - 1, r);
		return;
	}
	static const char prefix[] = "/buildid/";
	if (strncmp(path, prefix, sizeof prefix - 1) != 0)
		return;
	const char *id = path + sizeof prefix - 1;
	const char *slash = strchr(id, '/');
	size_t idlen = slash ? (size_t)(slash - id) : strlen(id);
	r->kind = ROUTE_BAD_ID;
	if (idlen > BUILDID_HEX_MAX)
		return;
	memcpy(r->hex, id, idlen);
	r->hex[idlen] = '\0';
	if (!buildid_valid_hex(r->hex)) {
		r->hex[0] = '\0';
		return;
	}
	const char *artifact = slash ? slash + 1 : "";
	if (!strcmp(artifact, "eh_elf"))
		r->kind = ROUTE_EHELF;
	else if (!strcmp(artifact, "eh_elf.sig"))
		r->kind = ROUTE_SIG;
	else
		r->kind = ROUTE_UNKNOWN; /* debuginfod's other artifacts */
}

const char *route_label(route_kind k)
{
	switch (k) {
	case ROUTE_EHELF: return "eh_elf";
	case ROUTE_SIG: return "sig";
	case ROUTE_METRICS: return "metrics";
	case ROUTE_STATUS: return "status";
	case ROUTE_REPO: return "repo";
	case ROUTE_BAD_ID: return "bad_id";
	case ROUTE_BAD_PATH: return "bad_path";
	case ROUTE_UNKNOWN: break;
	}
	return "other";
}
