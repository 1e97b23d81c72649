/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What makes a result self-contained for a bug report: the command line,
 * the date, the VM settings, the probed features, the kernel config, and a
 * short text summary for pasting into a mail. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The config options that bear on VMA merging, moves and THP. */
static const char *const config_opts[] = {
	"CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS", "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE",
	"CONFIG_TRANSPARENT_HUGEPAGE_NEVER", "CONFIG_READ_ONLY_THP_FOR_FS", "CONFIG_USERFAULTFD", "CONFIG_KSM",
	"CONFIG_MEM_SOFT_DIRTY", "CONFIG_PER_VMA_LOCK", "CONFIG_PROC_PAGE_MONITOR", "CONFIG_ANON_VMA_NAME",
	"CONFIG_HAVE_MOVE_PMD", "CONFIG_HAVE_MOVE_PUD", "CONFIG_MIGRATION", "CONFIG_COMPACTION", "CONFIG_NUMA",
	"CONFIG_SWAP", "CONFIG_ZSWAP", "CONFIG_MEMCG", "CONFIG_UPROBES", "CONFIG_64BIT", "CONFIG_PGTABLE_LEVELS",
	"CONFIG_DEBUG_VM", "CONFIG_DEBUG_VM_MAPLE_TREE", "CONFIG_LOCKDEP", "CONFIG_PROVE_LOCKING", "CONFIG_KASAN",
	NULL,
};

/* gzip -dc /proc/config.gz, spawned straight (no shell: popen's sh cost
 * as much as gzip itself), its stdout a pipe, stderr /dev/null. */
static FILE *gunzip_config(pid_t *pid)
{
	static char *const argv[] = { "gzip", "-dc", "/proc/config.gz", NULL };
	posix_spawn_file_actions_t fa;
	int fds[2];
	FILE *fp = NULL;

	*pid = -1;
	if (access("/proc/config.gz", R_OK) || pipe2(fds, O_CLOEXEC))
		return NULL;
	if (!posix_spawn_file_actions_init(&fa)) {
		posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		if (posix_spawnp(pid, "gzip", &fa, NULL, argv, environ))
			*pid = -1;
		posix_spawn_file_actions_destroy(&fa);
	}
	close(fds[1]);
	if (*pid > 0)
		fp = fdopen(fds[0], "re");
	if (!fp)
		close(fds[0]);
	return fp;
}

/* /proc/config.gz through gzip, else /boot/config-RELEASE. */
static cJSON *config_json(void)
{
	char path[256], line[512];
	cJSON *o = cJSON_CreateObject();
	pid_t gz;
	FILE *fp = gunzip_config(&gz);
	bool any = false;

	for (int pass = 0; pass < 2 && !any; pass++) {
		if (pass == 1) {
			snprintf(path, sizeof(path), "/boot/config-%s", kinfo.release);
			fp = fopen(path, "re");
		}
		while (fp && fgets(line, sizeof(line), fp)) {
			line[strcspn(line, "\n")] = 0;
			for (int i = 0; config_opts[i]; i++) {
				size_t n = strlen(config_opts[i]);
				if (!strncmp(line, config_opts[i], n) && line[n] == '=') {
					cJSON_AddStringToObject(o, config_opts[i], line + n + 1);
					any = true;
				} else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, config_opts[i], n) &&
					   !strcmp(line + 2 + n, " is not set")) {
					cJSON_AddStringToObject(o, config_opts[i], "not set");
					any = true;
				}
			}
		}
		/* close what this pass opened; gzip must be waited for */
		if (fp)
			fclose(fp);
		if (pass == 0 && gz > 0)
			while (waitpid(gz, NULL, 0) < 0 && errno == EINTR)
				;
		fp = NULL;
	}
	if (!any) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "error", "neither /proc/config.gz nor /boot/config-RELEASE is readable");
	}
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
	FILE *fp = open_memstream(&buf, &len);
	cJSON *k = cJSON_GetObjectItem(doc, "kernel"), *sc;
	cJSON *f = cJSON_GetObjectItem(k, "features");
	cJSON *st = cJSON_GetObjectItem(doc, "settings");

	if (!fp)
		return xstrdup("");
	fprintf(fp, "anonremap %s, Linux %s, %s\n", cJSON_GetStringValue(cJSON_GetObjectItem(doc, "version")),
		cJSON_GetStringValue(cJSON_GetObjectItem(k, "release")),
		cJSON_GetStringValue(cJSON_GetObjectItem(doc, "date")));
	fprintf(fp, "THP %s (defrag %s); MREMAP_RELOCATE_ANON %s\n",
		cJSON_GetStringValue(cJSON_GetObjectItem(st, "thp_enabled")),
		cJSON_GetStringValue(cJSON_GetObjectItem(st, "thp_defrag")),
		cJSON_IsTrue(cJSON_GetObjectItem(f, "mremap_relocate_anon")) ? "supported" : "not supported");
	fputs("command:", fp);
	cJSON *a;
	cJSON_ArrayForEach(a, cJSON_GetObjectItem(doc, "command_line"))
		fprintf(fp, " %s", a->valuestring);
	fputc('\n', fp);
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(sc, "reason"));
		fprintf(fp, "\n%s: %s%s%s%s\n", cJSON_GetStringValue(cJSON_GetObjectItem(sc, "name")),
			cJSON_GetStringValue(cJSON_GetObjectItem(sc, "status")), reason && *reason ? " (" : "",
			reason ? reason : "", reason && *reason ? ")" : "");
		cJSON *dumps = cJSON_GetObjectItem(sc, "dumps");
		cJSON *last = cJSON_GetArrayItem(dumps, cJSON_GetArraySize(dumps) - 1);
		if (last)
			out_text_dump(fp, last);
	}
	fclose(fp);
	return buf;
}
