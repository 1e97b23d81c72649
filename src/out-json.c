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
