// SPDX-License-Identifier: GPL-2.0
/*
 * anonremap_xray: a read-only, root-only debugfs view of what /proc cannot
 * show about a task's VMAs: vm_pgoff, vm_flags, anon_vma and its root,
 * the anon_vma_chain length, the userfaultfd context and, on request, the
 * index and anon_vma of every present anonymous folio.
 *
 *   /sys/kernel/debug/anonremap-xray/control  write "PID LO HI [folios]"
 *   /sys/kernel/debug/anonremap-xray/data     read the records (see README)
 *
 * A request can also be written to the data file itself, then read back
 * from the same open file (the write rewinds it): that is race-free when
 * several readers share the module, and is what anonremap does.
 *
 * Kernel objects are named by identities, never by address: a SipHash of
 * the pointer value keyed with a key drawn at module load. Equal identities
 * mean the same object; nothing about the kernel's layout leaks.
 *
 * Nothing is changed: pages are looked up with get_user_pages_remote()
 * and FOLL_NOFAULT (a missing page is never faulted in), under the mmap
 * read lock, and every page reference taken is dropped again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hugetlb_inline.h>
#include <linux/kernel.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#define XRAY_FORMAT 1
#define XRAY_MAX_OUTPUT (64UL << 20)	/* one snapshot, at most */
#define XRAY_BATCH 64			/* pages per get_user_pages_remote() */

/* The anon-mapping tag bits of folio->mapping moved names in 6.17. */
#ifdef FOLIO_MAPPING_FLAGS
#define XRAY_MAPPING_FLAGS FOLIO_MAPPING_FLAGS
#define XRAY_MAPPING_ANON FOLIO_MAPPING_ANON
#define XRAY_MAPPING_KSM FOLIO_MAPPING_KSM
#else
#define XRAY_MAPPING_FLAGS PAGE_MAPPING_FLAGS
#define XRAY_MAPPING_ANON PAGE_MAPPING_ANON
#define XRAY_MAPPING_KSM PAGE_MAPPING_KSM
#endif

static siphash_key_t xray_key;
static struct dentry *xray_dir;

struct xray_req {
	pid_t pid;
	unsigned long lo, hi;
	bool folios;
	bool set;
};

/* The request written to "control", used by opens of "data" that write none. */
static DEFINE_MUTEX(xray_global_lock);
static struct xray_req xray_global;

static u64 xray_id(const void *p)
{
	return siphash_1u64((u64)(unsigned long)p, &xray_key);
}

/* ---- output buffer ---------------------------------------------------- */

struct xbuf {
	char *p;
	size_t len, cap;
	int err;
};

static __printf(2, 3) void xb_printf(struct xbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if (b->p && (size_t)n < room) {
			b->len += n;
			return;
		}
		{
			size_t cap = max_t(size_t, b->cap ? b->cap * 2 : 16384, b->len + n + 1);
			char *np;

			if (cap > XRAY_MAX_OUTPUT) {
				b->err = -EFBIG;
				return;
			}
			np = kvmalloc(cap, GFP_KERNEL);
			if (!np) {
				b->err = -ENOMEM;
				return;
			}
			if (b->p) {
				memcpy(np, b->p, b->len);
				kvfree(b->p);
			}
			b->p = np;
			b->cap = cap;
		}
	}
}

/* ---- vm_flags as /proc/PID/smaps names them --------------------------- */

struct xray_flagname {
	unsigned long bit;
	const char *name;
};

