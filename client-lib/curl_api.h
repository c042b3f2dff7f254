/*
 * curl_api.h - libcurl, loaded when a fetch first needs it.
 *
 * libehelf-unwind is preloaded into programs that may never fetch; linked
 * against libcurl, every one of them would load it and the thirty-odd
 * libraries it depends on (GnuTLS, LDAP, Kerberos, ...), and run their
 * constructors, at start.  So fetch.c calls libcurl through this table,
 * filled by dlopen("libcurl.so.4") on first use (outside any unwind or
 * signal handler: fetching only happens there), and libehelf has no
 * DT_NEEDED on libcurl.  libcurl's global initialisation is done then,
 * once.
 */
#ifndef EHELF_CLIENT_CURL_API_H
#define EHELF_CLIENT_CURL_API_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct curl_api {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int,
				int, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
} curl_api;

/* The table, libcurl loaded and initialised; NULL when libcurl.so.4
 * cannot be loaded, with the reason in WHY (WHYLEN bytes).  Thread-safe. */
const curl_api *curl_api_get(char *why, size_t whylen);

#endif
