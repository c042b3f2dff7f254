/* metrics.c - see metrics.h. */
#include "metrics.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

static const unsigned codes[] = METRIC_CODES;
_Static_assert(sizeof codes / sizeof *codes + 1 == METRIC_NCODES,
	       "METRIC_NCODES counts METRIC_CODES and 'other'");

/* Upper bounds of the duration buckets, seconds (the last is +Inf). */
static const double bucket_le[METRIC_NBUCKETS] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5,
	2.5, 10,
};

static const char *const outcome_names[BUILD_NOUTCOMES] = {
	"built", "not_found", "no_cfi", "failed", "timeout", "rejected",
};
static const char *const up_artifacts[UP_NARTIFACTS] = { "executable",
							 "debuginfo" };
static const char *const up_outcomes[UP_NOUTCOMES] = { "ok", "not_found",
						       "error" };
static const char *const cache_names[CACHE_NKINDS] = { "metadata",
						       "negative" };

#define INC(x, n) atomic_fetch_add_explicit(&(x), (n), memory_order_relaxed)
#define GET(x) atomic_load_explicit(&(x), memory_order_relaxed)

double metrics_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void metrics_init(metrics *m)
{
	memset(m, 0, sizeof *m);
	m->start = metrics_now();
}

void metrics_request(metrics *m, route_kind k, unsigned code, uint64_t bytes,
		     double seconds)
{
	size_t c = METRIC_NCODES - 1;
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
		if (codes[i] == code)
			c = i;
	INC(m->requests[k][c], 1);
	INC(m->bytes[k], bytes);
	size_t b = 0;
	while (b < METRIC_NBUCKETS && seconds > bucket_le[b])
		b++;
	INC(m->buckets[k][b], 1);
	INC(m->duration_us[k], (uint64_t)(seconds * 1e6));
}

void metrics_build(metrics *m, build_outcome o, double seconds)
{
	INC(m->builds[o], 1);
	if (seconds > 0) {
		INC(m->build_us, (uint64_t)(seconds * 1e6));
		INC(m->builds_timed, 1);
	}
}

void metrics_upstream(metrics *m, upstream_artifact a, upstream_outcome o)
{
	INC(m->upstream[a][o], 1);
}

void metrics_cache(metrics *m, cache_kind c, int hit)
{
	if (hit)
		INC(m->cache_hits[c], 1);
	else
		INC(m->cache_misses[c], 1);
}

static void head(FILE *out, const char *name, const char *type,
		 const char *help)
{
	fprintf(out, "# HELP ehelf_server_%s %s\n# TYPE ehelf_server_%s %s\n",
		name, help, name, type);
}

void metrics_gauge(FILE *out, const char *name, const char *help,
		   double value)
{
	head(out, name, "gauge", help);
	fprintf(out, "ehelf_server_%s %.17g\n", name, value);
}

