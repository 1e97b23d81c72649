/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: the x-ray reader (src/xray.c) on records captured from the
 * real anonremap_xray module in Debian's 6.1 kernel under QEMU
 * (tests/vm/xray.sh --capture), in tests/data/:
 *   xray-faulted-move.txt      a faulted 5-page VMA moved 1000 pages up
 *   xray-unfaulted-move.txt    the same, unfaulted
 *   xray-forked-child.txt      after fork, the child (2 pages unCOWed)
 *   xray-forked-parent.txt     ... and its parent, at the same moment
 *   xray-unfaulted-to-faulted.txt  merge.c's mremap_unfaulted_to_faulted
 *   xray-faulted-to-faulted.txt    two faulted VMAs moved side by side, one
 *                              page mprotect()ed read-only
 *   xray-nofolios.txt          a request without "folios"
 * plus hand-made records for the error paths.
 *
 * The same binary is the VM test's probe of the live module:
 *   test_xray --available           "available", or "unavailable: WHY" (exit 4)
 *   test_xray --live PID LO HI      xray_read() with folios, then --show's output
 *   test_xray --show FILE           one line per VMA: "VMA START-END JSON", and
 *                                   per adjacent pair "EXPLAIN A-B | C-D: N: WHY" */
#include "anonremap.h"
#include "stress.h"
#include "compat.h"
#include <sys/mman.h>
#include "unit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- captured records ---------------------------------------------------- */

static char *data_path(const char *name)
{
	const char *top = getenv("TOP_SRCDIR");
	char *p = xmalloc(4096);

	if (top && *top)
		snprintf(p, 4096, "%s/tests/data/%s", top, name);
	else
		snprintf(p, 4096, "tests/data/%s", name);
	return p;
}

/* Parse a captured file through xray_parse_fd(); *carveout is the carveout's
 * start (the request covered it and its 64 MiB guards: lo + 64 MiB). */
static struct xray_vma *load(const char *name, size_t *n, uint64_t *carveout)
{
	char *path = data_path(name), why[256] = "", line[256] = "";
	struct xray_vma *v = NULL;
	unsigned long long lo = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*n = 0;
	if (fd < 0) {
		printf("# %s: %s (set TOP_SRCDIR or run from the source dir)\n", path, strerror(errno));
		free(path);
		return NULL;
	}
	FILE *fp = fdopen(dup(fd), "r");
	if (fp) {
		if (fgets(line, sizeof(line), fp)) {
			const char *l = strstr(line, " lo=");
			if (l)
				lo = strtoull(l + 4, NULL, 16);
		}
		fclose(fp);
	}
	if (carveout)
		*carveout = lo + (64u << 20);
	lseek(fd, 0, SEEK_SET);
	if (xray_parse_fd(fd, &v, n, why, sizeof(why))) {
		printf("# %s: %s\n", path, why);
		v = NULL;
	}
	close(fd);
	free(path);
	return v;
}

#define P 4096u

static cJSON *json_of(const struct xray_vma *v)
{
	return v ? xray_vma_json(v) : cJSON_CreateObject();
}

static const char *jstr(cJSON *o, const char *k)
{
	cJSON *i = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(i) ? i->valuestring : NULL;
}

static int jbool(cJSON *o, const char *k)
{
	cJSON *i = cJSON_GetObjectItem(o, k);
	return cJSON_IsBool(i) ? cJSON_IsTrue(i) : -1;
}

