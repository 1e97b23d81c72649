/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What makes a result self-contained for a bug report: the command line,
 * the date, the VM settings, the probed features, the kernel config, and a
 * short text summary for pasting into a mail. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* The config options that bear on VMA merging, moves and THP, sorted for
 * bsearch: a config file has about ten thousand lines. */
static const char *const config_opts[] = {
	"CONFIG_64BIT", "CONFIG_ANON_VMA_NAME", "CONFIG_COMPACTION", "CONFIG_DEBUG_VM",
	"CONFIG_DEBUG_VM_MAPLE_TREE", "CONFIG_HAVE_MOVE_PMD", "CONFIG_HAVE_MOVE_PUD", "CONFIG_KASAN", "CONFIG_KSM",
	"CONFIG_LOCKDEP", "CONFIG_MEMCG", "CONFIG_MEM_SOFT_DIRTY", "CONFIG_MIGRATION", "CONFIG_NUMA",
	"CONFIG_PER_VMA_LOCK", "CONFIG_PGTABLE_LEVELS", "CONFIG_PROC_PAGE_MONITOR", "CONFIG_PROVE_LOCKING",
	"CONFIG_READ_ONLY_THP_FOR_FS", "CONFIG_SWAP", "CONFIG_TRANSPARENT_HUGEPAGE",
	"CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS", "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE",
	"CONFIG_TRANSPARENT_HUGEPAGE_NEVER", "CONFIG_UPROBES", "CONFIG_USERFAULTFD", "CONFIG_ZSWAP",
};

static int opt_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Record the option one line of a config file sets ("CONFIG_X=v") or
 * leaves out ("# CONFIG_X is not set"), if config_opts names it. */
static bool config_line(cJSON *o, char *line)
{
	bool unset = !strncmp(line, "# ", 2);
	char *name = line + (unset ? 2 : 0);
	char *end = name + strcspn(name, unset ? " " : "=");

	if (strncmp(name, "CONFIG_", 7) || !*end || (unset && strcmp(end, " is not set")))
		return false;
	char sep = *end;
	*end = 0;
	const char *const *opt = bsearch(name, config_opts, sizeof(config_opts) / sizeof(config_opts[0]),
					 sizeof(config_opts[0]), opt_cmp);
	*end = sep;
	if (!opt)
		return false;
	cJSON_AddStringToObject(o, *opt, unset ? "not set" : end + 1);
	return true;
}

/* /proc/config.gz through zlib, else /boot/config-RELEASE (gzopen reads
 * a plain file as it is). */
static cJSON *config_json(void)
{
	char path[256], line[512];
	cJSON *o = cJSON_CreateObject();
	bool any = false;

	snprintf(path, sizeof(path), "/boot/config-%s", kinfo.release);
	for (int pass = 0; pass < 2 && !any; pass++) {
		gzFile gz = gzopen(pass ? path : "/proc/config.gz", "rb");
		while (gz && gzgets(gz, line, sizeof(line))) {
			line[strcspn(line, "\n")] = 0;
			any |= config_line(o, line);
		}
		if (gz)
			gzclose(gz);
	}
	if (!any) /* nothing was added */
		cJSON_AddStringToObject(o, "error", "neither /proc/config.gz nor /boot/config-RELEASE is readable");
	return o;
}

void report_enrich(cJSON *doc, int argc, char **argv)
{
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	cJSON *cl = cJSON_CreateArray();
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(cl, cJSON_CreateString(argv[i]));
	cJSON_AddItemToObject(doc, "command_line", cl);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(doc, "date", date);
	cJSON *s = cJSON_AddObjectToObject(doc, "settings");
	char p[64];
	json_add_thp_file(s, "thp_enabled", "enabled", true);
	json_add_thp_file(s, "thp_defrag", "defrag", true);
	json_add_thp_file(s, "thp_shmem_enabled", "shmem_enabled", true);
	snprintf(p, sizeof(p), "hugepages-%lukB/enabled", (unsigned long)(kinfo.pmd_size >> 10));
	json_add_thp_file(s, "thp_pmd_enabled", p, true);
	json_add_file(s, "overcommit_memory", "/proc/sys/vm/overcommit_memory", false);
	json_add_file(s, "overcommit_ratio", "/proc/sys/vm/overcommit_ratio", false);
	json_add_file(s, "max_map_count", "/proc/sys/vm/max_map_count", false);
	json_add_file(s, "mmap_min_addr", "/proc/sys/vm/mmap_min_addr", false);
	cJSON_AddItemToObject(doc, "probe", features_json(true));
	cJSON_AddItemToObject(doc, "config", config_json());
}

/* The mail-sized summary: who, where, and each scenario's outcome and last layout. */
char *report_summary(cJSON *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = xopen_memstream(&buf, &len);
	cJSON *k = cJSON_GetObjectItem(doc, "kernel"), *sc;
	cJSON *f = cJSON_GetObjectItem(k, "features");
	cJSON *st = cJSON_GetObjectItem(doc, "settings");

	/* show prints this from someone else's file: every string escaped */
#define S(o, k) esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(o, k)))
	fprintf(fp, "anonremap %s, Linux %s, %s\n", S(doc, "version"), S(k, "release"), S(doc, "date"));
	fprintf(fp, "THP %s (defrag %s); MREMAP_RELOCATE_ANON %s\n", S(st, "thp_enabled"), S(st, "thp_defrag"),
		cJSON_IsTrue(cJSON_GetObjectItem(f, "mremap_relocate_anon")) ? "supported" : "not supported");
	fputs("command:", fp);
	cJSON *a;
	cJSON_ArrayForEach(a, cJSON_GetObjectItem(doc, "command_line"))
		fprintf(fp, " %s", esc_text(a->valuestring));
	fputc('\n', fp);
	esc_release();
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		const char *reason = S(sc, "reason");
		fprintf(fp, "\n%s: %s%s%s%s\n", S(sc, "name"), S(sc, "status"), reason && *reason ? " (" : "",
			reason ? reason : "", reason && *reason ? ")" : "");
		esc_release();
#undef S
		cJSON *dumps = cJSON_GetObjectItem(sc, "dumps");
		cJSON *last = cJSON_GetArrayItem(dumps, cJSON_GetArraySize(dumps) - 1);
		if (last)
			out_text_dump(fp, last);
	}
	fclose(fp);
	return buf;
}
