/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-line text form of steps: "mremap ptr2 to=ptr+5p flags=maymove,fixed".
 * Each line becomes the same JSON object a scenario file would hold, so the
 * JSON validator is the only validator. */
#include "anonremap.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 64

/* Split a line into words; "double quotes" keep spaces, \" and \\ escape. */
static int tokenize(char *line, char **tok, int max, struct err *err)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (n == max)
			return err_set(err, "more than %d words", max);
		tok[n++] = p;
		char *w = p;
		bool q = false;
		while (*p && (q || !isspace((unsigned char)*p))) {
			if (*p == '"') {
				q = !q;
				p++;
				continue;
			}
			if (q && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
				p++;
			*w++ = *p++;
		}
		if (q)
			return err_set(err, "unterminated quote");
		bool end = !*p;
		*w = 0;
		if (end)
			break;
		p++;
	}
	return n;
}

static bool is_uint(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static cJSON *number_or_string(const char *v)
{
	if (is_uint(v) && strlen(v) < 16)
		return cJSON_CreateNumber(strtod(v, NULL));
	if (v[0] == '-' && is_uint(v + 1) && strlen(v) < 16)
		return cJSON_CreateNumber(strtod(v, NULL));
	return cJSON_CreateString(v);
}

static cJSON *list_of(const char *v)
{
	cJSON *arr = cJSON_CreateArray();
	char *copy = xstrdup(v), *save = NULL;
	for (char *t = strtok_r(copy, ",|", &save); t; t = strtok_r(NULL, ",|", &save))
		cJSON_AddItemToArray(arr, number_or_string(t));
	free(copy);
	return arr;
}

/* The JSON value a text-form word stands for, by the field's type. */
static cJSON *value_for(enum ftype t, const char *v, struct err *err)
{
	switch (t) {
	case FT_BOOL:
		if (!strcmp(v, "true"))
			return cJSON_CreateTrue();
		if (!strcmp(v, "false"))
			return cJSON_CreateFalse();
		err_set(err, "expected true or false, not '%s'", v);
		return NULL;
	case FT_MASK:
		if (strchr(v, ',') || strchr(v, '|'))
			return list_of(v);
		if (is_uint(v) && strlen(v) < 16)
			return cJSON_CreateNumber(strtod(v, NULL));
		return cJSON_CreateString(v);
	case FT_ADDR2:
		return list_of(v);
	case FT_RANGES: { /* vec=ptr:1p,ptr+9p:1p */
		cJSON *arr = cJSON_CreateArray();
		char *copy = xstrdup(v), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(w, ':');
			cJSON *r = cJSON_CreateArray();
			if (colon)
				*colon = 0;
			cJSON_AddItemToArray(r, cJSON_CreateString(w));
			cJSON_AddItemToArray(r, colon ? number_or_string(colon + 1) : cJSON_CreateNull());
			cJSON_AddItemToArray(arr, r);
		}
		free(copy);
		return arr;
	}
	case FT_BYTE: /* fill=x is the letter, fill=120 the number */
		return strlen(v) == 1 ? cJSON_CreateString(v) : number_or_string(v);
	case FT_VMFLAGS: { /* vm_flags=gu,-nr: has gu, lacks nr */
		cJSON *o = cJSON_CreateObject(), *has = cJSON_AddArrayToObject(o, "has"),
		      *lacks = cJSON_AddArrayToObject(o, "lacks");
		char *copy = xstrdup(v), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			cJSON_AddItemToArray(*w == '-' ? lacks : has, cJSON_CreateString(w + (*w == '-' || *w == '+')));
		free(copy);
		return o;
	}
	case FT_SIZE:
	case FT_INT:
	case FT_PATTERN:
	case FT_VALUE:
	case FT_ERRNO:
	case FT_SIGNAL:
		return number_or_string(v);
	default:
		return cJSON_CreateString(v);
	}
}