static void test_faulted_move(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-faulted-move.txt", &n, &c);
	const struct xray_vma *m;
	char want[32];

	CHECK(v != NULL);
	if (!v)
		return;
	CHECK_EQ_U64(n, 4);
	m = xray_find(v, n, c + 1001 * P);
	CHECK(m != NULL);
	if (!m)
		goto out;
	CHECK_EQ_U64(m->start, c + 1001 * P);
	CHECK_EQ_U64(m->end, c + 1006 * P);
	/* pgoff stayed at the old place, carveout+1p */
	CHECK_EQ_U64(m->pgoff, (c + P) / P);
	CHECK(!xray_pgoff_linear(m));
	CHECK(m->has_anon_vma);
	CHECK_EQ_U64(m->anon_vma, m->anon_vma_root);
	CHECK_EQ_U64(m->chain_len, 1);
	CHECK(!m->uffd && !m->has_file && !m->mpol);
	CHECK_STR(m->vmflags, "rd,wr,mr,mw,me,ac,sd");
	CHECK_EQ_U64(m->flags, 0x8100073);
	CHECK(m->walked);
	CHECK_EQ_U64(m->nfolios, 5);
	CHECK_EQ_U64(m->present, 5);
	CHECK_EQ_U64(m->anon, 5);
	for (size_t i = 0; i < m->nfolios; i++) {
		const struct xray_folio *f = &m->folios[i];
		CHECK_EQ_U64(f->addr, c + (1001 + i) * P);
		CHECK_EQ_U64(f->index, (c + (1 + i) * P) / P);
		CHECK_EQ_U64(f->linear_index, f->index); /* rmap's invariant holds */
		CHECK_EQ_U64(f->addr_index, f->addr / P);
		CHECK(f->index != f->addr_index);
		CHECK(f->has_anon_vma && f->anon_vma == m->anon_vma);
		CHECK(!f->ksm && !f->large && f->order == 0 && f->nr == 1);
		CHECK(!xray_folio_linear(m, f));
	}
	CHECK(!xray_folios_linear(m));

	cJSON *j = json_of(m);
	snprintf(want, sizeof(want), "0x%" PRIx64, (c + P) / P);
	CHECK_STR(jstr(j, "vm_pgoff"), want);
	CHECK_STR(jstr(j, "vm_flags"), "0x8100073");
	CHECK_STR(jstr(j, "vm_flags_names"), "rd wr mr mw me ac sd");
	CHECK(jstr(j, "anon_vma") && strlen(jstr(j, "anon_vma")) == 16);
	CHECK_STR(jstr(j, "anon_vma"), jstr(j, "anon_vma_root"));
	CHECK(cJSON_GetObjectItem(j, "chain_len") && cJSON_GetObjectItem(j, "chain_len")->valuedouble == 1);
	CHECK_EQ_U64(jbool(j, "uffd"), 0);
	CHECK_EQ_U64(jbool(j, "folios_linear"), 0);
	CHECK_EQ_U64(jbool(j, "pgoff_linear"), 0);
	cJSON *fa = cJSON_GetObjectItem(j, "folios");
	CHECK(cJSON_IsArray(fa) && cJSON_GetArraySize(fa) == 5);
	cJSON *f0 = cJSON_GetArrayItem(fa, 0);
	CHECK_STR(jstr(f0, "index"), want);
	CHECK_STR(jstr(f0, "linear_index"), want);
	CHECK_STR(jstr(f0, "anon_vma"), jstr(j, "anon_vma"));
	CHECK_EQ_U64(jbool(f0, "linear"), 0);
	CHECK_EQ_U64(jbool(f0, "ksm"), 0);
	CHECK_EQ_U64(jbool(f0, "large"), 0);
	cJSON_Delete(j);

	/* The filler below the moved VMA: both reasons in the kernel's terms. */
	char buf[512];
	const struct xray_vma *below = xray_find(v, n, c + 1000 * P);
	CHECK(below && below->end == m->start);
	CHECK_EQ_U64(xray_explain(below, m, buf, sizeof(buf)), 2);
	CHECK(strstr(buf, "pgoff not contiguous: ") != NULL);
	CHECK(strstr(buf, "vm_flags differ: 0x8200070 != 0x8100073 (lower only: nr; upper only: rd,wr,ac)") != NULL);
out:
	xray_free(v, n);
}

static void test_unfaulted_move(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-unfaulted-move.txt", &n, &c);
	const struct xray_vma *m;

	CHECK(v != NULL);
	if (!v)
		return;
	m = xray_find(v, n, c + 1001 * P);
	CHECK(m != NULL);
	if (m) {
		/* copy_vma(): an unfaulted VMA's pgoff follows it */
		CHECK_EQ_U64(m->pgoff, (c + 1001 * P) / P);
		CHECK(xray_pgoff_linear(m));
		CHECK(!m->has_anon_vma);
		CHECK_EQ_U64(m->chain_len, 0);
		CHECK(!m->walked);
		CHECK_STR(m->folios_walk, "no_anon_vma");
		CHECK(xray_folios_linear(m)); /* nothing present */
		cJSON *j = json_of(m);
		CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "anon_vma")));
		CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "anon_vma_root")));
		CHECK(cJSON_GetObjectItem(j, "folios") == NULL);
		CHECK_STR(jstr(j, "folios_walk"), "no_anon_vma");
		CHECK_EQ_U64(jbool(j, "pgoff_linear"), 1);
		cJSON_Delete(j);
	}
	xray_free(v, n);
}

