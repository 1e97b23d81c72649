/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stress model: what every carveout page holds (unmapped, zero, or a
 * pattern written from a given page), which pages are certainly in one VMA,
 * and what the kernel will answer to each operation, kernel version by
 * kernel version where the answer differs. */
#include "stress.h"
#include "compat.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RW (PROT_READ | PROT_WRITE)

void stress_model_init(struct stress_model *m, int npages, bool multi_move, bool relocate, bool break_model)
{
	memset(m, 0, sizeof(*m));
	m->n = npages;
	m->pg = xcalloc(npages, sizeof(*m->pg));
	m->dirty = xcalloc(npages, 1);
	m->multi_move = multi_move;
	m->relocate = relocate;
	m->break_model = break_model;
	/* the carveout starts as one PROT_NONE VMA (reaching into the guards) */
	for (int i = 0; i < npages; i++) {
		m->pg[i].mapped = 1;
		m->pg[i].zero = 1;
		m->pg[i].vid = 1;
	}
	m->next_vid = 2;
}

void stress_model_free(struct stress_model *m)
{
	free(m->pg);
	free(m->dirty);
	m->pg = NULL;
	m->dirty = NULL;
}

/* splitmix64, exactly as child.c's pattern_word: word i of a range filled with seed. */
uint64_t stress_pattern_word(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t fresh(struct stress_model *m)
{
	return m->next_vid++;
}

/* The kernel may split a VMA at page x: pages from x on that shared its VMA
 * identity get a new one. The model never merges: equal identity means
 * certainly one VMA, different identity means maybe not. */
static void split(struct stress_model *m, int x)
{
	if (x <= 0 || x >= m->n)
		return;
	struct stress_page *p = m->pg;
	if (!p[x - 1].mapped || !p[x].mapped || p[x - 1].vid != p[x].vid)
		return;
	uint32_t v = p[x].vid, nv = fresh(m);
	for (int i = x; i < m->n && p[i].mapped && p[i].vid == v; i++)
		p[i].vid = nv;
}

bool stress_single_vma(const struct stress_model *m, int a, int n)
{
	if (a < 0 || n < 1 || a + n > m->n)
		return false;
	for (int i = a; i < a + n; i++)
		if (!m->pg[i].mapped || m->pg[i].vid != m->pg[a].vid)
			return false;
	return true;
}

bool stress_all(const struct stress_model *m, int a, int n, int prot)
{
	if (a < 0 || n < 1 || a + n > m->n)
		return false;
	for (int i = a; i < a + n; i++)
		if (!m->pg[i].mapped || (m->pg[i].prot & prot) != prot)
			return false;
	return true;
}

bool stress_any_hole(const struct stress_model *m, int a, int n)
{
	for (int i = a; i < a + n && i < m->n; i++)
		if (i >= 0 && !m->pg[i].mapped)
			return true;
	return false;
}

static bool any_mapped(const struct stress_model *m, int a, int n)
{
	for (int i = a; i < a + n && i < m->n; i++)
		if (i >= 0 && m->pg[i].mapped)
			return true;
	return false;
}

static void set(struct stress_pred *p, int kind, int err, const char *why)
{
	p->kind = kind;
	p->err = err;
	p->why = why;
}

static void mayfail(struct stress_pred *p, uint64_t allowed, const char *why)
{
	p->kind = PRED_MAYFAIL;
	p->allowed = allowed;
	p->why = why;
}

/* The errnos the RFC series' relocate flags may add (it does not pin them down). */
#define RELOCATE_ERRS (ERRBIT(EINVAL) | ERRBIT(EFAULT) | ERRBIT(ENOMEM) | ERRBIT(EAGAIN) | ERRBIT(EBUSY))

static void predict_mremap(const struct stress_model *m, const struct stress_op *op, struct stress_pred *p)
{
	unsigned f = op->flags;
	int a = op->a, n = op->n, nn = op->new_n, t = op->t, N = m->n;
	bool fixed = f & MREMAP_FIXED, maymove = f & MREMAP_MAYMOVE, dontunmap = f & MREMAP_DONTUNMAP;
	unsigned reloc = f & (MREMAP_RELOCATE_ANON | MREMAP_MUST_RELOCATE_ANON);

	if (a < 0 || n < 1 || nn < 1 || a + n > N)
		return set(p, PRED_UNSAFE, 0, "range outside the carveout");
	/* check_mremap_params(): flags, then the new address, before any lookup */
	if (f & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP | MREMAP_RELOCATE_ANON | MREMAP_MUST_RELOCATE_ANON))
		return set(p, PRED_ERRNO, EINVAL, "an unknown flag bit: EINVAL");
	if (reloc && !m->relocate) {
		set(p, PRED_ERRNO, EINVAL, "a kernel without the relocate series refuses its flags with EINVAL");
		p->soft = true;
		return;
	}
	if (fixed || dontunmap) {
		if (!maymove)
			return set(p, PRED_ERRNO, EINVAL, "MREMAP_FIXED and MREMAP_DONTUNMAP need MREMAP_MAYMOVE: EINVAL");
		if (dontunmap && n != nn)
			return set(p, PRED_ERRNO, EINVAL, "MREMAP_DONTUNMAP cannot resize: EINVAL");
		if (!fixed)
			return set(p, PRED_UNSAFE, 0, "MREMAP_DONTUNMAP without MREMAP_FIXED: the kernel picks the place");
		if (t < 0 || t + nn > N)
			return set(p, PRED_UNSAFE, 0, "target outside the carveout");
		if (t < a + n && a < t + nn)
			return set(p, PRED_UNSAFE, 0, "overlapping move");
	}
	struct stress_pred b = { .kind = PRED_OK, .why = "valid" };
	bool single = stress_single_vma(m, a, n), hole = stress_any_hole(m, a, n);
	b.resync = fixed || nn < n;
	if (!m->pg[a].mapped) {
		set(&b, PRED_ERRNO, EFAULT, "no VMA at the old address: EFAULT");
	} else if (fixed && n == nn) {
		if (single)
			b.why = "a move of one VMA";
		else if (m->multi_move)
			b.why = "a move across several VMAs or gaps (Linux 6.17 and later)";
		else if (hole)
			set(&b, PRED_ERRNO, EFAULT, "a move across a gap, before Linux 6.17: EFAULT");
		else
			mayfail(&b, ERRBIT(EFAULT), "maybe several VMAs, before Linux 6.17: EFAULT if so");
	} else if (fixed) {
		if (single)
			b.why = "a resizing move of one VMA";
		else if (nn < n)
			mayfail(&b, ERRBIT(EFAULT), "a shrinking move over several VMAs: EFAULT unless the kept part is one VMA");
		else if (hole)
			set(&b, PRED_ERRNO, EFAULT, "a growing move across a gap: EFAULT");
		else
			mayfail(&b, ERRBIT(EFAULT), "a growing move of maybe several VMAs: EFAULT if so");
	} else if (n == nn) {
		if (!single)
			mayfail(&b, ERRBIT(EFAULT), "same size over maybe several VMAs: EFAULT since 6.17, success before");
		else
			b.why = "same size: nothing to do";
	} else if (nn < n) {
		if (!single)
			mayfail(&b, ERRBIT(EFAULT), "a shrink over maybe several VMAs: EFAULT since 6.17, success before");
		else
			b.why = "a shrink in place";
	} else if (!single) {
		if (hole)
			set(&b, PRED_ERRNO, EFAULT, "a grow across a gap: EFAULT");
		else if (maymove)
			set(&b, PRED_UNSAFE, 0, "MREMAP_MAYMOVE grow of maybe several VMAs: might move anywhere");
		else
			mayfail(&b, ERRBIT(EFAULT) | ERRBIT(ENOMEM), "a grow of maybe several VMAs: EFAULT if so, ENOMEM if no room");
	} else {
		bool room = a + nn <= N;
		for (int i = a + n; room && i < a + nn; i++)
			room = !m->pg[i].mapped;
		if (room)
			b.why = "a grow in place into free space";
		else if (maymove)
			set(&b, PRED_UNSAFE, 0, "MREMAP_MAYMOVE grow without room: the kernel picks the place");
		else
			set(&b, PRED_ERRNO, ENOMEM, "a grow without room and without MREMAP_MAYMOVE: ENOMEM");
	}
	if (reloc && b.kind != PRED_OK)
		return set(p, PRED_UNSAFE, 0, "relocate flags on a call the model does not expect to succeed");
	if (reloc)
		mayfail(&b, RELOCATE_ERRS, "the relocate series may refuse a move it cannot relocate");
	*p = b;
}