/* One step line to a JSON step object. */
static cJSON *step_line(char **tok, int n, struct err *err)
{
	const struct op_entry *op = op_find(tok[0]);
	if (!op) {
		char why[400];
		op_unknown(tok[0], why, sizeof(why));
		err_set(err, "op: %s", why);
		return NULL;
	}
	cJSON *js = cJSON_CreateObject();

	cJSON_AddStringToObject(js, "op", tok[0]);
	for (int i = 1; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		const char *key, *val;
		if (!eq) {
			if (i != 1 || !op || !op->first_word) {
				err_set(err, "%s: '%s' is not key=value%s", tok[0], tok[i],
					op && op->first_word && i > 1 ? " (only the first word may be bare)" : "");
				cJSON_Delete(js);
				return NULL;
			}
			key = op->first_word;
			val = tok[i];
		} else {
			*eq = 0;
			key = tok[i];
			val = eq + 1;
		}
		int id = field_find(key);
		enum ftype t = id >= 0 ? field_defs[id].type : FT_STR;
		if (cJSON_GetObjectItemCaseSensitive(js, key)) {
			err_set(err, "%s: %s: given twice", tok[0], key);
			cJSON_Delete(js);
			return NULL;
		}
		cJSON *v = value_for(t, val, err);
		if (!v) {
			char m[sizeof(err->msg)];
			snprintf(m, sizeof(m), "%s", err->msg);
			err_set(err, "%s: %s: %s", tok[0], key, m);
			cJSON_Delete(js);
			return NULL;
		}
		cJSON_AddItemToObject(js, key, v);
	}
	return js;
}

/* Scenario-level lines: name, description, source, requires, tags, carveout,
 * allow_outside. */
static int header_line(cJSON *doc, char **tok, int n, struct err *err)
{
	const char *k = tok[0];

	if (!strcmp(k, "name") || !strcmp(k, "description") || !strcmp(k, "source")) {
		if (n < 2)
			return err_set(err, "%s: needs a value", k);
		size_t len = 1;
		for (int i = 1; i < n; i++)
			len += strlen(tok[i]) + 1;
		char *s = xcalloc(1, len);
		for (int i = 1; i < n; i++) {
			strcat(s, tok[i]);
			if (i + 1 < n)
				strcat(s, " ");
		}
		cJSON_DeleteItemFromObject(doc, k);
		cJSON_AddStringToObject(doc, k, s);
		free(s);
		return 0;
	}
	if (!strcmp(k, "requires") || !strcmp(k, "tags")) {
		cJSON *arr = cJSON_GetObjectItem(doc, k);
		if (!arr)
			arr = cJSON_AddArrayToObject(doc, k);
		for (int i = 1; i < n; i++) {
			char *save = NULL;
			for (char *t = strtok_r(tok[i], ",", &save); t; t = strtok_r(NULL, ",", &save))
				cJSON_AddItemToArray(arr, cJSON_CreateString(t));
		}
		return 0;
	}
	/* allow_outside [true|false]: the word alone is true */
	if (!strcmp(k, "allow_outside")) {
		if (n > 2 || (n == 2 && strcmp(tok[1], "true") && strcmp(tok[1], "false")))
			return err_set(err, "allow_outside: expected nothing, true or false");
		cJSON_DeleteItemFromObject(doc, k);
		cJSON_AddBoolToObject(doc, k, n == 1 || !strcmp(tok[1], "true"));
		return 0;
	}
	/* carveout size=64p align=pmd guard=64m fill=false */
	cJSON *c = cJSON_GetObjectItem(doc, "carveout");
	if (!c)
		c = cJSON_AddObjectToObject(doc, "carveout");
	for (int i = 1; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq)
			return err_set(err, "carveout: '%s' is not key=value (size, align, guard, fill)", tok[i]);
		*eq = 0;
		cJSON_DeleteItemFromObject(c, tok[i]);
		if (!strcmp(eq + 1, "true") || !strcmp(eq + 1, "false")) /* fill */
			cJSON_AddItemToObject(c, tok[i], cJSON_CreateBool(eq[1] == 't'));
		else
			cJSON_AddItemToObject(c, tok[i], number_or_string(eq + 1));
	}
	return 0;
}

static bool is_header(const char *w)
{
	static const char *const h[] = { "name", "description", "source", "requires", "tags", "carveout",
					 "allow_outside", NULL };
	for (int i = 0; h[i]; i++)
		if (!strcmp(h[i], w))
			return true;
	return false;
}