static const struct xray_flagname xray_flagnames[] = {
	{ VM_READ, "rd" }, { VM_WRITE, "wr" }, { VM_EXEC, "ex" }, { VM_SHARED, "sh" },
	{ VM_MAYREAD, "mr" }, { VM_MAYWRITE, "mw" }, { VM_MAYEXEC, "me" },
	{ VM_MAYSHARE, "ms" }, { VM_GROWSDOWN, "gd" }, { VM_PFNMAP, "pf" },
	{ VM_LOCKED, "lo" }, { VM_IO, "io" }, { VM_SEQ_READ, "sr" },
	{ VM_RAND_READ, "rr" }, { VM_DONTCOPY, "dc" }, { VM_DONTEXPAND, "de" },
	{ VM_LOCKONFAULT, "lf" }, { VM_ACCOUNT, "ac" }, { VM_NORESERVE, "nr" },
	{ VM_HUGETLB, "ht" }, { VM_SYNC, "sf" }, { VM_ARCH_1, "ar" },
	{ VM_WIPEONFORK, "wf" }, { VM_DONTDUMP, "dd" }, { VM_SOFTDIRTY, "sd" },
	{ VM_MIXEDMAP, "mm" }, { VM_HUGEPAGE, "hg" }, { VM_NOHUGEPAGE, "nh" },
	{ VM_MERGEABLE, "mg" }, { VM_UFFD_MISSING, "um" }, { VM_UFFD_WP, "uw" },
#ifdef VM_UFFD_MINOR
	{ VM_UFFD_MINOR, "ui" },
#endif
#ifdef VM_GROWSUP
	{ VM_GROWSUP, "gu" },
#endif
#ifdef VM_SHADOW_STACK
	{ VM_SHADOW_STACK, "ss" },
#endif
#ifdef VM_DROPPABLE
	{ VM_DROPPABLE, "dp" },
#endif
#ifdef VM_SEALED
	{ VM_SEALED, "sl" },
#endif
#ifdef VM_MAYBE_GUARD
	{ VM_MAYBE_GUARD, "gr" },
#endif
};

static void xb_vmflags(struct xbuf *b, unsigned long flags)
{
	const char *sep = "";
	size_t i;

	xb_printf(b, " vmflags=");
	for (i = 0; i < ARRAY_SIZE(xray_flagnames); i++) {
		unsigned long bit = xray_flagnames[i].bit;

		/* A flag the configuration leaves out is VM_NONE (0). */
		if (bit && (flags & bit) == bit) {
			xb_printf(b, "%s%s", sep, xray_flagnames[i].name);
			sep = ",";
		}
	}
	if (!*sep)
		xb_printf(b, "-");
}

/* ---- the walk ----------------------------------------------------------- */

/* A run of pages of one folio mapped at consecutive addresses. */
struct xray_run {
	bool open;
	unsigned long addr, nr, pfn_next, head_pfn;
	unsigned long index, subpage, linear;
	u64 anon_vma_id;
	bool has_anon_vma, ksm, large;
	unsigned int order;
	bool ok_linear, ok_anon_vma;
};

struct xray_counts {
	unsigned long present, anon, zero, other, folios;
};

static void xray_flush(struct xbuf *b, struct xray_run *r, struct xray_counts *c)
{
	if (!r->open)
		return;
	xb_printf(b, "folio addr=0x%lx nr=%lu index=0x%lx subpage=%lu linear=0x%lx",
		  r->addr, r->nr, r->index, r->subpage, r->linear);
	if (r->has_anon_vma)
		xb_printf(b, " anon_vma=%016llx", r->anon_vma_id);
	else
		xb_printf(b, " anon_vma=-");
	xb_printf(b, " order=%u ksm=%d large=%d linear_ok=%d anon_vma_ok=%d\n",
		  r->order, r->ksm, r->large, r->ok_linear, r->ok_anon_vma);
	c->folios++;
	r->open = false;
}

static void xray_page(struct xbuf *b, struct vm_area_struct *vma, struct anon_vma *vma_av,
		      struct page *page, unsigned long addr, struct xray_run *r,
		      struct xray_counts *c)
{
	struct folio *folio = page_folio(page);
	unsigned long pfn = page_to_pfn(page);
	unsigned long head_pfn = page_to_pfn(&folio->page);
	unsigned long mapping, linear;
	struct anon_vma *av = NULL;
	bool ksm;

	c->present++;
	if (!folio_test_anon(folio)) {
		if (is_zero_pfn(pfn))
			c->zero++;
		else
			c->other++;
		xray_flush(b, r, c);
		return;
	}
	c->anon++;
	mapping = (unsigned long)READ_ONCE(folio->mapping);
	ksm = (mapping & XRAY_MAPPING_FLAGS) == XRAY_MAPPING_KSM;
	if (!ksm && (mapping & XRAY_MAPPING_ANON))
		av = (struct anon_vma *)(mapping & ~(unsigned long)XRAY_MAPPING_FLAGS);

