/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON writer (cJSON only), and the atomic -o file writer for every format. */
#include "anonremap.h"
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_json(cJSON *doc, FILE *fp)
{
	char *s = cJSON_Print(doc);
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

/* A temporary file beside the target, renamed into place: readers see the
 * old file or the whole new one, never a part. */
int out_to_file(cJSON *doc, enum out_format f, const char *path, struct err *err)
{
	char *tmp = xmalloc(strlen(path) + 16);
	sprintf(tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(err, "%s: %s", path, strerror(errno));
		free(tmp);
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
		return -1;
	}
	int rc = out_write(doc, f, fp);
	int e = errno;
	if (!rc && fsync(fileno(fp)))
		rc = -1, e = errno;
	if (fclose(fp) && !rc)
		rc = -1, e = errno;
	if (!rc && rename(tmp, path))
		rc = -1, e = errno;
	if (rc) {
		unlink(tmp);
		err_set(err, "%s: %s", path, strerror(e ? e : EIO));
	}
	free(tmp);
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
 * sscanf to check it: a third of a maps dump's user time. Whole numbers
 * (all anonremap writes in a VMA) are turned into their digits beforehand. */
static void whole_numbers_raw(cJSON *obj)
{
	for (cJSON *c = obj->child; c; c = c->next) {
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			whole_numbers_raw(c);
			continue;
		}
		if (!cJSON_IsNumber(c))
			continue;
		double d = c->valuedouble;
		if (!(d >= 0 && d < 9007199254740992.0) || d != (double)(uint64_t)d)
			continue; /* negative, fractional or beyond 2^53: cJSON's own way */
		char digits[24], *q = digits + sizeof(digits);
		uint64_t v = (uint64_t)d;
		*--q = 0;
		do
			*--q = (char)('0' + v % 10);
		while (v /= 10);
		/* in place: the key stays; cJSON_Delete frees a raw's text */
		c->valuestring = xstrdup(q);
		c->type = cJSON_Raw | (c->type & cJSON_StringIsConst);
	}
}

int json_stream_item(struct json_stream *s, cJSON *item)
{
	whole_numbers_raw(item);
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
