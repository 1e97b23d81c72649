/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A main() for the fuzz harnesses without libFuzzer: replay inputs.
 *   replay-HARNESS FILE|DIR...
 * Each FILE, and every regular file directly in each DIR (in name order,
 * dot files skipped), is read into a buffer of exactly its size and given to
 * LLVMFuzzerTestOneInput(). Built with gcc -fsanitize=address,undefined this
 * is how make check replays tests/fuzz/corpus and tests/fuzz/crashes: any
 * sanitizer report aborts it. Prints "N inputs replayed"; exit 0, or 2 when
 * an argument cannot be read. scripts/fuzz.sh, which links libFuzzer's own
 * main(), defines ANONREMAP_LIBFUZZER and leaves this file out anyway. */
#ifndef ANONREMAP_LIBFUZZER
#include "anonremap.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input being replayed, named when it kills the process (an abort() of
 * ASan or of a harness check, a fault). Leaks show at exit, with no name. */
static const char *current;

static void on_fatal(int sig)
{
	static const char pre[] = "replay: died on ";
	if (current && write(2, pre, sizeof(pre) - 1) > 0 && write(2, current, strlen(current)) > 0 &&
	    write(2, "\n", 1) > 0) {
		/* nothing else is safe here */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int replay_file(const char *path, long *count)
{
	struct err err = { "" };
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char *buf = read_fd_all(fd, 1u << 30, &len, &err);
	close(fd);
	if (!buf) {
		fprintf(stderr, "replay: %s: %s\n", path, err.msg);
		return -1;
	}
	/* exactly len bytes, so that ASan sees a read past the input */
	uint8_t *data = xmalloc(len ? len : 1);
	memcpy(data, buf, len);
	free(buf);
	if (getenv("REPLAY_VERBOSE"))
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	current = path;
	LLVMFuzzerTestOneInput(data, len);
	current = NULL;
	free(data);
	(*count)++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, long *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				abort();
			names = nn;
		}
		size_t l = strlen(dir) + strlen(de->d_name) + 2;
		names[n] = xmalloc(l);
		snprintf(names[n], l, "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!stat(names[i], &st) && S_ISREG(st.st_mode) && replay_file(names[i], count))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	long count = 0;
	int rc = 0;

	static const int fatal[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], on_fatal);
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = 2;
		} else if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i], &count)) {
			rc = 2;
		}
	}
	printf("%ld inputs replayed\n", count);
	return rc;
}
#endif