	/* Continue the run: same folio, next page, next address. */
	if (r->open && head_pfn == r->head_pfn && pfn == r->pfn_next &&
	    addr == r->addr + r->nr * PAGE_SIZE) {
		r->nr++;
		r->pfn_next++;
		return;
	}
	xray_flush(b, r, c);
	linear = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	r->open = true;
	r->addr = addr;
	r->nr = 1;
	r->pfn_next = pfn + 1;
	r->head_pfn = head_pfn;
	r->index = READ_ONCE(folio->index);
	r->subpage = pfn - head_pfn;
	r->linear = linear;
	r->has_anon_vma = av != NULL;
	r->anon_vma_id = av ? xray_id(av) : 0;
	r->order = folio_order(folio);
	r->ksm = ksm;
	r->large = folio_test_large(folio);
	r->ok_linear = r->index + r->subpage == linear;
	r->ok_anon_vma = av && av == vma_av;
}

static long xray_gup(struct mm_struct *mm, unsigned long addr, unsigned long nr,
		     struct page **pages)
{
	/* FOLL_FORCE: also see pages of PROT_NONE VMAs (reading, never writing). */
	unsigned int flags = FOLL_NOFAULT | FOLL_FORCE;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return get_user_pages_remote(mm, addr, nr, flags, pages, NULL);
#else
	return get_user_pages_remote(mm, addr, nr, flags, pages, NULL, NULL);
#endif
}

static void xray_walk(struct xbuf *b, struct mm_struct *mm, struct vm_area_struct *vma,
		      struct anon_vma *vma_av, unsigned long lo, unsigned long hi,
		      struct page **pages, unsigned long *nfolios)
{
	unsigned long start = max(vma->vm_start, lo & PAGE_MASK);
	unsigned long end = min(vma->vm_end, PAGE_ALIGN(hi));
	struct xray_counts c = { 0 };
	struct xray_run r = { 0 };
	unsigned long addr = start;

	while (addr < end && !b->err) {
		unsigned long nr = min_t(unsigned long, (end - addr) >> PAGE_SHIFT, XRAY_BATCH);
		long got = xray_gup(mm, addr, nr, pages);
		long i;

		if (got <= 0) {
			/* Not present (never faulted, swapped out, migrating): skip it. */
			xray_flush(b, &r, &c);
			addr += PAGE_SIZE;
			if (!(addr & (PMD_SIZE - 1))) {
				if (fatal_signal_pending(current))
					b->err = -EINTR;
				cond_resched();
			}
			continue;
		}
		for (i = 0; i < got; i++) {
			xray_page(b, vma, vma_av, pages[i], addr + i * PAGE_SIZE, &r, &c);
			put_page(pages[i]);
		}
		addr += got * PAGE_SIZE;
		if (fatal_signal_pending(current))
			b->err = -EINTR;
		cond_resched();
	}
	xray_flush(b, &r, &c);
	xb_printf(b, "walk start=0x%lx end=0x%lx present=%lu anon=%lu zero=%lu other=%lu folios=%lu\n",
		  start, end, c.present, c.anon, c.zero, c.other, c.folios);
	*nfolios += c.folios;
}

/* Why the folio walk does not apply to a VMA, or NULL when it does. */
static const char *xray_no_walk(struct vm_area_struct *vma, struct anon_vma *av)
{
	if (!av)
		return "no_anon_vma";
	if (is_vm_hugetlb_page(vma))
		return "hugetlb";
	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return "io_pfnmap";
	return NULL;
}