/* Lines to a scenario: comments (#) and blank lines are skipped. The step's
 * line numbers go with it, so errors can name FILE:LINE. */
static int text_to_scenario(const char *file, char **lines, int nlines, int line_base,
			    const struct load_opts *o, struct scenario **out, struct err *err)
{
	cJSON *doc = cJSON_CreateObject(), *steps;
	int *lnos = xcalloc(nlines + 1, sizeof(int));
	int ns = 0;
	struct err e2;

	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	steps = cJSON_CreateArray();
	for (int i = 0; i < nlines; i++) {
		char *tok[MAX_TOKENS];
		char *copy = xstrdup(lines[i]);
		int n = tokenize(copy, tok, MAX_TOKENS, &e2);
		int lno = line_base ? i + line_base : i + 1;
		if (n < 0) {
			err_set(err, "%s:%d: %s", file, lno, e2.msg);
			goto fail_copy;
		}
		if (n == 0) {
			free(copy);
			continue;
		}
		if (is_header(tok[0]) && !op_find(tok[0])) {
			if (header_line(doc, tok, n, &e2)) {
				err_set(err, "%s:%d: %s", file, lno, e2.msg);
				goto fail_copy;
			}
		} else {
			cJSON *js = step_line(tok, n, &e2);
			if (!js) {
				err_set(err, "%s:%d: %s", file, lno, e2.msg);
				goto fail_copy;
			}
			if (ns >= MAX_STEPS) {
				cJSON_Delete(js);
				err_set(err, "%s:%d: more than %d steps", file, lno, MAX_STEPS);
				goto fail_copy;
			}
			cJSON_AddItemToArray(steps, js);
			lnos[ns++] = lno;
		}
		free(copy);
		continue;
fail_copy:
		free(copy);
		cJSON_Delete(steps);
		cJSON_Delete(doc);
		free(lnos);
		return -1;
	}
	cJSON_AddItemToObject(doc, "steps", steps);
	struct load_opts lo = *o;
	lo.lines = lnos;
	int rc = scenario_from_json(file, doc, &lo, out, err);
	free(lnos);
	if (rc)
		cJSON_Delete(doc);
	return rc;
}

int textform_parse_buf(const char *file, char *buf, const struct load_opts *o,
		       struct scenario **out, struct err *err)
{
	int cap = 64, n = 0;
	char **lines = xmalloc(cap * sizeof(char *));

	for (char *p = buf; p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (n == cap) {
			cap *= 2;
			char **nlp = realloc(lines, cap * sizeof(char *));
			if (!nlp) {
				free(lines);
				return err_set(err, "%s: out of memory", file);
			}
			lines = nlp;
		}
		lines[n++] = p;
		p = nl ? nl + 1 : NULL;
	}
	int rc = text_to_scenario(file, lines, n, 0, o, out, err);
	free(lines);
	return rc;
}

int textform_from_args(char **steps, int n, const struct load_opts *o, struct scenario **out, struct err *err)
{
	return text_to_scenario("-e", steps, n, 1, o, out, err);
}

/* One text line to a JSON step, for the shell; NULL with err set. */
cJSON *textform_step(const char *line, struct err *err)
{
	char *tok[MAX_TOKENS];
	char *copy = xstrdup(line);
	int n = tokenize(copy, tok, MAX_TOKENS, err);
	cJSON *js = n > 0 ? step_line(tok, n, err) : NULL;
	if (n == 0)
		err_set(err, "empty step");
	free(copy);
	return js;
}

/* The shell's line: a scenario line merged into doc (0), or a step appended
 * to doc's steps (1); -1 with err set. */
int textform_merge_line(cJSON *doc, char *line, struct err *err)
{
	char *tok[MAX_TOKENS];
	int n = tokenize(line, tok, MAX_TOKENS, err);

	if (n < 0)
		return -1;
	if (n == 0)
		return err_set(err, "empty line");
	if (is_header(tok[0]) && !op_find(tok[0]))
		return header_line(doc, tok, n, err) ? -1 : 0;
	cJSON *js = step_line(tok, n, err);
	if (!js)
		return -1;
	cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "steps"), js);
	return 1;
}
