/*
 * metrics.h - the server's counters, and their Prometheus text exposition
 * (GET /metrics).  Every counter is a relaxed atomic: any thread may count
 * without a lock, and a scrape sees each counter's own latest value.
 *
 * Names (all prefixed ehelf_server_):
 *   http_requests_total{artifact,code}     requests answered, by route and
 *                                          status (431 and connection-limit
 *                                          refusals libmicrohttpd answers
 *                                          itself are not seen here)
 *   http_response_bytes_total{artifact}    body bytes queued (HEAD: 0)
 *   http_request_duration_seconds{artifact} histogram, first byte of the
 *                                          request handled to the response
 *                                          sent (on-demand waits included)
 *   ondemand_builds_total{outcome}         built, not_found, no_cfi, failed,
 *                                          timeout, rejected (queue full)
 *   ondemand_build_seconds_{sum,count}     builds that ran
 *   upstream_fetches_total{artifact,outcome} executable/debuginfo x
 *                                          ok/not_found/error
 *   cache_hits_total{cache}, cache_misses_total{cache}: "metadata" (size,
 *                                          SHA-256, signature of a file),
 *                                          "negative" (on-demand misses)
 *   connections (gauge), connections_total, connections_refused_total,
 *   connections_cut_total (no complete request within the timeout)
 *   uptime_seconds, and the gauges the caller adds (store size, queue).
 */
#ifndef EHELF_SERVER_METRICS_H
#define EHELF_SERVER_METRICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "route.h"

enum { METRIC_ROUTES = ROUTE_UNKNOWN + 1 };

/* The status codes counted one by one; others go to "other". */
#define METRIC_CODES { 200, 304, 400, 404, 405, 500, 502, 503, 504 }
enum { METRIC_NCODES = 10 };          /* the nine above and "other" */
enum { METRIC_NBUCKETS = 12 };        /* duration histogram buckets */

typedef enum build_outcome {
	BUILD_BUILT, BUILD_NOT_FOUND, BUILD_NO_CFI, BUILD_FAILED,
	BUILD_TIMEOUT, BUILD_REJECTED, BUILD_NOUTCOMES
} build_outcome;

typedef enum upstream_artifact { UP_EXECUTABLE, UP_DEBUGINFO, UP_NARTIFACTS }
	upstream_artifact;
typedef enum upstream_outcome { UP_OK, UP_NOT_FOUND, UP_ERROR, UP_NOUTCOMES }
	upstream_outcome;

typedef enum cache_kind { CACHE_METADATA, CACHE_NEGATIVE, CACHE_NKINDS }
	cache_kind;

typedef struct metrics {
	atomic_uint_fast64_t requests[METRIC_ROUTES][METRIC_NCODES];
	atomic_uint_fast64_t bytes[METRIC_ROUTES];
	atomic_uint_fast64_t buckets[METRIC_ROUTES][METRIC_NBUCKETS + 1];
	atomic_uint_fast64_t duration_us[METRIC_ROUTES];
	atomic_uint_fast64_t builds[BUILD_NOUTCOMES];
	atomic_uint_fast64_t build_us, builds_timed;
	atomic_uint_fast64_t upstream[UP_NARTIFACTS][UP_NOUTCOMES];
	atomic_uint_fast64_t cache_hits[CACHE_NKINDS], cache_misses[CACHE_NKINDS];
	atomic_int_fast64_t connections;
	atomic_uint_fast64_t connections_total, connections_refused;
	atomic_uint_fast64_t connections_cut;
	double start;  /* monotonic seconds at start */
} metrics;

void metrics_init(metrics *m);

/* A request answered: route K, status CODE, BYTES of body, SECONDS. */
void metrics_request(metrics *m, route_kind k, unsigned code, uint64_t bytes,
		     double seconds);
void metrics_build(metrics *m, build_outcome o, double seconds);
void metrics_upstream(metrics *m, upstream_artifact a, upstream_outcome o);
void metrics_cache(metrics *m, cache_kind c, int hit);

/* Monotonic seconds. */
double metrics_now(void);

/* Write every metric to OUT in the text exposition format.  The caller
 * writes its own gauges after (metrics_gauge). */
void metrics_write(const metrics *m, FILE *out);

/* One gauge line with its HELP and TYPE. */
void metrics_gauge(FILE *out, const char *name, const char *help,
		   double value);

#endif
