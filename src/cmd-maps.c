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
	bool procmap_query;
};

static const struct argp_option maps_options[] = {
	{ "no-smaps", 'S', NULL, 0, "skip /proc/PID/smaps (rss, anon, THP, VmFlags)", 0 },
	{ "no-pagemap", 'P', NULL, 0, "skip /proc/PID/pagemap (pages_state)", 0 },
	{ "xray", 'X', NULL, 0, "add the x-ray module's view of each VMA (see kmod/)", 0 },
	{ "procmap-query", 'Q', NULL, 0, "list the VMAs with one PROCMAP_QUERY ioctl each, not one read of /proc/PID/maps", 0 },
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
	case 'Q':
		a->procmap_query = true;
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

/* The document is written while the VMAs are read: its head (with the
 * count, known once the VMAs are listed) first, then a VMA a line. */
struct maps_out {
	struct json_stream js;
	const struct maps_args *a;
	const struct vma_src *vs;
	cJSON *xray_status;
	int write_errno; /* stdout failed: the walk stops for that */
};

static int maps_begin(void *ctx, size_t count)
{
	struct maps_out *m = ctx;
	cJSON *head = cJSON_CreateObject();
	cJSON_AddNumberToObject(head, "anonremap", FORMAT_VERSION);
	cJSON_AddNumberToObject(head, "pid", m->a->pid);
	cJSON_AddStringToObject(head, "source", m->vs->query ? "procmap_query" : "maps");
	cJSON_AddNumberToObject(head, "vma_count", (double)count);
	if (m->xray_status)
		cJSON_AddItemReferenceToObject(head, "xray", m->xray_status);
	int rc = json_stream_begin(&m->js, head, "vmas", stdout);
	cJSON_Delete(head);
	if (rc)
		m->write_errno = errno ? errno : EIO;
	return -m->write_errno;
}

static int maps_vma(void *ctx, cJSON *vma)
{
	struct maps_out *m = ctx;
	int rc = json_stream_item(&m->js, vma);
	cJSON_Delete(vma);
	if (rc)
		m->write_errno = errno ? errno : EIO;
	return -m->write_errno;
}

int cmd_maps(int argc, char **argv)
{
	static const char maps_doc[] = "Dump the VMAs of a live process as JSON, in the same VMA "
				  "format as a scenario dump (no carveout-relative addresses), one VMA "
				  "a line.\v"
				  "Reading another process needs ptrace-read access to it. Exit status: "
				  "0 done, 2 usage, 3 the process could not be read.";
	struct argp argp = { maps_options, maps_parse, "PID", maps_doc, NULL, NULL, NULL };
	struct maps_args a = { .o = { .smaps = true, .pagemap = true, .smaps_thread = true } };
	struct vma_src vs;
	struct err err = { { 0 } };

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	int rc = vma_open(&vs, a.pid);
	if (rc < 0) {
		fprintf(stderr, "anonremap: /proc/%d/maps: %s\n", (int)a.pid, strerror(-rc));
		return EXIT_ERROR;
	}
	/* The whole process is one read of the file, as cat(1) reads it: on
	 * 65,000 VMAs the 65,000 ioctls of PROCMAP_QUERY cost four times the
	 * kernel time of the read, for the same fields. */
	if (!a.procmap_query)
		vs.query = false;
	else if (!vs.query) {
		fprintf(stderr, "anonremap: --procmap-query: PROCMAP_QUERY does not work on /proc/%d/maps (Linux 6.11)\n",
			(int)a.pid);
		vma_close(&vs);
		return EXIT_ERROR;
	}
	struct maps_out m = { .a = &a, .vs = &vs, .xray_status = a.o.xray ? cJSON_CreateObject() : NULL };
	a.o.xray_status = m.xray_status;
	struct vma_sink sink = { .begin = maps_begin, .vma = maps_vma, .ctx = &m, .print_only = true };
	errno = 0;
	rc = vmas_walk(&vs, &a.o, 0, UINT64_MAX, &sink, &err);
	/* a document begun is closed, even after a read error, so it parses */
	if (m.js.fp && (json_stream_end(&m.js) || fflush(stdout) || ferror(stdout)) && !m.write_errno)
		m.write_errno = errno ? errno : EIO;
	cJSON_Delete(m.xray_status);
	vma_close(&vs);
	if (m.write_errno) {
		fprintf(stderr, "anonremap: cannot write to stdout: %s\n", strerror(m.write_errno));
		return EXIT_ERROR;
	}
	if (rc) {
		fprintf(stderr, "anonremap: %s\n", err.msg);
		return EXIT_ERROR;
	}
	return EXIT_PASS;
}