static void xray_vma(struct xbuf *b, struct mm_struct *mm, struct vm_area_struct *vma,
		     const struct xray_req *q, struct page **pages, unsigned long *nfolios)
{
	struct anon_vma *av, *root = NULL;
	struct anon_vma_chain *avc;
	unsigned long chain = 0;
	void *uffd = NULL;
	bool mpol = false;
	const char *skip;

	/*
	 * A fault sets vma->anon_vma and links the first chain entry under the
	 * mmap read lock plus mm->page_table_lock (__anon_vma_prepare()); every
	 * other change to the chain takes the mmap write lock, which we exclude.
	 */
	spin_lock(&mm->page_table_lock);
	av = READ_ONCE(vma->anon_vma);
	if (av)
		root = av->root;
	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		chain++;
	spin_unlock(&mm->page_table_lock);

#ifdef CONFIG_USERFAULTFD
	uffd = vma->vm_userfaultfd_ctx.ctx;
#endif
#ifdef CONFIG_NUMA
	mpol = vma_policy(vma) != NULL;
#endif
	xb_printf(b, "vma start=0x%lx end=0x%lx pgoff=0x%lx flags=0x%lx",
		  vma->vm_start, vma->vm_end, vma->vm_pgoff, (unsigned long)vma->vm_flags);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	/*
	 * 7.3 keeps the anonymous pages' offset apart from vm_pgoff (the file
	 * offset of a MAP_PRIVATE file mapping) and requires it to be
	 * contiguous too when merging such a mapping (can_vma_merge_after()).
	 */
	xb_printf(b, " anon_pgoff=0x%lx", vma_start_anon_pgoff(vma));
#endif
	xb_vmflags(b, vma->vm_flags);
	if (av)
		xb_printf(b, " anon_vma=%016llx anon_vma_root=%016llx",
			  xray_id(av), xray_id(root));
	else
		xb_printf(b, " anon_vma=- anon_vma_root=-");
	xb_printf(b, " chain=%lu uffd=%d", chain, uffd != NULL);
	if (uffd)
		xb_printf(b, " uffd_ctx=%016llx", xray_id(uffd));
	else
		xb_printf(b, " uffd_ctx=-");
	if (vma->vm_file)
		xb_printf(b, " file=%016llx", xray_id(vma->vm_file));
	else
		xb_printf(b, " file=-");
	xb_printf(b, " mpol=%d", mpol);
	skip = q->folios ? xray_no_walk(vma, av) : "not_requested";
	xb_printf(b, " folios=%s\n", skip ? skip : "walked");
	if (!skip)
		xray_walk(b, mm, vma, av, q->lo, q->hi, pages, nfolios);
}

