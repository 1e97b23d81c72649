/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap probe: what this kernel supports, every value labelled or explained. */
#include "anonremap.h"
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct argp_option probe_options[] = {
	{ "format", 'f', "FORMAT", 0, "json (default) or text", 0 },
	{ 0 }
};

static error_t probe_parse(int key, char *arg, struct argp_state *state)
{
	enum out_format *f = state->input;

	switch (key) {
	case 'f':
		if (parse_format(arg, f) || *f == OUT_KTAP)
			argp_error(state, "--format: '%s' is not json or text", arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "probe takes no arguments");
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* Does pagemap show PFNs to us? Fault a page of our own and look. */
static void add_pagemap(cJSON *o)
{
	cJSON *pm = cJSON_AddObjectToObject(o, "pagemap");
	char *p = mmap(NULL, kinfo.page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e = 0;
	if (p == MAP_FAILED) {
		cJSON_AddStringToObject(pm, "detail", "mmap failed");
		return;
	}
	p[0] = 1;
	int rc = pagemap_read(getpid(), (uintptr_t)p, 1, &e);
	pagemap_close();
	munmap(p, kinfo.page_size);
	cJSON_AddBoolToObject(pm, "readable", rc == 0);
	cJSON_AddBoolToObject(pm, "pfns", rc == 0 && (e & PM_PFN_MASK));
	cJSON_AddStringToObject(pm, "detail", rc ? errno_name(-rc) :
			(e & PM_PFN_MASK) ? "present pages show their PFN" :
			"PFNs read as 0 (needs CAP_SYS_ADMIN): pages_state cannot mark THPs");
	uint64_t kf;
	cJSON *k = cJSON_AddObjectToObject(o, "kpageflags");
	rc = kpageflags_read(0, &kf);
	cJSON_AddBoolToObject(k, "readable", rc == 0);
	cJSON_AddStringToObject(k, "detail", rc ? "/proc/kpageflags is not readable (root only)" : "readable");
}

static cJSON *probe_json(void)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "version", PACKAGE_VERSION);
	cJSON *k = cJSON_AddObjectToObject(doc, "kernel");
	cJSON_AddStringToObject(k, "release", kinfo.release);
	cJSON_AddNumberToObject(k, "page_size", (double)kinfo.page_size);
	cJSON_AddNumberToObject(k, "pmd_size", (double)kinfo.pmd_size);
	cJSON_AddNumberToObject(k, "pud_size", (double)kinfo.pud_size);

	cJSON *thp = cJSON_AddObjectToObject(doc, "thp");
	const char *td = "/sys/kernel/mm/transparent_hugepage";
	char path[512];
	json_add_thp_file(thp, "enabled", "enabled", true);
	json_add_thp_file(thp, "defrag", "defrag", true);
	json_add_thp_file(thp, "shmem_enabled", "shmem_enabled", true);
	json_add_thp_file(thp, "khugepaged_pages_to_scan", "khugepaged/pages_to_scan", false);
	cJSON *sizes = cJSON_AddObjectToObject(thp, "sizes");
	DIR *d = opendir(td);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s/enabled", td, de->d_name);
		json_add_file(sizes, de->d_name, path, true);
	}
	if (d)
		closedir(d);

	cJSON_AddItemToObject(doc, "features", features_json(true));
	add_pagemap(doc);
	cJSON *sys = cJSON_AddObjectToObject(doc, "sysctl");
	json_add_file(sys, "vm.max_map_count", "/proc/sys/vm/max_map_count", false);
	json_add_file(sys, "vm.mmap_min_addr", "/proc/sys/vm/mmap_min_addr", false);
	json_add_file(sys, "vm.overcommit_memory", "/proc/sys/vm/overcommit_memory", false);
	return doc;
}

static void text_obj(FILE *fp, cJSON *o, int depth)
{
	cJSON *it;
	cJSON_ArrayForEach(it, o) {
		fprintf(fp, "%*s%s:", depth * 2, "", it->string);
		if (cJSON_IsObject(it)) {
			cJSON *sup = cJSON_GetObjectItem(it, "supported");
			if (sup) {
				fprintf(fp, " %s (%s)\n", cJSON_IsTrue(sup) ? "yes" : "no",
					cJSON_GetObjectItem(it, "detail")->valuestring);
				continue;
			}
			fputc('\n', fp);
			text_obj(fp, it, depth + 1);
		} else if (cJSON_IsString(it)) {
			fprintf(fp, " %s\n", it->valuestring);
		} else if (cJSON_IsBool(it)) {
			fprintf(fp, " %s\n", cJSON_IsTrue(it) ? "yes" : "no");
		} else {
			fprintf(fp, " %.0f\n", it->valuedouble);
		}
	}
}

int cmd_probe(int argc, char **argv)
{
	static const char probe_doc[] = "Report what this kernel supports: sizes, THP settings, every "
				  "'requires' feature (probed for real in a throwaway child, with the errno "
				  "seen), pagemap and kpageflags access, and the VM sysctls.";
	struct argp argp = { probe_options, probe_parse, NULL, probe_doc, NULL, NULL, NULL };
	enum out_format f = OUT_JSON;

	if (argp_parse(&argp, argc, argv, 0, NULL, &f))
		return EXIT_USAGE;
	cJSON *doc = probe_json();
	int rc;
	if (f == OUT_TEXT) {
		text_obj(stdout, doc, 0);
		rc = fflush(stdout) ? -1 : 0;
	} else
		rc = out_write(doc, OUT_JSON, stdout);
	cJSON_Delete(doc);
	if (rc) {
		fprintf(stderr, "anonremap: cannot write to stdout: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	return EXIT_PASS;
}