static void test_forked(void)
{
	size_t nc, np;
	uint64_t c, c2;
	struct xray_vma *vc = load("xray-forked-child.txt", &nc, &c);
	struct xray_vma *vp = load("xray-forked-parent.txt", &np, &c2);
	const struct xray_vma *ch, *pa;

	CHECK(vc && vp);
	if (!vc || !vp)
		goto out;
	(void)c2; /* the parent was read over the carveout only, not the guards */
	ch = xray_find(vc, nc, c + P);
	pa = xray_find(vp, np, c + P);
	CHECK(ch && pa);
	if (!ch || !pa)
		goto out;
	CHECK_EQ_U64(ch->chain_len, 2);
	CHECK_EQ_U64(pa->chain_len, 1);
	CHECK(ch->anon_vma != pa->anon_vma);
	CHECK_EQ_U64(ch->anon_vma_root, pa->anon_vma);
	CHECK_EQ_U64(pa->anon_vma_root, pa->anon_vma);
	CHECK_EQ_U64(ch->nfolios, 5);
	/* the child unCOWed 2 pages: those are its own; the rest are shared */
	for (size_t i = 0; i < ch->nfolios; i++)
		CHECK_EQ_U64(ch->folios[i].anon_vma, i < 2 ? ch->anon_vma : pa->anon_vma);
	CHECK(!xray_folios_linear(ch));
	CHECK(xray_folios_linear(pa));
	CHECK(xray_pgoff_linear(ch) && xray_pgoff_linear(pa));
out:
	xray_free(vc, nc);
	xray_free(vp, np);
}

static void test_forked_target(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-forked-target.txt", &n, &c);
	char buf[512];

	CHECK(v != NULL);
	if (!v)
		return;
	const struct xray_vma *a = xray_find(v, n, c + P), *b = xray_find(v, n, c + 6 * P);
	CHECK(a && b && a != b);
	if (a && b) {
		CHECK_EQ_U64(xray_explain(a, b, buf, sizeof(buf)), 1);
		CHECK_STR(buf, "anon_vma_chain of the lower VMA has 2 entries (forked)");
		/* the order of the arguments does not matter */
		CHECK_EQ_U64(xray_explain(b, a, buf, sizeof(buf)), 1);
		CHECK_STR(buf, "anon_vma_chain of the lower VMA has 2 entries (forked)");
	}
	xray_free(v, n);
}

/* stress's invariant 4 judged on what 6.1 really showed (captured records):
 * the flags only change how a non-linear result is excused. */
static void test_relocate_verdict(void)
{
	size_t n, n2;
	uint64_t c, c2;
	struct xray_vma *v = load("xray-faulted-move.txt", &n, &c);
	struct xray_vma *u = load("xray-unfaulted-to-faulted.txt", &n2, &c2);
	const unsigned must = MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_MUST_RELOCATE_ANON;
	const unsigned reloc = MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_RELOCATE_ANON;
	const unsigned plain = MREMAP_MAYMOVE | MREMAP_FIXED;

	CHECK(v != NULL && u != NULL);
	if (v) {
		/* a faulted VMA moved 1000 pages up keeps its folios' indices */
		const struct xray_vma *m = xray_find(v, n, c + 1001 * P);
		CHECK(m != NULL);
		uint64_t to = c + 1001 * P, end = c + 1006 * P;
		CHECK_EQ_U64(stress_relocate_verdict(m, to, end, must), RELOC_BROKEN);
		CHECK_EQ_U64(stress_relocate_verdict(m, to, end, plain), RELOC_BROKEN);
		/* RELOCATE_ANON alone may fall back to a plain move */
		CHECK_EQ_U64(stress_relocate_verdict(m, to, end, reloc), RELOC_FALLBACK);
		/* a move of its last 2 pages that merged into it ordinarily: nothing relocated */
		CHECK_EQ_U64(stress_relocate_verdict(m, c + 1004 * P, end, must), RELOC_MERGED);
		/* but not for a plain move: --xray-all-moves counts it */
		CHECK_EQ_U64(stress_relocate_verdict(m, c + 1004 * P, end, plain), RELOC_BROKEN);
		/* no VMA at the destination */
		CHECK_EQ_U64(stress_relocate_verdict(NULL, to, end, must), RELOC_BROKEN);
		xray_free(v, n);
	}
	if (u) {
		/* mremap_unfaulted_to_faulted: merged and linear, whatever the flags */
		const struct xray_vma *m = xray_find(u, n2, c2 + P);
		CHECK(m != NULL);
		CHECK_EQ_U64(stress_relocate_verdict(m, c2 + 6 * P, c2 + 11 * P, must), RELOC_LINEAR);
		CHECK_EQ_U64(stress_relocate_verdict(m, c2 + 6 * P, c2 + 11 * P, plain), RELOC_LINEAR);
		xray_free(u, n2);
	}
}