void stress_predict(const struct stress_model *m, const struct stress_op *op, struct stress_pred *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = PRED_OK;
	p->why = "valid";
	if (op->kind != SOP_FORK && op->kind != SOP_MREMAP && (op->a < 0 || op->n < 1 || op->a + op->n > m->n))
		return set(p, PRED_UNSAFE, 0, "range outside the carveout");
	switch (op->kind) {
	case SOP_MMAP:
		if (op->flags == MMK_NOREPLACE && any_mapped(m, op->a, op->n))
			set(p, PRED_ERRNO, EEXIST, "MAP_FIXED_NOREPLACE over a mapped page: EEXIST");
		break;
	case SOP_MPROTECT:
		if (stress_any_hole(m, op->a, op->n))
			set(p, PRED_ERRNO, ENOMEM, "mprotect over a hole: ENOMEM (applied up to the hole)");
		break;
	case SOP_MADVISE:
		if (op->advice == ADV_COLLAPSE)
			mayfail(p, ERRBIT(EINVAL) | ERRBIT(ENOMEM) | ERRBIT(EAGAIN),
				"MADV_COLLAPSE may refuse the range (EINVAL), lack memory or meet a hole (ENOMEM), or be busy (EAGAIN)");
		else if (stress_any_hole(m, op->a, op->n))
			set(p, PRED_ERRNO, ENOMEM, "madvise over a hole: ENOMEM (applied to the mapped part)");
		break;
	case SOP_FAULT:
		if (!stress_all(m, op->a, op->n, op->access ? PROT_READ : RW))
			set(p, PRED_UNSAFE, 0, "would fault");
		break;
	case SOP_MREMAP:
		predict_mremap(m, op, p);
		break;
	default:
		break;
	}
}

