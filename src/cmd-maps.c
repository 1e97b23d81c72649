/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap maps PID: the VMA JSON of any live process. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct maps_args {
	pid_t pid;
	struct dump_opts o;
	bool have_pid;
};

static const struct argp_option maps_options[] = {
	{ "no-smaps", 'S', NULL, 0, "skip /proc/PID/smaps (rss, anon, THP, VmFlags)", 0 },
	{ "no-pagemap", 'P', NULL, 0, "skip /proc/PID/pagemap (pages_state)", 0 },
	{ "xray", 'X', NULL, 0, "add the x-ray module's view of each VMA (see kmod/)", 0 },
	{ 0 }
};

static error_t maps_parse(int key, char *arg, struct argp_state *state)
{
	struct maps_args *a = state->input;
	char *end;

	switch (key) {
	case 'S':
		a->o.smaps = false;
		return 0;
	case 'P':
		a->o.pagemap = false;
		return 0;
	case 'X':
		a->o.xray = true;
		return 0;
	case ARGP_KEY_ARG:
		if (a->have_pid)
			argp_error(state, "one PID only");
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || v <= 0 || v > 0x3fffffff)
			argp_error(state, "'%s' is not a process id", arg);
		a->pid = v;
		a->have_pid = true;
		return 0;
	case ARGP_KEY_END:
		if (!a->have_pid)
			argp_error(state, "a PID is needed");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_maps(int argc, char **argv)
{
	static const char maps_doc[] = "Dump the VMAs of a live process as JSON, in the same VMA "
				  "format as a scenario dump (no carveout-relative addresses).\v"
				  "Reading another process needs ptrace-read access to it. Exit status: "
				  "0 done, 2 usage, 3 the process could not be read.";
	struct argp argp = { maps_options, maps_parse, "PID", maps_doc, NULL, NULL, NULL };
	struct maps_args a = { .o = { .smaps = true, .pagemap = true } };
	struct vma_src vs;
	struct err err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	int rc = vma_open(&vs, a.pid);
	if (rc < 0) {
		fprintf(stderr, "anonremap: /proc/%d/maps: %s\n", (int)a.pid, strerror(-rc));
		return EXIT_ERROR;
	}
	cJSON *xst = a.o.xray ? cJSON_CreateObject() : NULL;
	a.o.xray_status = xst;
	cJSON *vmas = vmas_json(&vs, &a.o, 0, UINT64_MAX, &err);
	if (!vmas) {
		fprintf(stderr, "anonremap: %s\n", err.msg);
		cJSON_Delete(xst);
		vma_close(&vs);
		return EXIT_ERROR;
	}
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddNumberToObject(doc, "pid", a.pid);
	cJSON_AddStringToObject(doc, "source", vs.query ? "procmap_query" : "maps");
	cJSON_AddNumberToObject(doc, "vma_count", cJSON_GetArraySize(vmas));
	cJSON_AddItemToObject(doc, "vmas", vmas);
	if (xst)
		cJSON_AddItemToObject(doc, "xray", xst);
	vma_close(&vs);
	rc = out_write(doc, OUT_JSON, stdout);
	cJSON_Delete(doc);
	if (rc) {
		fprintf(stderr, "anonremap: cannot write to stdout: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	return EXIT_PASS;
}