static void test_unfaulted_to_faulted(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-unfaulted-to-faulted.txt", &n, &c);

	CHECK(v != NULL);
	if (!v)
		return;
	const struct xray_vma *m = xray_find(v, n, c + P);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_U64(m->start, c + P);
		CHECK_EQ_U64(m->end, c + 11 * P);
		CHECK(xray_pgoff_linear(m));
		CHECK_EQ_U64(m->nfolios, 1);
		CHECK(xray_folios_linear(m));
		cJSON *j = json_of(m);
		CHECK_EQ_U64(jbool(j, "folios_linear"), 1);
		CHECK_EQ_U64(jbool(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "folios"), 0), "linear"), 1);
		cJSON_Delete(j);
	}
	xray_free(v, n);
}

static void test_faulted_to_faulted(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-faulted-to-faulted.txt", &n, &c);
	char buf[512], want[256];

	CHECK(v != NULL);
	if (!v)
		return;
	const struct xray_vma *a = xray_find(v, n, c + P), *b = xray_find(v, n, c + 6 * P),
			     *r = xray_find(v, n, c + 8 * P), *d = xray_find(v, n, c + 9 * P);
	CHECK(a && b && r && d);
	if (a && b && r && d) {
		/* ptr2 was faulted at carveout+20p and moved after ptr */
		snprintf(want, sizeof(want), "pgoff not contiguous: 0x%" PRIx64 " + 5 != 0x%" PRIx64
			 "; anon_vma differs", (c + P) / P, (c + 20 * P) / P);
		CHECK_EQ_U64(xray_explain(a, b, buf, sizeof(buf)), 2);
		CHECK_STR(buf, want);
		/* one page of it mprotect()ed read-only */
		CHECK_EQ_U64(xray_explain(b, r, buf, sizeof(buf)), 1);
		CHECK_STR(buf, "vm_flags differ: 0x8100073 != 0x8100071 (lower only: wr)");
		CHECK_EQ_U64(xray_explain(r, d, buf, sizeof(buf)), 1);
		CHECK_STR(buf, "vm_flags differ: 0x8100071 != 0x8100073 (upper only: wr)");
		CHECK_EQ_U64(b->anon_vma, r->anon_vma);
		CHECK_EQ_U64(r->pgoff, b->pgoff + 2);
		CHECK_EQ_U64(r->present, 0);
	}
	xray_free(v, n);
}

static void test_ksm_uffd_zero(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-ksm-uffd-zero.txt", &n, &c);
	char buf[512];

	CHECK(v != NULL);
	if (!v)
		return;
	const struct xray_vma *k = xray_find(v, n, c + P), *u = xray_find(v, n, c + 10 * P),
			     *u2 = xray_find(v, n, c + 12 * P), *z = xray_find(v, n, c + 20 * P);
	CHECK(k && u && u2 && z);
	if (k && u && u2 && z) {
		CHECK_EQ_U64(k->nfolios, 4);
		for (size_t i = 0; i < k->nfolios; i++)
			CHECK(k->folios[i].ksm && !k->folios[i].has_anon_vma);
		CHECK(strstr(k->vmflags, "mg") != NULL);
		CHECK(xray_folios_linear(k)); /* KSM folios are left out */
		CHECK(u->uffd && u->uffd_ctx != 0);
		CHECK(!u2->uffd);
		CHECK_EQ_U64(xray_explain(u, u2, buf, sizeof(buf)), 2);
		CHECK_STR(buf, "vm_flags differ: 0x8100273 != 0x8100073 (lower only: um); "
			  "uffd context differs (lower: attached, upper: none)");
		CHECK_EQ_U64(z->present, 2);
		CHECK_EQ_U64(z->anon, 1);
		CHECK_EQ_U64(z->zero, 1);
		CHECK_EQ_U64(z->nfolios, 1);
		cJSON *j = json_of(u);
		CHECK_EQ_U64(jbool(j, "uffd"), 1);
		cJSON_Delete(j);
		j = json_of(z);
		cJSON *pg = cJSON_GetObjectItem(j, "pages");
		CHECK(pg && cJSON_GetObjectItem(pg, "zero") && cJSON_GetObjectItem(pg, "zero")->valuedouble == 1);
		cJSON_Delete(j);
	}
	xray_free(v, n);
}