static int xray_snapshot(const struct xray_req *q, struct xbuf *b)
{
	struct task_struct *task;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct page **pages = NULL;
	unsigned long nvmas = 0, nfolios = 0;
	int ret;

	if (!q->set)
		return -ENODATA;
	rcu_read_lock();
	task = pid_task(find_vpid(q->pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -EINVAL;	/* a kernel thread, or exiting */
	if (q->folios) {
		pages = kmalloc_array(XRAY_BATCH, sizeof(*pages), GFP_KERNEL);
		if (!pages) {
			mmput(mm);
			return -ENOMEM;
		}
	}
	ret = mmap_read_lock_killable(mm);
	if (ret) {
		kfree(pages);
		mmput(mm);
		return ret;
	}
	xb_printf(b, "xray format=%d kernel=%s pid=%d lo=0x%lx hi=0x%lx folios=%d page_size=%lu\n",
		  XRAY_FORMAT, init_utsname()->release, q->pid, q->lo, q->hi, q->folios,
		  PAGE_SIZE);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
	{
		VMA_ITERATOR(vmi, mm, q->lo);

		for_each_vma_range(vmi, vma, q->hi) {
			xray_vma(b, mm, vma, q, pages, &nfolios);
			nvmas++;
			if (b->err)
				break;
		}
	}
#else
	for (vma = find_vma(mm, q->lo); vma && vma->vm_start < q->hi; vma = vma->vm_next) {
		xray_vma(b, mm, vma, q, pages, &nfolios);
		nvmas++;
		if (b->err)
			break;
	}
#endif
	mmap_read_unlock(mm);
	mmput(mm);
	kfree(pages);
	xb_printf(b, "end vmas=%lu folios=%lu\n", nvmas, nfolios);
	return b->err;
}

/* ---- requests ------------------------------------------------------------ */

/* "PID LO HI [folios]": numbers in C syntax (0x for hex). */
static int xray_parse(const char __user *ubuf, size_t count, struct xray_req *q)
{
	char buf[128], *s, *tok;
	int n = 0, ret = 0;

	if (count == 0 || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	memset(q, 0, sizeof(*q));
	s = strim(buf);
	while ((tok = strsep(&s, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		switch (n++) {
		case 0:
			ret = kstrtoint(tok, 0, &q->pid);
			if (!ret && q->pid <= 0)
				ret = -EINVAL;
			break;
		case 1:
			ret = kstrtoul(tok, 0, &q->lo);
			break;
		case 2:
			ret = kstrtoul(tok, 0, &q->hi);
			break;
		case 3:
			if (strcmp(tok, "folios") == 0)
				q->folios = true;
			else
				ret = -EINVAL;
			break;
		default:
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	if (n < 3 || q->lo >= q->hi)
		return -EINVAL;
	rcu_read_lock();
	if (!pid_task(find_vpid(q->pid), PIDTYPE_PID))
		ret = -ESRCH;
	rcu_read_unlock();
	if (ret)
		return ret;
	q->set = true;
	return 0;
}

static ssize_t xray_control_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct xray_req q;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = xray_parse(ubuf, count, &q);
	if (ret)
		return ret;
	mutex_lock(&xray_global_lock);
	xray_global = q;
	mutex_unlock(&xray_global_lock);
	return count;
}

static ssize_t xray_control_read(struct file *file, char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	char buf[128];
	int n;

	mutex_lock(&xray_global_lock);
	if (xray_global.set)
		n = scnprintf(buf, sizeof(buf), "%d 0x%lx 0x%lx%s\n", xray_global.pid,
			      xray_global.lo, xray_global.hi,
			      xray_global.folios ? " folios" : "");
	else
		n = scnprintf(buf, sizeof(buf), "none\n");
	mutex_unlock(&xray_global_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static int xray_control_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

static const struct file_operations xray_control_fops = {
	.owner = THIS_MODULE,
	.open = xray_control_open,
	.read = xray_control_read,
	.write = xray_control_write,
	.llseek = default_llseek,
};

/* ---- data: one snapshot per open (or per request written to it) -------- */

struct xray_open {
	struct mutex lock;
	struct xray_req req;
	struct xbuf out;
	bool done;
	int err;
};

static int xray_data_open(struct inode *inode, struct file *file)
{
	struct xray_open *o;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	mutex_init(&o->lock);
	mutex_lock(&xray_global_lock);
	o->req = xray_global;
	mutex_unlock(&xray_global_lock);
	file->private_data = o;
	return 0;
}

static int xray_data_release(struct inode *inode, struct file *file)
{
	struct xray_open *o = file->private_data;

	kvfree(o->out.p);
	kfree(o);
	return 0;
}

static ssize_t xray_data_read(struct file *file, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct xray_open *o = file->private_data;
	ssize_t ret;

	mutex_lock(&o->lock);
	if (!o->done) {
		o->err = xray_snapshot(&o->req, &o->out);
		o->done = true;
	}
	if (o->err)
		ret = o->err;
	else
		ret = simple_read_from_buffer(ubuf, count, ppos, o->out.p, o->out.len);
	mutex_unlock(&o->lock);
	return ret;
}

static ssize_t xray_data_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct xray_open *o = file->private_data;
	struct xray_req q;
	int ret;

	ret = xray_parse(ubuf, count, &q);
	if (ret)
		return ret;
	mutex_lock(&o->lock);
	o->req = q;
	kvfree(o->out.p);
	memset(&o->out, 0, sizeof(o->out));
	o->done = false;
	o->err = 0;
	mutex_unlock(&o->lock);
	*ppos = 0;	/* the next read starts at the new snapshot's beginning */
	return count;
}

static const struct file_operations xray_data_fops = {
	.owner = THIS_MODULE,
	.open = xray_data_open,
	.release = xray_data_release,
	.read = xray_data_read,
	.write = xray_data_write,
	.llseek = default_llseek,
};

static int __init xray_init(void)
{
	get_random_bytes(&xray_key, sizeof(xray_key));
	xray_dir = debugfs_create_dir("anonremap-xray", NULL);
	if (IS_ERR_OR_NULL(xray_dir))
		return xray_dir ? PTR_ERR(xray_dir) : -ENODEV;
	debugfs_create_file("control", 0600, xray_dir, NULL, &xray_control_fops);
	debugfs_create_file("data", 0600, xray_dir, NULL, &xray_data_fops);
	pr_info("format %d on /sys/kernel/debug/anonremap-xray/\n", XRAY_FORMAT);
	return 0;
}

static void __exit xray_exit(void)
{
	debugfs_remove(xray_dir);
}

module_init(xray_init);
module_exit(xray_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("anonremap x-ray: read-only view of VMA pgoff, anon_vma and folio indices");
MODULE_AUTHOR("anonremap");
