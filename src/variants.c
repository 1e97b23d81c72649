/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parameters and variants: one scenario body run under several settings, as
 * FIXTURE_VARIANT does in the selftests. Expansion happens before validation,
 * so every variant is checked (and embedded in results) as a plain scenario. */
#include "anonremap.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool param_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static const char *param_ref(const cJSON *v)
{
	return cJSON_IsString(v) && v->valuestring[0] == '$' ? v->valuestring + 1 : NULL;
}

/* Replace every "$name" in v; a list parameter inside a list is spliced. */
static int subst(cJSON *v, const cJSON *params, const char *where, struct err *err)
{
	cJSON *it, *next;

	if (cJSON_IsArray(v)) {
		cJSON *na = cJSON_CreateArray();
		int rc = 0;
		while (v->child) {
			it = cJSON_DetachItemViaPointer(v, v->child);
			const char *ref = param_ref(it);
			const cJSON *p = ref ? cJSON_GetObjectItemCaseSensitive(params, ref) : NULL;
			if (!ref) {
				if (!rc)
					rc = subst(it, params, where, err);
				cJSON_AddItemToArray(na, it);
				continue;
			}
			if (!p) {
				rc = err_set(err, "%s: unknown parameter '$%s'", where, ref);
			} else if (cJSON_IsArray(p)) {
				const cJSON *e;
				cJSON_ArrayForEach(e, p)
					cJSON_AddItemToArray(na, cJSON_Duplicate(e, 1));
			} else {
				cJSON_AddItemToArray(na, cJSON_Duplicate(p, 1));
			}
			cJSON_Delete(it);
		}
		while (na->child)
			cJSON_AddItemToArray(v, cJSON_DetachItemViaPointer(na, na->child));
		cJSON_Delete(na);
		return rc;
	}
	if (cJSON_IsObject(v)) {
		for (it = v->child; it; it = next) {
			next = it->next;
			const char *ref = param_ref(it);
			if (!ref) {
				if (subst(it, params, where, err))
					return -1;
				continue;
			}
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(params, ref);
			if (!p)
				return err_set(err, "%s: %s: unknown parameter '$%s'", where, it->string, ref);
			/* ReplaceItemInObject keeps the key; ReplaceItemViaPointer would not */
			cJSON_ReplaceItemInObjectCaseSensitive(v, it->string, cJSON_Duplicate(p, 1));
		}
	}
	return 0;
}

static bool truthy(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0;
	if (cJSON_IsString(v))
		return *v->valuestring != 0;
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return v->child != NULL;
	return false;
}

/* Substitute the steps, drop those whose "if" is false. */
static int expand_steps(cJSON *steps, const cJSON *params, const char *where, struct err *err)
{
	cJSON *st, *next;
	int i = 0;
	char w[256];

	for (st = steps ? steps->child : NULL; st; st = next, i++) {
		next = st->next;
		snprintf(w, sizeof(w), "%s: step %d", where, i);
		if (subst(st, params, w, err))
			return -1;
		cJSON *cond = cJSON_GetObjectItemCaseSensitive(st, "if");
		if (!cond)
			continue;
		/* "!$name": the negation, so a step can be kept where a
		 * parameter is false ("if": "!$forked") */
		bool keep;
		if (cJSON_IsString(cond) && cond->valuestring[0] == '!' && cond->valuestring[1] == '$') {
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(params, cond->valuestring + 2);
			if (!p)
				return err_set(err, "%s: if: unknown parameter '%s'", w, cond->valuestring + 1);
			keep = !truthy(p);
		} else {
			keep = truthy(cond);
		}
		if (keep)
			cJSON_DeleteItemFromObjectCaseSensitive(st, "if");
		else
			cJSON_Delete(cJSON_DetachItemViaPointer(steps, st));
	}
	return 0;
}

