/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What kernel we run on: release, page sizes, THP settings. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct kinfo kinfo;

int read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* sysfs choice files show the active value in brackets: "always [madvise] never". */
int sysfs_bracketed(const char *path, char *out, size_t len)
{
	char buf[256];
	int rc = read_small_file(path, buf, sizeof(buf));
	if (rc)
		return rc;
	char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
	if (!l || !r) {
		snprintf(out, len, "%s", buf);
		return 0;
	}
	*r = 0;
	snprintf(out, len, "%s", l + 1);
	return 0;
}

void kinfo_init(void)
{
	struct utsname u;
	char buf[64];

	kinfo.page_size = sysconf(_SC_PAGESIZE);
	/* The PMD maps a page of page-table entries, each sizeof(long). */
	kinfo.pmd_size = kinfo.page_size * (kinfo.page_size / sizeof(long));
	if (!read_small_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)))
		kinfo.pmd_size = strtoull(buf, NULL, 10);
	kinfo.pud_size = kinfo.pmd_size * (kinfo.page_size / sizeof(long));
	if (!uname(&u))
		snprintf(kinfo.release, sizeof(kinfo.release), "%s", u.release);
}

/* A /proc or /sys value under key: a number as a number, a choice file's
 * active choice, or why it could not be read. */
void json_add_file(cJSON *o, const char *key, const char *path, bool bracketed)
{
	char buf[256], why[300];
	int rc = bracketed ? sysfs_bracketed(path, buf, sizeof(buf)) : read_small_file(path, buf, sizeof(buf));
	if (rc) {
		snprintf(why, sizeof(why), "unreadable (%s: %s)", path, errno_name(-rc));
		cJSON_AddStringToObject(o, key, why);
	} else if (!bracketed && buf[0] && strspn(buf, "0123456789") == strlen(buf)) {
		cJSON_AddNumberToObject(o, key, strtod(buf, NULL));
	} else {
		cJSON_AddStringToObject(o, key, buf);
	}
}

/* A file of /sys/kernel/mm/transparent_hugepage under key. */
void json_add_thp_file(cJSON *o, const char *key, const char *name, bool bracketed)
{
	char path[512];
	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", name);
	json_add_file(o, key, path, bracketed);
}

/* features: probe and list them (the text and KTAP outputs never show them) */
cJSON *kinfo_json(bool features)
{
	cJSON *k = cJSON_CreateObject();
	cJSON_AddStringToObject(k, "release", kinfo.release);
	cJSON_AddNumberToObject(k, "page_size", (double)kinfo.page_size);
	cJSON_AddNumberToObject(k, "pmd_size", (double)kinfo.pmd_size);
	cJSON_AddNumberToObject(k, "pud_size", (double)kinfo.pud_size);
	cJSON *thp = cJSON_AddObjectToObject(k, "thp");
	json_add_thp_file(thp, "enabled", "enabled", true);
	json_add_thp_file(thp, "defrag", "defrag", true);
	if (features)
		cJSON_AddItemToObject(k, "features", features_json(false));
	return k;
}
