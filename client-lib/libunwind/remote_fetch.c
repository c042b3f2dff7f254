/* remote_fetch.c - see remote_fetch.h. */
#define _GNU_SOURCE
#include "quiet_thread.h"
#include "remote_fetch.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/buildid.h"
#include "../fetch.h"
#include "../resolve.h"

enum { QUEUE_MAX = 256, HEX_MAX = 129 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static char queue[QUEUE_MAX][HEX_MAX]; /* wanted, not yet fetched */
static size_t queued;
static bool running;
static atomic_uint generation;

unsigned remote_fetch_generation(void)
{
	return atomic_load_explicit(&generation, memory_order_acquire);
}

void remote_fetch_want(const uint8_t *id, size_t len)
{
	char hex[HEX_MAX];
	if (!running || buildid_to_hex(id, len, hex, sizeof hex) < 0)
		return;
	pthread_mutex_lock(&lock);
	bool dup = false;
	for (size_t i = 0; i < queued && !dup; i++)
		dup = !strcmp(queue[i], hex);
	if (!dup && queued < QUEUE_MAX) {
		memcpy(queue[queued++], hex, sizeof hex);
		pthread_cond_signal(&wake);
	}
	pthread_mutex_unlock(&lock);
}

static bool verbose(void)
{
	const char *v = secure_getenv("EHELF_VERBOSE");
	return v && *v && strcmp(v, "0") != 0;
}

static void *fetch_thread(void *unused)
{
	(void)unused;
	pthread_setname_np(pthread_self(), "ehelf-rfetch");
	static char batch[QUEUE_MAX][HEX_MAX];
	const char *ids[QUEUE_MAX];
	fetch_status st[QUEUE_MAX];
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!queued)
			pthread_cond_wait(&wake, &lock);
		size_t n = queued;
		memcpy(batch, queue, n * sizeof *queue);
		queued = 0;
		pthread_mutex_unlock(&lock);
		for (size_t i = 0; i < n; i++)
			ids[i] = batch[i];
		const fetch_config *c = resolve_config();
		ehelf_err err;
		int got = c ? fetch_ids(c, ids, n, st, NULL, &err) : -1;
		atomic_fetch_add_explicit(&generation, 1, memory_order_release);
		if (verbose())
			fprintf(stderr, "libehelf-unwind: remote spaces: %d of %zu "
				"eh_elf%s fetched in the background\n",
				got < 0 ? 0 : got, n, n == 1 ? "" : "s");
	}
	return NULL;
}

static void start_once(void)
{
	const char *urls = secure_getenv("EHELF_URLS");
	if (!urls || !urls[strspn(urls, " \t\n")])
		return;
	running = quiet_thread_start(fetch_thread, NULL) == 0;
}

void remote_fetch_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, start_once);
}
