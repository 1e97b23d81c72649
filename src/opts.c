/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Options shared by the commands that run scenario processes (run, shell,
 * replay): one argp child, so they are parsed, documented and defaulted in
 * one place. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct argp_option proc_options[] = {
	{ NULL, 0, NULL, 0, "Scenario process options:", 1 },
	{ "timeout", 't', "SECONDS", 0, "per scenario (shell: per step); default 30", 1 },
	{ "allow-outside", 'O', NULL, 0, "allow steps whose range leaves the reserved area", 1 },
	{ "allow-dangerous", 'D', NULL, 0, "allow calls that reach beyond the scenario's processes (MADV_HWPOISON, PR_SET_PDEATHSIG, ...; see anonremap(1), TRUST)", 1 },
	{ "guard", 'g', "SIZE", 0, "guard size on each side of the carveout (default 64m)", 1 },
	{ "max-rss", 'm', "SIZE", 0, "kill the scenario's processes when their RSS, summed, exceeds SIZE; files are capped at SIZE too (default: half of RAM; 0: no limit)", 1 },
	{ "xray", 'X', NULL, 0, "dumps carry the x-ray module's view (vm_pgoff, anon_vma, folios); see kmod/", 1 },
	{ 0 }
};

static error_t proc_parse(int key, char *arg, struct argp_state *state)
{
	struct proc_opts *p = state->input;
	struct err err;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		p->ro.timeout = 30;
		p->ro.max_rss_kb = mem_total_kb() / 2;
		return 0;
	case 't':
		errno = 0;
		p->ro.timeout = strtod(arg, &end);
		if (errno || *end || !(p->ro.timeout > 0) || p->ro.timeout > 1e6)
			argp_error(state, "--timeout: '%s' is not a number of seconds above 0", arg);
		return 0;
	case 'O':
		p->lo.allow_outside = p->ro.allow_outside = true;
		return 0;
	case 'D':
		p->lo.allow_dangerous = true;
		return 0;
	case 'X':
		p->ro.xray = true;
		return 0;
	case 'g':
		if (size_parse(arg, &p->lo.guard, &err) || !p->lo.guard || p->lo.guard % kinfo.page_size)
			argp_error(state, "--guard: '%s' is not a non-zero multiple of the page size", arg);
		return 0;
	case 'm':
		if (size_parse(arg, &p->ro.max_rss_kb, &err))
			argp_error(state, "--max-rss: %s", err.msg);
		/* below 1 KiB would round to 0, which means no limit */
		if (p->ro.max_rss_kb && p->ro.max_rss_kb < 1024)
			argp_error(state, "--max-rss: '%s' is below 1k (0 means no limit)", arg);
		p->ro.max_rss_kb /= 1024;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp proc_argp = { proc_options, proc_parse, NULL, NULL, NULL, NULL, NULL };

/* --format for the commands that print results. */
int format_option(struct argp_state *state, const char *arg, enum out_format *f, bool ktap_ok)
{
	if (parse_format(arg, f) || (!ktap_ok && *f == OUT_KTAP))
		argp_error(state, "--format: '%s' is not %s", arg, ktap_ok ? "json, text or ktap" : "json or text");
	return 0;
}

/* A comma-list option (--strategy, the matrix axes, stress's --ops, --flags
 * and --advice): its names as a bit mask, bit i for names[i] (n < 0: names
 * ends at a NULL). NAME_NOCASE matches without case; prefix, where given,
 * may start a word (MREMAP_maymove). An unknown word or an empty list is a
 * usage error that names the option and the names it takes. */
unsigned name_list_option(struct argp_state *state, const char *opt, const char *arg, const char *const *names,
			  int n, unsigned how, const char *prefix)
{
	char *copy = xstrdup(arg), *save = NULL;
	size_t pl = prefix ? strlen(prefix) : 0;
	unsigned mask = 0;

	if (n < 0)
		for (n = 0; names[n]; n++)
			;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int i;
		if (pl && !strncasecmp(w, prefix, pl))
			w += pl;
		for (i = 0; i < n; i++)
			if ((how & NAME_NOCASE) ? !strcasecmp(w, names[i]) : !strcmp(w, names[i]))
				break;
		if (i == n) {
			char bad[64], list[512];
			size_t len = 0;
			list[0] = 0;
			for (int k = 0; k < n && len < sizeof(list); k++)
				len += snprintf(list + len, sizeof(list) - len, "%s%s", k ? ", " : "", names[k]);
			snprintf(bad, sizeof(bad), "%s", w);
			free(copy); /* argp_error exits */
			argp_error(state, "%s: '%s' is none of: %s", opt, bad, list);
			return 0;
		}
		mask |= 1u << i;
	}
	free(copy);
	if (!mask)
		argp_error(state, "%s: an empty list", opt);
	return mask;
}

/* An output file option (-o, -R, --trace): refused before anything runs if
 * out_target would refuse it after (a directory, a block device, ...). */
const char *output_file_arg(struct argp_state *state, const char *opt, const char *arg)
{
	bool in_place;
	char *real;
	struct err err;

	if (out_target(arg, &in_place, &real, &err))
		argp_error(state, "%s: %s", opt, err.msg);
	free(real);
	return arg;
}

/* The one RESULT.json argument of replay and show. */
int result_file_arg(struct argp_state *state, int key, const char *arg, const char **file)
{
	if (key == ARGP_KEY_ARG) {
		if (*file)
			argp_error(state, "one result file");
		*file = arg;
		return 0;
	}
	if (key == ARGP_KEY_END && !*file)
		argp_error(state, "a result file is needed");
	return 0;
}

/* --timing[=FRACTION] of replay and diff. */
int timing_option(struct argp_state *state, const char *arg, struct compare_opts *co)
{
	char *end = NULL;
	co->timing = true;
	co->tolerance = arg ? strtod(arg, &end) : 0.5;
	if (arg && (*end || co->tolerance < 0))
		argp_error(state, "--timing: '%s' is not a fraction", arg);
	return 0;
}