static void unmap_page(struct stress_model *m, int i)
{
	if (i < 0 || i >= m->n)
		return;
	memset(&m->pg[i], 0, sizeof(m->pg[i]));
	m->pg[i].zero = 1;
	m->dirty[i] = 1;
}

static void unmap_range(struct stress_model *m, int a, int n)
{
	split(m, a);
	split(m, a + n);
	for (int i = a; i < a + n; i++)
		unmap_page(m, i);
}

/* Same-size MREMAP_FIXED move: page by page, as Linux 6.17's remap_move()
 * moves VMA by VMA, keeping the gaps; a gap's target is left as it was. */
static void move_only(struct stress_model *m, int a, int n, int t, bool dontunmap)
{
	for (int i = 0; i <= n; i++) {
		bool edge = i == 0 || i == n || m->pg[a + i - 1].mapped != m->pg[a + i].mapped;
		if (edge) {
			split(m, a + i);
			split(m, t + i);
		}
	}
	struct stress_page *src = xmalloc(n * sizeof(*src));
	memcpy(src, &m->pg[a], n * sizeof(*src));
	uint32_t last_new = 0, last_src = 0;
	for (int i = 0; i < n; i++) {
		struct stress_page *d = &m->pg[t + i];
		if (!src[i].mapped)
			continue;
		if (i == 0 || !src[i - 1].mapped || src[i - 1].vid != src[i].vid) {
			last_new = fresh(m);
			last_src = fresh(m);
		}
		*d = src[i];
		d->start += t - a;
		d->vid = last_new;
		d->moved = 1;
		m->dirty[t + i] = 1;
		struct stress_page *s = &m->pg[a + i];
		if (dontunmap) {
			/* the source stays mapped, its pages gone: it reads as zero */
			s->zero = 1;
			s->moved = 0;
			s->vid = last_src;
			m->dirty[a + i] = 1;
		} else {
			unmap_page(m, a + i);
		}
	}
	free(src);
}

static void resize_move(struct stress_model *m, int a, int n, int nn, int t)
{
	int keep = n < nn ? n : nn;

	split(m, a);
	split(m, a + n);
	split(m, t);
	split(m, t + nn);
	struct stress_page *src = xmalloc(keep * sizeof(*src));
	memcpy(src, &m->pg[a], keep * sizeof(*src));
	uint32_t v = fresh(m);
	for (int i = a; i < a + n; i++)
		unmap_page(m, i);
	for (int i = 0; i < nn; i++) {
		struct stress_page *d = &m->pg[t + i];
		if (i < keep) {
			*d = src[i];
			d->start += t - a;
			d->moved = 1;
		} else {
			memset(d, 0, sizeof(*d));
			d->mapped = 1;
			d->zero = 1;
			d->prot = src[keep - 1].prot;
			d->thp = src[keep - 1].thp;
		}
		d->vid = v;
		m->dirty[t + i] = 1;
	}
	free(src);
}

