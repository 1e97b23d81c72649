/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON writer (cJSON only), and the atomic -o file writer for every format. */
#include "anonremap.h"
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void whole_numbers_raw(cJSON *obj, double min);
static bool any_wide(const cJSON *obj);

int out_json(cJSON *doc, FILE *fp)
{
	char *s;
	if (any_wide(doc)) { /* printed from a copy: the caller's numbers stay numbers */
		cJSON *copy = cJSON_Duplicate(doc, true);
		if (!copy)
			return -1;
		whole_numbers_raw(copy, 1e15);
		s = cJSON_Print(copy);
		cJSON_Delete(copy);
	} else {
		s = cJSON_Print(doc);
	}
	if (!s)
		return -1;
	int rc = fputs(s, fp) < 0 || fputc('\n', fp) < 0 ? -1 : 0;
	free(s);
	return rc;
}

int out_write(cJSON *doc, enum out_format f, FILE *fp)
{
	int rc;

	switch (f) {
	case OUT_TEXT:
		rc = out_text(doc, fp);
		break;
	case OUT_KTAP:
		rc = out_ktap(doc, fp);
		break;
	default:
		rc = out_json(doc, fp);
	}
	if (fflush(fp) || ferror(fp))
		rc = -1;
	return rc;
}

/* Where an output file goes, by what is there now: nothing or a regular
 * file is replaced atomically; a character device or a FIFO is written in
 * place (/dev/null, a named pipe), because renaming over it would put a
 * plain file where the whole machine uses the node. A symlink is followed
 * by those rules (a regular target is replaced, the link stays; -o
 * /dev/stdout writes the pipe); anything else (a block device, a directory,
 * a socket, a dangling symlink) is refused. *in_place says which; *real is
 * the file to write or replace, to free. */
int out_target(const char *path, bool *in_place, char **real, struct err *err)
{
	struct stat st;

	*in_place = false;
	*real = NULL;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return err_set(err, "%s: %s", path, strerror(errno));
		*real = xstrdup(path);
		return 0;
	}
	bool link = S_ISLNK(st.st_mode);
	if (link && stat(path, &st))
		return err_set(err, "%s: a symlink to %s: refused", path, errno == ENOENT ? "nothing" : strerror(errno));
	if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*in_place = !S_ISREG(st.st_mode);
		*real = link ? realpath(path, NULL) : xstrdup(path);
		if (!*real) /* a device or FIFO behind /proc/self/fd has no path to resolve */
			*real = xstrdup(path);
		return 0;
	}
	return err_set(err, "%s: %sa %s, not a file to write: refused", path, link ? "a symlink to " : "",
		       S_ISDIR(st.st_mode) ? "directory" : S_ISBLK(st.st_mode) ? "block device" : "socket");
}

/* A stream on an output file that is written as it goes (stress --trace):
 * out_target's rules, but a regular file is truncated, not replaced. */
FILE *out_open_stream(const char *path, struct err *err)
{
	bool in_place;
	char *real;

	if (out_target(path, &in_place, &real, err))
		return NULL;
	FILE *fp = fopen(real, in_place ? "ae" : "we");
	if (!fp)
		err_set(err, "%s: %s", path, strerror(errno));
	free(real);
	return fp;
}

/* A temporary file beside the target, renamed into place: readers see the
 * old file or the whole new one, never a part. A device or FIFO is written
 * in place (out_target). */
int out_to_file(cJSON *doc, enum out_format f, const char *path, struct err *err)
{
	bool in_place;
	char *real;

	if (out_target(path, &in_place, &real, err))
		return -1;
	if (in_place) {
		FILE *fp = fopen(real, "ae");
		free(real);
		if (!fp)
			return err_set(err, "%s: %s", path, strerror(errno));
		int rc = out_write(doc, f, fp), e = errno;
		if (fclose(fp) && !rc)
			rc = -1, e = errno;
		return rc ? err_set(err, "%s: %s", path, strerror(e ? e : EIO)) : 0;
	}
	char *tmp = xmalloc(strlen(real) + 16);
	sprintf(tmp, "%s.XXXXXX", real);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(err, "%s: %s", path, strerror(errno));
		free(tmp);
		free(real);
		return -1;
	}
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	FILE *fp = fdopen(fd, "w");
	if (!fp) {
		err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		free(real);
		return -1;
	}
	int rc = out_write(doc, f, fp);
	int e = errno;
	if (!rc && fsync(fileno(fp)))
		rc = -1, e = errno;
	if (fclose(fp) && !rc)
		rc = -1, e = errno;
	if (!rc && rename(tmp, real))
		rc = -1, e = errno;
	if (rc) {
		unlink(tmp);
		err_set(err, "%s: %s", path, strerror(e ? e : EIO));
	}
	free(tmp);
	free(real);
	return rc;
}