static void test_thp(void)
{
	size_t n;
	uint64_t c;
	struct xray_vma *v = load("xray-thp.txt", &n, &c);

	CHECK(v != NULL);
	if (!v)
		return;
	/* a THP at carveout, moved to carveout+4m, then its page 1 to +8m */
	const struct xray_vma *a = xray_find(v, n, c + 0x400000), *b = xray_find(v, n, c + 0x400000 + 2 * P),
			     *d = xray_find(v, n, c + 0x800000);
	CHECK(a && b && d);
	if (a && b && d) {
		CHECK_EQ_U64(a->nfolios, 1);
		CHECK_EQ_U64(b->nfolios, 1);
		CHECK_EQ_U64(d->nfolios, 1);
		if (a->nfolios && b->nfolios && d->nfolios) {
			const struct xray_folio *fa = a->folios, *fb = b->folios, *fd = d->folios;
			CHECK(fa->large && fa->order == 9 && fb->order == 9 && fd->order == 9);
			CHECK_EQ_U64(fa->index, c / P);
			CHECK_EQ_U64(fb->index, c / P);
			CHECK_EQ_U64(fd->index, c / P);
			CHECK_EQ_U64(fa->subpage, 0);
			CHECK_EQ_U64(fd->subpage, 1);
			CHECK_EQ_U64(fb->subpage, 2);
			CHECK_EQ_U64(fb->nr, 510);
			CHECK_EQ_U64(fb->linear_index, fb->index + 2);
			CHECK(!xray_folio_linear(b, fb));
		}
		cJSON *j = json_of(b);
		cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "folios"), 0);
		CHECK(f && cJSON_GetObjectItem(f, "nr_pages")->valuedouble == 510);
		CHECK(f && cJSON_GetObjectItem(f, "order")->valuedouble == 9);
		CHECK_EQ_U64(jbool(f, "large"), 1);
		cJSON_Delete(j);
	}
	xray_free(v, n);
}

static void test_nofolios(void)
{
	size_t n;
	struct xray_vma *v = load("xray-nofolios.txt", &n, NULL);

	CHECK(v != NULL);
	CHECK_EQ_U64(n, 4);
	for (size_t i = 0; v && i < n; i++) {
		CHECK(!v[i].walked);
		CHECK_STR(v[i].folios_walk, "not_requested");
		CHECK_EQ_U64(v[i].nfolios, 0);
	}
	xray_free(v, n);
}

/* ---- hand-made records: the error paths ------------------------------------ */

#define HDR "xray format=1 kernel=x pid=1 lo=0x1000 hi=0x9000 folios=1 page_size=4096\n"
#define VMA1 "vma start=0x1000 end=0x3000 pgoff=0x1 flags=0x100073 vmflags=rd,wr,mr,mw,me,ac " \
	"anon_vma=00000000000000aa anon_vma_root=00000000000000aa chain=1 uffd=0 uffd_ctx=- file=- mpol=0 folios=walked\n"

static int parse_str(const char *s, struct xray_vma **v, size_t *n, char *why, size_t len)
{
	return xray_parse_buf(s, strlen(s), v, n, why, len);
}

static void test_errors(void)
{
	struct xray_vma *v = (struct xray_vma *)1;
	size_t n = 7;
	char why[256];

	CHECK_EQ_U64(parse_str("", &v, &n, why, sizeof(why)), (uint64_t)-1);
	CHECK(v == NULL && n == 0);
	CHECK_STR(why, "no x-ray records");
	CHECK_EQ_U64(parse_str("hello world\n", &v, &n, why, sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "not x-ray records") != NULL);
	CHECK_EQ_U64(parse_str(HDR VMA1, &v, &n, why, sizeof(why)), (uint64_t)-1);
	CHECK_STR(why, "the x-ray records are truncated (no end record)");
	CHECK_EQ_U64(parse_str("xray format=2 page_size=4096\nend\n", &v, &n, why, sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "format 2 is not supported") != NULL);
	CHECK_EQ_U64(parse_str(HDR "folio addr=0x1000 index=0x1 linear=0x1 anon_vma=-\nend\n", &v, &n, why,
			       sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "a folio before any vma") != NULL);
	CHECK_EQ_U64(parse_str(HDR VMA1 "folio addr=0x5000 index=0x1 linear=0x1 anon_vma=-\nend\n", &v, &n, why,
			       sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "outside its vma") != NULL);
	CHECK_EQ_U64(parse_str(HDR "vma start=0x1000 end=0x3000 pgoff=zz flags=0 chain=0\nend\n", &v, &n, why,
			       sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "bad pgoff=zz") != NULL);
	CHECK_EQ_U64(parse_str(HDR "vma start=0x1000 end=0x3000 flags=0 chain=0\nend\n", &v, &n, why,
			       sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "no pgoff") != NULL);
	CHECK_EQ_U64(parse_str(HDR VMA1 "end vmas=1 folios=0\nvma start=0x5000\n", &v, &n, why, sizeof(why)),
		     (uint64_t)-1);
	CHECK(strstr(why, "after the end record") != NULL);
	CHECK_EQ_U64(parse_str(HDR "vma start=0x3000 end=0x3000 pgoff=1 flags=0 chain=0\nend\n", &v, &n, why,
			       sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "end <= start") != NULL);
	CHECK_EQ_U64(parse_str(HDR "vma start=0x1000 end=0x3000 pgoff=1 flags=0 chain=0 anon_vma=xyz\nend\n", &v,
			       &n, why, sizeof(why)), (uint64_t)-1);
	CHECK(strstr(why, "bad identity anon_vma=xyz") != NULL);
	CHECK(v == NULL && n == 0);
}