static void apply_mremap(struct stress_model *m, const struct stress_op *op)
{
	int a = op->a, n = op->n, nn = op->new_n, t = op->t;

	if (op->flags & MREMAP_FIXED) {
		if (n == nn)
			move_only(m, a, n, t, op->flags & MREMAP_DONTUNMAP);
		else
			resize_move(m, a, n, nn, t);
	} else if (nn < n) {
		unmap_range(m, a + nn, n - nn);
	} else if (nn > n) {
		struct stress_page last = m->pg[a + n - 1];
		for (int i = a + n; i < a + nn && i < m->n; i++) {
			struct stress_page *d = &m->pg[i];
			memset(d, 0, sizeof(*d));
			d->mapped = 1;
			d->zero = 1;
			d->prot = last.prot;
			d->thp = last.thp;
			d->vid = last.vid;
			m->dirty[i] = 1;
		}
	}
}

/* The effect of an operation that returned (failed: it returned -1). A failed
 * call changes nothing, except where the kernel documents a partial effect:
 * mprotect and madvise apply to the mapped part before answering ENOMEM. */
void stress_apply(struct stress_model *m, const struct stress_op *op, bool failed)
{
	int a = op->a, n = op->n;

	switch (op->kind) {
	case SOP_MMAP:
		if (failed)
			return;
		split(m, a);
		split(m, a + n);
		{
			uint32_t v = fresh(m);
			for (int i = a; i < a + n; i++) {
				struct stress_page *p = &m->pg[i];
				memset(p, 0, sizeof(*p));
				p->mapped = 1;
				p->zero = 1;
				p->prot = op->prot;
				p->vid = v;
				m->dirty[i] = 1;
			}
		}
		return;
	case SOP_MUNMAP:
		if (!failed)
			unmap_range(m, a, n);
		return;
	case SOP_MPROTECT: {
		/* mprotect changes VMA by VMA up to the first hole */
		if (!m->pg[a].mapped)
			return;
		int end = a;
		while (end < a + n && m->pg[end].mapped)
			end++;
		split(m, a);
		split(m, end);
		for (int i = a; i < end; i++)
			m->pg[i].prot = op->prot;
		return;
	}
	case SOP_MADVISE:
		if (failed && op->advice == ADV_COLLAPSE)
			return;
		if (op->advice == ADV_HUGEPAGE || op->advice == ADV_NOHUGEPAGE) {
			split(m, a);
			split(m, a + n);
		}
		for (int i = a; i < a + n; i++) {
			struct stress_page *p = &m->pg[i];
			if (!p->mapped)
				continue;
			switch (op->advice) {
			case ADV_DONTNEED:
				/* --break-model: forget that dontneed empties pages a move brought */
				if (m->break_model && p->moved)
					break;
				p->zero = 1;
				p->moved = 0;
				m->dirty[i] = 1;
				break;
			case ADV_HUGEPAGE:
				p->thp = 1;
				break;
			case ADV_NOHUGEPAGE:
				p->thp = 2;
				break;
			case ADV_COLLAPSE:
				m->dirty[i] = 1; /* copied into a huge page: check it */
				break;
			default:
				break;
			}
		}
		return;
	case SOP_FAULT:
		if (failed || op->access)
			return;
		for (int i = a; i < a + n; i++) {
			struct stress_page *p = &m->pg[i];
			p->zero = 0;
			p->moved = 0;
			p->seed = op->seed;
			p->start = a;
			m->dirty[i] = 1;
		}
		return;
	case SOP_FORK:
		if (!failed)
			m->forks++;
		return;
	case SOP_MREMAP:
		if (!failed)
			apply_mremap(m, op);
		return;
	default:
		return;
	}
}

/* After a failed mremap whose target (MREMAP_FIXED) or tail (a shrink) the
 * kernel may unmap before it fails: Linux 6.1 unmaps the target first and
 * then finds the source crosses a VMA. Pages the kernel shows unmapped
 * there become holes; nothing else is taken from the kernel. */
void stress_resync(struct stress_model *m, const struct stress_op *op, const uint8_t *kmapped)
{
	int ranges[2][2] = { { -1, -1 }, { -1, -1 } };

	if (op->kind != SOP_MREMAP)
		return;
	if (op->flags & MREMAP_FIXED)
		ranges[0][0] = op->t, ranges[0][1] = op->t + op->new_n;
	if (op->new_n < op->n)
		ranges[1][0] = op->a + op->new_n, ranges[1][1] = op->a + op->n;
	for (int k = 0; k < 2; k++)
		for (int i = ranges[k][0]; i >= 0 && i < ranges[k][1] && i < m->n; i++)
			if (m->pg[i].mapped && !kmapped[i]) {
				split(m, i);
				split(m, i + 1);
				unmap_page(m, i);
			}
}