static int one(const char *file, const cJSON *doc, const cJSON *params, const char *vname, const cJSON *var,
	       cJSON **out, struct err *err)
{
	cJSON *d = cJSON_Duplicate(doc, 1), *p = cJSON_Duplicate(params, 1), *kv;
	char where[300];

	snprintf(where, sizeof(where), "%s%s%s", file, vname ? ": variants: " : "", vname ? vname : "");
	cJSON_DeleteItemFromObjectCaseSensitive(d, "params");
	cJSON_DeleteItemFromObjectCaseSensitive(d, "variants");
	cJSON_ArrayForEach(kv, var) {
		if (!strcmp(kv->string, "params")) {
			const cJSON *q;
			if (!cJSON_IsObject(kv))
				goto bad_type;
			cJSON_ArrayForEach(q, kv) {
				if (!cJSON_GetObjectItemCaseSensitive(p, q->string)) {
					err_set(err, "%s: params: %s: not declared in the scenario's params", where, q->string);
					goto fail;
				}
				cJSON_ReplaceItemInObjectCaseSensitive(p, q->string, cJSON_Duplicate(q, 1));
			}
		} else if (!strcmp(kv->string, "requires") || !strcmp(kv->string, "steps")) {
			if (!cJSON_IsArray(kv))
				goto bad_type;
			cJSON *to = cJSON_GetObjectItemCaseSensitive(d, kv->string);
			if (!to)
				to = cJSON_AddArrayToObject(d, kv->string);
			if (!cJSON_IsArray(to)) {
				err_set(err, "%s: %s: expected a list", file, kv->string);
				goto fail;
			}
			const cJSON *e;
			cJSON_ArrayForEach(e, kv)
				cJSON_AddItemToArray(to, cJSON_Duplicate(e, 1));
		} else if (!strcmp(kv->string, "description")) {
			if (!cJSON_IsString(kv))
				goto bad_type;
			cJSON_DeleteItemFromObjectCaseSensitive(d, "description");
			cJSON_AddStringToObject(d, "description", kv->valuestring);
		} else {
			err_set(err, "%s: %s: unknown field of a variant (params, requires, steps, description)",
				where, kv->string);
			goto fail;
		}
	}
	if (expand_steps(cJSON_GetObjectItemCaseSensitive(d, "steps"), p, where, err))
		goto fail;
	if (vname) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(d, "name");
		char full[256];
		const char *b = strrchr(file, '/');
		char base[200];
		snprintf(base, sizeof(base), "%s", cJSON_IsString(nm) ? nm->valuestring : b ? b + 1 : file);
		char *dot = strstr(base, ".json");
		if (!cJSON_IsString(nm) && dot)
			*dot = 0;
		snprintf(full, sizeof(full), "%s[%s]", base, vname);
		cJSON_DeleteItemFromObjectCaseSensitive(d, "name");
		cJSON_AddStringToObject(d, "name", full);
		cJSON_AddStringToObject(d, "variant", vname);
	}
	cJSON_Delete(p);
	*out = d;
	return 0;
bad_type:
	err_set(err, "%s: %s: wrong type", where, kv->string);
fail:
	cJSON_Delete(p);
	cJSON_Delete(d);
	return -1;
}

/* One document per variant (or the document itself), params substituted. */
int variants_expand(const char *file, const cJSON *doc, const char *want, cJSON ***out, int *n, struct err *err)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(doc, "params");
	const cJSON *vars = cJSON_GetObjectItemCaseSensitive(doc, "variants");
	cJSON *empty = cJSON_CreateObject();
	const cJSON *kv;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(empty);
		return 0;
	}
	if (params && !cJSON_IsObject(params)) {
		cJSON_Delete(empty);
		return err_set(err, "%s: params: expected an object of name: value", file);
	}
	cJSON_ArrayForEach(kv, params)
		if (!param_name_ok(kv->string)) {
			cJSON_Delete(empty);
			return err_set(err, "%s: params: '%s' is not a parameter name", file, kv->string);
		}
	if (vars && (!cJSON_IsObject(vars) || !vars->child)) {
		cJSON_Delete(empty);
		return err_set(err, "%s: variants: expected an object of name: {params, requires, steps}", file);
	}
	int cap = vars ? cJSON_GetArraySize(vars) : 1;
	*out = xcalloc(cap, sizeof(cJSON *));
	if (!vars) {
		if (want) {
			cJSON_Delete(empty);
			free(*out);
			*out = NULL;
			return err_set(err, "%s: has no variants (asked for [%s])", file, want);
		}
		int rc = one(file, doc, params ? params : empty, NULL, empty, &(*out)[0], err);
		cJSON_Delete(empty);
		if (rc) {
			free(*out);
			*out = NULL;
			return -1;
		}
		*n = 1;
		return 0;
	}
	cJSON_ArrayForEach(kv, vars) {
		if (!cJSON_IsObject(kv) || !param_name_ok(kv->string)) {
			err_set(err, "%s: variants: '%s' must be a name with an object", file, kv->string);
			goto fail;
		}
		if (want && strcmp(want, kv->string))
			continue;
		if (one(file, doc, params ? params : empty, kv->string, kv, &(*out)[*n], err))
			goto fail;
		(*n)++;
	}
	cJSON_Delete(empty);
	if (want && !*n) {
		free(*out);
		*out = NULL;
		return err_set(err, "%s: no variant named '%s'", file, want);
	}
	return 0;
fail:
	cJSON_Delete(empty);
	for (int i = 0; i < *n; i++)
		cJSON_Delete((*out)[i]);
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}