void metrics_write(const metrics *m, FILE *out)
{
	head(out, "http_requests_total", "counter",
	     "HTTP requests answered, by artifact and status code.");
	for (int k = 0; k < METRIC_ROUTES; k++)
		for (int c = 0; c < METRIC_NCODES; c++) {
			uint64_t n = GET(m->requests[k][c]);
			if (!n)
				continue;
			char code[16];
			if (c < METRIC_NCODES - 1)
				snprintf(code, sizeof code, "%u", codes[c]);
			else
				snprintf(code, sizeof code, "other");
			fprintf(out, "ehelf_server_http_requests_total{artifact=\"%s\","
				"code=\"%s\"} %" PRIu64 "\n",
				route_label((route_kind)k), code, n);
		}
	head(out, "http_response_bytes_total", "counter",
	     "Response body bytes sent, by artifact.");
	for (int k = 0; k < METRIC_ROUTES; k++)
		fprintf(out, "ehelf_server_http_response_bytes_total{artifact=\"%s\"}"
			" %" PRIu64 "\n", route_label((route_kind)k),
			(uint64_t)GET(m->bytes[k]));
	head(out, "http_request_duration_seconds", "histogram",
	     "Time from a request's headers to its response, by artifact.");
	for (int k = 0; k < METRIC_ROUTES; k++) {
		const char *a = route_label((route_kind)k);
		uint64_t cum = 0;
		for (int b = 0; b <= METRIC_NBUCKETS; b++) {
			cum += GET(m->buckets[k][b]);
			if (b < METRIC_NBUCKETS)
				fprintf(out, "ehelf_server_http_request_duration_seconds_"
					"bucket{artifact=\"%s\",le=\"%g\"} %" PRIu64
					"\n", a, bucket_le[b], cum);
			else
				fprintf(out, "ehelf_server_http_request_duration_seconds_"
					"bucket{artifact=\"%s\",le=\"+Inf\"} %" PRIu64
					"\n", a, cum);
		}
		fprintf(out, "ehelf_server_http_request_duration_seconds_sum"
			"{artifact=\"%s\"} %.6f\n", a,
			(double)GET(m->duration_us[k]) / 1e6);
		fprintf(out, "ehelf_server_http_request_duration_seconds_count"
			"{artifact=\"%s\"} %" PRIu64 "\n", a, cum);
	}
	head(out, "ondemand_builds_total", "counter",
	     "On-demand builds, by outcome.");
	for (int o = 0; o < BUILD_NOUTCOMES; o++)
		fprintf(out, "ehelf_server_ondemand_builds_total{outcome=\"%s\"} %"
			PRIu64 "\n", outcome_names[o], (uint64_t)GET(m->builds[o]));
	head(out, "ondemand_build_seconds", "summary",
	     "Wall time of the on-demand builds that ran.");
	fprintf(out, "ehelf_server_ondemand_build_seconds_sum %.6f\n"
		"ehelf_server_ondemand_build_seconds_count %" PRIu64 "\n",
		(double)GET(m->build_us) / 1e6, (uint64_t)GET(m->builds_timed));
	head(out, "upstream_fetches_total", "counter",
	     "Fetches from upstream debuginfod servers, by artifact and outcome.");
	for (int a = 0; a < UP_NARTIFACTS; a++)
		for (int o = 0; o < UP_NOUTCOMES; o++)
			fprintf(out, "ehelf_server_upstream_fetches_total{artifact="
				"\"%s\",outcome=\"%s\"} %" PRIu64 "\n",
				up_artifacts[a], up_outcomes[o],
				(uint64_t)GET(m->upstream[a][o]));
	head(out, "cache_hits_total", "counter",
	     "Lookups answered from a cache: file metadata, negative entries.");
	for (int c = 0; c < CACHE_NKINDS; c++)
		fprintf(out, "ehelf_server_cache_hits_total{cache=\"%s\"} %" PRIu64
			"\n", cache_names[c], (uint64_t)GET(m->cache_hits[c]));
	head(out, "cache_misses_total", "counter", "Lookups a cache could not answer.");
	for (int c = 0; c < CACHE_NKINDS; c++)
		fprintf(out, "ehelf_server_cache_misses_total{cache=\"%s\"} %" PRIu64
			"\n", cache_names[c], (uint64_t)GET(m->cache_misses[c]));
	metrics_gauge(out, "connections", "Open client connections.",
		      (double)GET(m->connections));
	head(out, "connections_total", "counter", "Client connections accepted.");
	fprintf(out, "ehelf_server_connections_total %" PRIu64 "\n",
		(uint64_t)GET(m->connections_total));
	head(out, "connections_refused_total", "counter",
	     "Requests answered 503 because of the connection limit.");
	fprintf(out, "ehelf_server_connections_refused_total %" PRIu64 "\n",
		(uint64_t)GET(m->connections_refused));
	head(out, "connections_cut_total", "counter",
	     "Connections closed for not completing a request's headers in time.");
	fprintf(out, "ehelf_server_connections_cut_total %" PRIu64 "\n",
		(uint64_t)GET(m->connections_cut));
	metrics_gauge(out, "uptime_seconds", "Seconds since the server started.",
		      metrics_now() - m->start);
}