/* The head object is printed as out_json would, less its closing brace; the
 * array follows as its last key. */
int json_stream_begin(struct json_stream *s, cJSON *head, const char *array_key, FILE *fp)
{
	*s = (struct json_stream){ .fp = fp };
	char *h = cJSON_Print(head);
	if (!h)
		return -1;
	size_t hl = strlen(h);
	if (hl && h[hl - 1] == '}')
		hl--;
	if (hl && h[hl - 1] == '\n')
		hl--;
	cJSON *key = cJSON_CreateString(array_key);
	char *k = cJSON_PrintUnformatted(key);
	cJSON_Delete(key);
	int rc = !k || fwrite(h, 1, hl, fp) != hl ||
			 fprintf(fp, "%s\n\t%s:\t[", cJSON_GetArraySize(head) ? "," : "", k) < 0
		 ? -1
		 : 0;
	free(h);
	free(k);
	return rc;
}

/* cJSON 1.7.15 prints every number with "%1.15g" and reads it back with
 * sscanf to check it: a third of a maps dump's user time. And its check
 * allows a relative error of DBL_EPSILON, so a whole number from 10^15 up
 * can come out with its last digit rounded (4503599627370497 as
 * 4.5035996273705e+15): a replay would run another length. Whole numbers
 * from min up are turned into their digits beforehand (raw), exactly. */
static bool whole(double d, double min)
{
	return fabs(d) >= min && fabs(d) < 18446744073709551616.0 && d == trunc(d);
}

static bool any_wide(const cJSON *obj)
{
	for (const cJSON *c = obj->child; c; c = c->next)
		if (((cJSON_IsObject(c) || cJSON_IsArray(c)) && any_wide(c)) ||
		    (cJSON_IsNumber(c) && whole(c->valuedouble, 1e15)))
			return true;
	return false;
}

static void whole_numbers_raw(cJSON *obj, double min)
{
	for (cJSON *c = obj->child; c; c = c->next) {
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			whole_numbers_raw(c, min);
			continue;
		}
		if (!cJSON_IsNumber(c) || !whole(c->valuedouble, min))
			continue;
		double d = c->valuedouble;
		char digits[24], *q = digits + sizeof(digits);
		uint64_t v = (uint64_t)fabs(d);
		*--q = 0;
		do
			*--q = (char)('0' + v % 10);
		while (v /= 10);
		if (d < 0)
			*--q = '-';
		/* in place: the key stays; cJSON_Delete frees a raw's text */
		c->valuestring = xstrdup(q);
		c->type = cJSON_Raw | (c->type & cJSON_StringIsConst);
	}
}

int json_stream_item(struct json_stream *s, cJSON *item)
{
	whole_numbers_raw(item, 0);
	/* one buffer for every element: cJSON's own would be allocated anew each time */
	if (!s->cap) {
		s->cap = 64 * 1024;
		s->buf = xmalloc(s->cap);
	}
	while (!cJSON_PrintPreallocated(item, s->buf, (int)s->cap, false)) {
		if (s->cap >= (1u << 30))
			return -1;
		s->cap *= 2;
		free(s->buf);
		s->buf = xmalloc(s->cap);
	}
	return fputs(s->count++ ? ",\n\t\t" : "\n\t\t", s->fp) < 0 || fputs(s->buf, s->fp) < 0 ? -1 : 0;
}

int json_stream_end(struct json_stream *s)
{
	free(s->buf);
	s->buf = NULL;
	return fputs(s->count ? "\n\t]\n}\n" : "]\n}\n", s->fp) < 0 ? -1 : 0;
}