static void test_forward_compatible(void)
{
	struct xray_vma *v = NULL;
	size_t n = 0;
	char why[256] = "";

	/* unknown keys and record types (a newer module), comments, blank lines */
	const char *s = "# a comment\n\n" HDR
			"vma start=0x1000 end=0x3000 pgoff=0x1 flags=0x73 new_key=7 anon_vma=- chain=0\n"
			"sparkle x=1\n"
			"folio addr=0x2000 index=0x2 linear=0x2 anon_vma=- brand_new=yes\n"
			"end vmas=1 folios=1 extra=1\n";
	CHECK_EQ_U64(parse_str(s, &v, &n, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_EQ_U64(n, 1);
	if (n == 1) {
		CHECK_EQ_U64(v[0].nfolios, 1);
		CHECK_EQ_U64(v[0].folios[0].nr, 1); /* nr defaults to 1 */
		CHECK_STR(v[0].vmflags, "");
		CHECK_STR(v[0].folios_walk, "not_requested");
		CHECK(xray_find(v, n, 0x2fff) == &v[0]);
		CHECK(xray_find(v, n, 0x3000) == NULL);
	}
	xray_free(v, n);
	xray_free(NULL, 0);

	/* through a pipe: xray_parse_fd() reads any file descriptor */
	int p[2];
	CHECK(pipe(p) == 0);
	const char *t = HDR VMA1 "end\n";
	CHECK(write(p[1], t, strlen(t)) == (ssize_t)strlen(t));
	close(p[1]);
	CHECK_EQ_U64(xray_parse_fd(p[0], &v, &n, why, sizeof(why)), 0);
	close(p[0]);
	CHECK_EQ_U64(n, 1);
	if (n == 1)
		CHECK_EQ_U64(v[0].anon_vma, 0xaa);
	xray_free(v, n);
}

static struct xray_vma mk(uint64_t start, uint64_t pages, uint64_t pgoff, const char *flags)
{
	struct xray_vma v;

	memset(&v, 0, sizeof(v));
	v.start = start;
	v.end = start + pages * P;
	v.pgoff = pgoff;
	v.page_size = P;
	v.flags = 0x100073;
	snprintf(v.vmflags, sizeof(v.vmflags), "%s", flags);
	return v;
}

static void test_explain_synthetic(void)
{
	char buf[512], tiny[8];
	struct xray_vma a = mk(0x10000, 4, 0x10, "rd,wr,mr,mw,me,ac"), b = mk(0x14000, 2, 0x14, "rd,wr,mr,mw,me,ac");

	/* mergeable as far as the x-ray can tell */
	CHECK_EQ_U64(xray_explain(&a, &b, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* soft-dirty alone never prevents a merge */
	b.flags |= 0x8000000;
	snprintf(b.vmflags, sizeof(b.vmflags), "rd,wr,mr,mw,me,ac,sd");
	CHECK_EQ_U64(xray_explain(&a, &b, buf, sizeof(buf)), 0);
	/* bits without a name still count */
	b.flags |= 1ull << 40;
	CHECK_EQ_U64(xray_explain(&a, &b, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "vm_flags differ: 0x100073 != 0x10008100073");
	b.flags = a.flags;
	/* a hole */
	struct xray_vma c = mk(0x20000, 1, 0x20, "rd");
	CHECK_EQ_U64(xray_explain(&a, &c, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "not adjacent: the lower VMA ends at 0x14000, the upper starts at 0x20000");
	/* VM_SPECIAL */
	snprintf(b.vmflags, sizeof(b.vmflags), "rd,wr,mr,mw,me,ac,de,io");
	b.flags = a.flags;
	CHECK_EQ_U64(xray_explain(&a, &b, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "VM_SPECIAL flag io: such VMAs never merge");
	snprintf(b.vmflags, sizeof(b.vmflags), "rd,wr,mr,mw,me,ac");
	/* file, uffd identity, mempolicy, the chain on the upper side */
	b.has_file = true;
	b.file = 1;
	a.uffd = b.uffd = true;
	a.uffd_ctx = 1;
	b.uffd_ctx = 2;
	a.mpol = true;
	b.has_anon_vma = true;
	b.anon_vma = 5;
	b.chain_len = 3;
	CHECK_EQ_U64(xray_explain(&a, &b, buf, sizeof(buf)), 4);
	CHECK_STR(buf, "anon_vma_chain of the upper VMA has 3 entries (forked); vm_file differs; "
		  "uffd context differs (lower: attached, upper: attached); "
		  "mempolicy differs (only the lower VMA has one)");
	/* same anon_vma, chain irrelevant; a truncated buffer stays terminated */
	a.has_anon_vma = true;
	a.anon_vma = 5;
	CHECK_EQ_U64(xray_explain(&a, &b, tiny, sizeof(tiny)), 3);
	CHECK_EQ_U64(strlen(tiny), sizeof(tiny) - 1);
	CHECK_EQ_U64(xray_explain(&a, &b, NULL, 0), 3);
	CHECK_EQ_U64(xray_explain(NULL, &b, buf, sizeof(buf)), (uint64_t)-1);
}

static void test_available(void)
{
	char why[256] = "";
	int r = xray_available(why, sizeof(why));

	/* on a build machine the module is normally absent: the reason says so */
	if (r)
		CHECK_STR(why, "");
	else
		CHECK(strlen(why) > 10);
	struct xray_vma *v = (struct xray_vma *)1;
	size_t n = 3;
	CHECK_EQ_U64(xray_read(getpid(), 0x2000, 0x1000, false, &v, &n, why, sizeof(why)), (uint64_t)-1);
	CHECK(v == NULL && n == 0);
	CHECK(strstr(why, "empty range") != NULL);
}

/* ---- the VM test's probe --------------------------------------------------- */

static void show(const struct xray_vma *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *j = xray_vma_json(&v[i]);
		char *s = cJSON_PrintUnformatted(j);

		printf("VMA 0x%" PRIx64 "-0x%" PRIx64 " %s\n", v[i].start, v[i].end, s);
		free(s);
		cJSON_Delete(j);
	}
	for (size_t i = 0; i + 1 < n; i++) {
		char buf[1024];
		int r;

		if (v[i].end != v[i + 1].start)
			continue;
		r = xray_explain(&v[i], &v[i + 1], buf, sizeof(buf));
		printf("EXPLAIN 0x%" PRIx64 "-0x%" PRIx64 " | 0x%" PRIx64 "-0x%" PRIx64 ": %d: %s\n", v[i].start,
		       v[i].end, v[i + 1].start, v[i + 1].end, r, buf);
	}
}

static int tool(int argc, char **argv)
{
	struct xray_vma *v = NULL;
	size_t n = 0;
	char why[512];

	if (!strcmp(argv[1], "--available")) {
		if (xray_available(why, sizeof(why))) {
			printf("available\n");
			return 0;
		}
		printf("unavailable: %s\n", why);
		return 4;
	}
	if (!strcmp(argv[1], "--show") && argc == 3) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
			return 2;
		}
		if (xray_parse_fd(fd, &v, &n, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", argv[2], why);
			close(fd);
			return 1;
		}
		close(fd);
	} else if (!strcmp(argv[1], "--live") && argc == 5) {
		pid_t pid = (pid_t)strtol(argv[2], NULL, 0);
		uint64_t lo = strtoull(argv[3], NULL, 0), hi = strtoull(argv[4], NULL, 0);
		if (xray_read(pid, lo, hi, true, &v, &n, why, sizeof(why))) {
			fprintf(stderr, "xray_read: %s\n", why);
			return 1;
		}
	} else {
		fprintf(stderr, "usage: test_xray [--available | --show FILE | --live PID LO HI]\n");
		return 2;
	}
	show(v, n);
	xray_free(v, n);
	return 0;
}

/* Linux 7.3's module prints anon_pgoff (vma_start_anon_pgoff()); the
 * records are the final dump of anon_and_page_offset_mismatch_memfd in
 * Debian's 7.3-rc7 (tests/vm/check-vm.sh checks the same live): file pages
 * 0..4 unfaulted at C, file pages 5..9 faulted at C+10p and moved to C+5p. */
static void test_anon_pgoff_73(void)
{
	struct xray_vma *v = NULL;
	size_t n = 0;
	char why[256] = "", buf[256];
	const char *s = "xray format=1 kernel=7.3-amd64 pid=1 lo=0x7f0d48951000 hi=0x7f0d4895b000 folios=0 page_size=4096\n"
			"vma start=0x7f0d48951000 end=0x7f0d48956000 pgoff=0x0 flags=0x100073 anon_pgoff=0x7f0d48951 "
			"vmflags=rd,wr,mr,mw,me,ac anon_vma=- anon_vma_root=- chain=0 uffd=0 uffd_ctx=- "
			"file=00000000000000f1 mpol=0 folios=not_requested\n"
			"vma start=0x7f0d48956000 end=0x7f0d4895b000 pgoff=0x5 flags=0x100073 anon_pgoff=0x7f0d4895b "
			"vmflags=rd,wr,mr,mw,me,ac anon_vma=00000000000000aa anon_vma_root=00000000000000aa chain=1 uffd=0 "
			"uffd_ctx=- file=00000000000000f1 mpol=0 folios=not_requested\n"
			"end vmas=2 folios=0\n";

	CHECK_EQ_U64(parse_str(s, &v, &n, why, sizeof(why)), 0);
	CHECK_EQ_U64(n, 2);
	if (n != 2) {
		xray_free(v, n);
		return;
	}
	CHECK(v[0].has_anon_pgoff && v[1].has_anon_pgoff);
	CHECK_EQ_U64(v[1].anon_pgoff, 0x7f0d4895b);
	cJSON *j = xray_vma_json(&v[1]);
	CHECK_STR(jstr(j, "anon_pgoff"), "0x7f0d4895b");
	CHECK_STR(jstr(j, "vm_pgoff"), "0x5");
	cJSON_Delete(j);
	/* the file offsets run on; the anonymous ones do not */
	CHECK_EQ_U64(xray_explain(&v[0], &v[1], buf, sizeof(buf)), 1);
	CHECK_STR(buf, "anon_pgoff not contiguous: 0x7f0d48951 + 5 != 0x7f0d4895b");
	/* where they do (the faulted one moved back), no reason */
	v[1].anon_pgoff = 0x7f0d48956;
	CHECK_EQ_U64(xray_explain(&v[0], &v[1], buf, sizeof(buf)), 0);
	/* shared mappings and anonymous ones are not held to it */
	v[1].anon_pgoff = 0x1;
	snprintf(v[0].vmflags, sizeof(v[0].vmflags), "rd,wr,sh,mr,mw,me");
	snprintf(v[1].vmflags, sizeof(v[1].vmflags), "rd,wr,sh,mr,mw,me");
	v[1].has_anon_vma = false;
	CHECK(strstr((xray_explain(&v[0], &v[1], buf, sizeof(buf)), buf), "anon_pgoff") == NULL);
	xray_free(v, n);
	/* a record without it (before 7.3): none, and no such key in JSON */
	CHECK_EQ_U64(parse_str(HDR VMA1 "end\n", &v, &n, why, sizeof(why)), 0);
	CHECK(n == 1 && !v[0].has_anon_pgoff);
	j = xray_vma_json(&v[0]);
	CHECK(cJSON_GetObjectItem(j, "anon_pgoff") == NULL);
	cJSON_Delete(j);
	xray_free(v, n);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return tool(argc, argv);
	RUN(test_faulted_move);
	RUN(test_unfaulted_move);
	RUN(test_forked);
	RUN(test_forked_target);
	RUN(test_unfaulted_to_faulted);
	RUN(test_relocate_verdict);
	RUN(test_faulted_to_faulted);
	RUN(test_ksm_uffd_zero);
	RUN(test_thp);
	RUN(test_nofolios);
	RUN(test_errors);
	RUN(test_forward_compatible);
	RUN(test_explain_synthetic);
	RUN(test_anon_pgoff_73);
	RUN(test_available);
	return unit_done();
}
