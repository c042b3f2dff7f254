/* curl_api.c - see curl_api.h. */
#include "curl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static curl_api api;
static const curl_api *loaded;
static char error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(error, sizeof error, "cannot load libcurl: %s", dlerror());
		return;
	}
	CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(h, "curl_global_init");
	struct { void **slot; const char *name; } fn[] = {
		{ (void **)&api.easy_init, "curl_easy_init" },
		{ (void **)&api.easy_setopt, "curl_easy_setopt" },
		{ (void **)&api.easy_getinfo, "curl_easy_getinfo" },
		{ (void **)&api.easy_cleanup, "curl_easy_cleanup" },
		{ (void **)&api.easy_strerror, "curl_easy_strerror" },
		{ (void **)&api.multi_init, "curl_multi_init" },
		{ (void **)&api.multi_add_handle, "curl_multi_add_handle" },
		{ (void **)&api.multi_remove_handle, "curl_multi_remove_handle" },
		{ (void **)&api.multi_perform, "curl_multi_perform" },
		{ (void **)&api.multi_info_read, "curl_multi_info_read" },
		{ (void **)&api.multi_poll, "curl_multi_poll" },
		{ (void **)&api.multi_cleanup, "curl_multi_cleanup" },
	};
	for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++)
		if (!(*fn[i].slot = dlsym(h, fn[i].name))) {
			snprintf(error, sizeof error, "libcurl.so.4 lacks %s "
				 "(libcurl 7.66 or later is needed)", fn[i].name);
			return; /* h stays loaded: nothing else is */
		}
	if (!global_init || global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(error, sizeof error, "libcurl failed to initialise");
		return;
	}
	loaded = &api;
}

const curl_api *curl_api_get(char *why, size_t whylen)
{
	pthread_once(&once, load);
	if (!loaded)
		snprintf(why, whylen, "%s", error);
	return loaded;
}
