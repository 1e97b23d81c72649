/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap shell: one live scenario process, steps read from stdin and run
 * as they arrive; works at a terminal and as a coprocess of a shell script. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct shell_args {
	struct proc_opts po;
	enum out_format format;
};

static const struct argp_option shell_options[] = {
	{ "format", 'f', "FORMAT", 0, "text (default) or json: one JSON object per line", 0 },
	{ 0 }
};

static error_t shell_parse(int key, char *arg, struct argp_state *state)
{
	struct shell_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->po;
		return 0;
	case 'f':
		return format_option(state, arg, &a->format, false);
	case ARGP_KEY_ARG:
		argp_error(state, "shell reads steps from stdin; it takes no arguments");
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static void on_signal(int sig)
{
	run_interrupted = 1;
}

static void say(const struct shell_args *a, const char *level, const char *msg)
{
	if (a->format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, level, msg);
		char *s = cJSON_PrintUnformatted(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
	} else {
		printf("%s: %s\n", level, msg);
	}
	fflush(stdout);
}

/* One step's outcome: the step, and its dump or expectation. */
static void print_step(const struct shell_args *a, struct run *r, cJSON *sres)
{
	cJSON *d = NULL, *e = NULL;
	const char *op = cJSON_GetObjectItem(sres, "op")->valuestring;

	if (!strcmp(op, "dump"))
		d = cJSON_GetArrayItem(r->dumps, cJSON_GetArraySize(r->dumps) - 1);
	if (!strcmp(op, "expect"))
		e = cJSON_GetArrayItem(r->expects, cJSON_GetArraySize(r->expects) - 1);
	if (a->format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemReferenceToObject(o, "step", sres);
		if (d)
			cJSON_AddItemReferenceToObject(o, "dump", d);
		if (e)
			cJSON_AddItemReferenceToObject(o, "expectation", e);
		char *s = cJSON_PrintUnformatted(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
	} else {
		out_text_step(stdout, sres, r->expects);
		if (d)
			out_text_dump(stdout, d);
	}
	fflush(stdout);
}

static int save(cJSON *doc, const char *path, struct err *err)
{
	while (*path == ' ')
		path++;
	if (!*path)
		return err_set(err, ".save needs a file name");
	return out_to_file(doc, OUT_JSON, path, err);
}

/* "<stdin>:N: msg" for an error the text form's parser gave without a line. */
static int at_line(struct err *err, int lno)
{
	char m[sizeof(err->msg)];
	snprintf(m, sizeof(m), "%s", err->msg);
	return err_set(err, "<stdin>:%d: %s", lno, m);
}

/* Before the first step: scenario lines configure *doc, and the first step
 * makes the scenario (*sc, which then owns the document), validated whole
 * as a file would be. 0 a scenario line, 1 the step, -1 with err set. */
static int first_lines(cJSON **doc, const char *p, int lno, int *lines, int nlines, const struct load_opts *po,
		       struct scenario **sc, struct err *err)
{
	cJSON *trial = cJSON_Duplicate(*doc, 1);
	char *tl = xstrdup(p);
	int rc = textform_merge_line(trial, tl, err);

	free(tl);
	if (rc < 0) {
		cJSON_Delete(trial);
		return at_line(err, lno);
	}
	if (rc == 1) {
		struct load_opts lo = *po;
		lines[nlines] = lno;
		lo.lines = lines;
		lo.keep_sim = true; /* the steps to come are checked one by one */
		if (scenario_from_json("<stdin>", trial, &lo, sc, err)) {
			cJSON_Delete(trial);
			return -1;
		}
		trial = NULL; /* the scenario's now */
	}
	cJSON_Delete(*doc);
	*doc = trial;
	return rc;
}

/* A step after the first: checked on its own against what the scenario
 * simulated so far, as the whole file would check it, so that a session
 * costs its length and not its square. 1, or -1 with err set. */
static int next_step(struct scenario *sc, const char *p, int lno, int *lines, int nlines,
		     const struct load_opts *po, struct err *err)
{
	cJSON *one = cJSON_CreateObject(), *steps = cJSON_AddArrayToObject(one, "steps");
	char *tl = xstrdup(p);
	int rc = textform_merge_line(one, tl, err);

	free(tl);
	if (rc == 0)
		rc = err_set(err, "scenario lines (name, carveout, requires, ...) go before the first step");
	if (rc < 0) {
		cJSON_Delete(one);
		return at_line(err, lno);
	}
	cJSON *js = cJSON_DetachItemFromArray(steps, 0);
	cJSON_Delete(one);
	struct load_opts lo = *po;
	lines[nlines] = lno;
	lo.lines = lines;
	return scenario_append_step(sc, js, &lo, err) ? -1 : 1;
}

int cmd_shell(int argc, char **argv)
{
	static const char shell_doc[] =
		"Keep one live scenario process and run steps read from stdin, one a line, in the "
		"text form; print each step's result as it runs.\v"
		"Before the first step, scenario lines (carveout size=... align=..., requires ..., "
		"name ...) configure the process; after it they are refused. Commands: .save FILE writes the steps so far as a "
		"JSON scenario; .quit ends the session (as does end of input). At a terminal a prompt "
		"is shown; in a pipe there is none and output is flushed after every step. Exit "
		"status: as for run, for the session as one scenario.";
	static const struct argp_child children[] = { { &proc_argp, 0, NULL, 1 }, { 0 } };
	struct argp argp = { shell_options, shell_parse, NULL, shell_doc, children, ops_help, NULL };
	struct shell_args a = { .format = OUT_TEXT };
	struct err err;
	char *line = NULL;
	size_t cap = 0;
	int lno = 0, nlines = 0, status = EXIT_PASS;
	int *lines = xcalloc(MAX_STEPS + 1, sizeof(int));
	struct scenario *sc = NULL;
	struct run *r = NULL;
	cJSON *res = NULL;
	bool tty = isatty(0);

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "name", "shell");
	cJSON_AddArrayToObject(doc, "steps");
	for (;;) {
		if (tty) {
			fputs("anonremap> ", stderr);
			fflush(stderr);
		}
		ssize_t n = getline(&line, &cap, stdin);
		if (n < 0)
			break;
		lno++;
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		/* a NUL would end the line early as C reads it: the rest unread */
		const char *nul = memchr(line, 0, (size_t)n);
		if (nul) {
			err_set(&err, "<stdin>:%d:%d: NUL byte in the line; the line is ignored", lno, (int)(nul - line) + 1);
			say(&a, "error", err.msg);
			continue;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strcmp(p, ".quit"))
			break;
		if (!strncmp(p, ".save", 5) && (p[5] == ' ' || !p[5])) {
			if (save(sc ? sc->json : doc, p + 5, &err))
				say(&a, "error", err.msg);
			else
				say(&a, "saved", p + 6);
			continue;
		}
		int rc = sc ? next_step(sc, p, lno, lines, nlines, &a.po.lo, &err)
			    : first_lines(&doc, p, lno, lines, nlines, &a.po.lo, &sc, &err);
		if (rc < 0) {
			say(&a, "error", err.msg);
			continue;
		}
		if (rc == 0) /* a scenario line */
			continue;
		nlines++;
		if (!r) {
			a.po.ro.steps_later = true; /* any step to come may dump */
			r = run_begin(sc, &a.po.ro, &res);
			if (!r) {
				say(&a, "error", cJSON_GetObjectItem(res, "reason")->valuestring);
				status = !strcmp(cJSON_GetObjectItem(res, "status")->valuestring, "skip") ? EXIT_SKIP : EXIT_ERROR;
				break;
			}
		}
		r->deadline = run_now() + a.po.ro.timeout; /* the timeout is per step here */
		cJSON *sres;
		int src = run_step(r, sc->nsteps - 1, &sres);
		if (sres)
			print_step(&a, r, sres);
		if (src < 0) {
			say(&a, "error", r->reason ? r->reason : "the scenario process is gone");
			break;
		}
	}
	if (r)
		status = run_end(r);
	cJSON_Delete(res);
	scenario_free(sc);
	cJSON_Delete(doc); /* NULL once the scenario took it */
	free(lines);
	free(line);
	return status;
}
