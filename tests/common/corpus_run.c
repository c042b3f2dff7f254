/* corpus_run.c - see corpus_run.h. */
#include "corpus_run.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char **corpus_read_list(const char *file, size_t *n)
{
	FILE *in = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!in) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		exit(1);
	}
	char **v = NULL, *line = NULL;
	size_t cap = 0, lcap = 0;
	ssize_t len;
	*n = 0;
	while ((len = getline(&line, &lcap, in)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof *v);
			if (!v)
				abort();
		}
		v[(*n)++] = strdup(line);
	}
	free(line);
	if (in != stdin)
		fclose(in);
	return v;
}

void corpus_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int corpus_run(char **paths, size_t n, int jobs,
	       void (*check)(const char *path, uint64_t *counters),
	       size_t nwords, uint64_t *sum)
{
	if (jobs < 1)
		jobs = 1;
	int *fds = calloc((size_t)jobs, sizeof *fds);
	uint64_t *c = calloc(nwords, sizeof *c);
	if (!fds || !c)
		abort();
	memset(sum, 0, nwords * sizeof *sum);
	int started = 0;
	for (int k = 0; k < jobs; k++) {
		int pfd[2];
		if (pipe(pfd) < 0)
			break;
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			close(pfd[0]);
			close(pfd[1]);
			break;
		}
		if (pid == 0) {
			close(pfd[0]);
			for (size_t i = (size_t)k; i < n; i += (size_t)jobs)
				check(paths[i], c);
			fflush(NULL);
			size_t bytes = nwords * sizeof *c;
			_exit(write(pfd[1], c, bytes) == (ssize_t)bytes ? 0 : 1);
		}
		close(pfd[1]);
		fds[started++] = pfd[0];
	}
	int dead = jobs - started;
	for (int k = 0; k < started; k++) {
		size_t bytes = nwords * sizeof *c;
		if (read(fds[k], c, bytes) == (ssize_t)bytes) {
			for (size_t w = 0; w < nwords; w++)
				sum[w] += c[w];
		} else {
			dead++;
		}
		close(fds[k]);
	}
	while (wait(NULL) > 0)
		;
	free(fds);
	free(c);
	return dead;
}

int corpus_parse_args(int argc, char **argv, const char *usage, corpus_opts *o)
{
	static const struct option opts[] = {
		{ "files-from", required_argument, NULL, 'f' },
		{ "max-report", required_argument, NULL, 'm' },
		{ "random", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *list = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "j:f:m:r:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': o->jobs = atoi(optarg); break;
		case 'f': list = optarg; break;
		case 'm': o->max_report = atoi(optarg); break;
		case 'r': o->random = atoi(optarg); break;
		case 'v': o->verbose = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	o->files = argv + optind;
	o->nfiles = (size_t)(argc - optind);
	if (list) {
		o->files = corpus_read_list(list, &o->nfiles);
		o->files_owned = true;
	}
	if (o->jobs < 1 || o->nfiles == 0) {
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

void corpus_opts_free(corpus_opts *o)
{
	if (o->files_owned)
		corpus_free_list(o->files, o->nfiles);
	o->files = NULL;
	o->nfiles = 0;
}

void corpus_report(const corpus_opts *o, const char *fmt, ...)
{
	static int reported;
	if (reported++ >= o->max_report)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
