// SPDX-License-Identifier: GPL-2.0
/*
 * ashmem: Android's anonymous shared memory, with page ranges userspace can
 * unpin so that they are purged under memory pressure.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/compat.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/personality.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/uaccess.h>
#include <uapi/linux/ashmem.h>

#define CREATE_TRACE_POINTS
#include <trace/events/ashmem.h>

#define ASHMEM_NAME_PREFIX	"dev/ashmem/"
#define ASHMEM_NAME_PREFIX_LEN	(sizeof(ASHMEM_NAME_PREFIX) - 1)
#define ASHMEM_FULL_NAME_LEN	(ASHMEM_NAME_PREFIX_LEN + ASHMEM_NAME_LEN)
#define ASHMEM_PROT_MASK	(PROT_READ | PROT_WRITE | PROT_EXEC)

/**
 * struct ashmem_area - one open() of /dev/ashmem
 * @lock: protects the fields below, except where noted
 * @ranges: unpinned ranges, disjoint, sorted by first page
 * @file: the shmem file backing the area, set once at the first mmap and
 *	read without @lock after that (smp_load_acquire())
 * @size: size in bytes; fixed once @file is set
 * @prot_mask: PROT_* bits mappings may use
 * @unpinned_pages: pages unpinned and still resident, on the LRU
 * @purged_pages: pages unpinned and purged
 * @spare: a free range, kept for the next unpin or split
 * @memcg: the memory cgroup whose reclaim purges the area's ranges, taken
 *	with @file (see ashmem_memcg())
 * @listed: a range of the area has been on the LRU, so reclaim may have
 *	reached the area through it
 * @name: "dev/ashmem/" followed by the name userspace gave
 * @rcu: reclaim may still be inside mutex_unlock(@lock) when a @listed
 *	area is released, so such an area is freed after a grace period
 */
struct ashmem_area {
	struct mutex lock;	/* see the Locking paragraph */
	struct rb_root ranges;
	struct file *file;
	size_t size;
	unsigned long prot_mask;
	unsigned long unpinned_pages;
	unsigned long purged_pages;
	struct ashmem_range *spare;
	struct mem_cgroup *memcg;
	bool listed;
	char name[ASHMEM_FULL_NAME_LEN];
	struct rcu_head rcu;
};

/**
 * struct ashmem_range - pages [@first, @last] of an area, unpinned
 * @node: in @asma->ranges; @asma->lock
 * @lru: in ashmem_lru while resident; the list_lru lock
 * @asma: the area, which outlives the range
 * @first: first page; @asma->lock
 * @last: last page, inclusive; @asma->lock
 * @purged: the pages were purged since they were unpinned; @asma->lock
 */
struct ashmem_range {
	struct rb_node node;
	struct list_head lru;
	struct ashmem_area *asma;
	pgoff_t first;
	pgoff_t last;
	bool purged;
};

/*
 * Locking
 *
 * Lock order: mmap_lock -> ashmem_area.lock -> i_rwsem of the backing file
 * -> the list_lru lock.  There is no global mutex: ioctls, mmap and read on
 * different areas never contend.  The global state is ashmem_lru, the
 * resident unpinned ranges from least to most recently unpinned, one list
 * per memory cgroup.
 *
 * An area's lock is never held while touching user memory, since a fault
 * takes mmap_lock and ->mmap runs under mmap_lock.
 *
 * Reclaim: ioctls allocate with an area's lock held, so the shrinker only
 * ever trylocks an area and moves on when it is busy.  It purges a range
 * with the area's lock held, so a PIN of that range waits for the hole to be
 * punched and can never pin pages that are still about to be zeroed.
 */
static struct list_lru ashmem_lru;
static struct shrinker *ashmem_shrinker;
static struct kmem_cache *ashmem_range_cache __ro_after_init;

/* shmem's file_operations, which the backing files were created with. */
static const struct file_operations *ashmem_shmem_fops __ro_after_init;

/*
 * Backing inodes are only punched by the shrinker, never written: a lockdep
 * class of their own keeps them apart from tmpfs inodes, which allocate
 * memory under i_rwsem.
 */
static struct lock_class_key ashmem_backing_key;

static unsigned long ashmem_range_pages(const struct ashmem_range *range)
{
	return range->last - range->first + 1;
}

static struct file *ashmem_backing(struct ashmem_area *asma)
{
	/* Pairs with ashmem_create_backing(): size and name are final. */
	return smp_load_acquire(&asma->file);
}

static pgoff_t ashmem_area_pages(struct ashmem_area *asma)
{
	return PAGE_ALIGN(asma->size) >> PAGE_SHIFT;
}

/* Add @pages (may be negative) to the counters the range belongs to. */
static void ashmem_range_count(struct ashmem_range *range, long pages)
{
	struct ashmem_area *asma = range->asma;

	if (range->purged)
		asma->purged_pages += pages;
	else
		asma->unpinned_pages += pages;
}

/*
 * The cgroup whose LRU list holds the area's resident ranges: the one the
 * area was first mapped from, or once that is removed its nearest online
 * ancestor, to which list_lru has moved the ranges.
 */
static struct mem_cgroup *ashmem_memcg(struct ashmem_area *asma)
{
	struct mem_cgroup *memcg = asma->memcg;

	while (memcg && !mem_cgroup_online(memcg))
		memcg = parent_mem_cgroup(memcg);
	return memcg;
}

static bool ashmem_range_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct ashmem_range, node)->first <
	       rb_entry(b, struct ashmem_range, node)->first;
}

static int ashmem_range_cmp_last(const void *key, const struct rb_node *node)
{
	const pgoff_t *page = key;

	return *page > rb_entry(node, struct ashmem_range, node)->last;
}

/* The first range that ends at or after @page. */
static struct ashmem_range *ashmem_range_find(struct ashmem_area *asma,
					      pgoff_t page)
{
	struct rb_node *node;

	node = rb_find_first(&page, &asma->ranges, ashmem_range_cmp_last);
	return node ? rb_entry(node, struct ashmem_range, node) : NULL;
}

static struct ashmem_range *ashmem_range_next(struct ashmem_range *range)
{
	struct rb_node *node = rb_next(&range->node);

	return node ? rb_entry(node, struct ashmem_range, node) : NULL;
}

static struct ashmem_range *ashmem_range_alloc(struct ashmem_area *asma)
{
	struct ashmem_range *range = asma->spare;

	lockdep_assert_held(&asma->lock);
	if (range) {
		asma->spare = NULL;
		return range;
	}

	range = kmem_cache_zalloc(ashmem_range_cache, GFP_KERNEL_ACCOUNT);
	if (range) {
		INIT_LIST_HEAD(&range->lru);
		range->asma = asma;
	}
	return range;
}

/* Keep one free range per area: pin and unpin cycles then do not allocate. */
static void ashmem_range_free(struct ashmem_range *range)
{
	struct ashmem_area *asma = range->asma;

	lockdep_assert_held(&asma->lock);
	if (asma->spare) {
		kmem_cache_free(ashmem_range_cache, range);
		return;
	}
	INIT_LIST_HEAD(&range->lru);
	asma->spare = range;
}

static void ashmem_range_insert(struct ashmem_range *range, pgoff_t first,
				pgoff_t last, bool purged)
{
	struct ashmem_area *asma = range->asma;

	lockdep_assert_held(&asma->lock);
	range->first = first;
	range->last = last;
	range->purged = purged;
	rb_add(&range->node, &asma->ranges, ashmem_range_less);
	ashmem_range_count(range, ashmem_range_pages(range));
	if (!purged) {
		list_lru_add(&ashmem_lru, &range->lru, 0, ashmem_memcg(asma));
		asma->listed = true;
	}
}

static void ashmem_range_delete(struct ashmem_range *range)
{
	lockdep_assert_held(&range->asma->lock);
	if (!range->purged)
		list_lru_del(&ashmem_lru, &range->lru, 0,
			     ashmem_memcg(range->asma));
	ashmem_range_count(range, -(long)ashmem_range_pages(range));
	rb_erase(&range->node, &range->asma->ranges);
	ashmem_range_free(range);
}

/* Shrink @range to [@first, @last]; its place in the tree stays valid. */
static void ashmem_range_trim(struct ashmem_range *range, pgoff_t first,
			      pgoff_t last)
{
	lockdep_assert_held(&range->asma->lock);
	ashmem_range_count(range, -(long)ashmem_range_pages(range));
	range->first = first;
	range->last = last;
	ashmem_range_count(range, ashmem_range_pages(range));
}

/* Pin [@first, @last]; returns whether any of it was purged, or -ENOMEM. */
static int ashmem_pin(struct ashmem_area *asma, pgoff_t first, pgoff_t last)
{
	struct ashmem_range *range, *next, *tail;
	int ret = ASHMEM_NOT_PURGED;

	lockdep_assert_held(&asma->lock);
	for (range = ashmem_range_find(asma, first);
	     range && range->first <= last; range = next) {
		/* Ranges are disjoint: none follows one that reaches @last. */
		next = range->last < last ? ashmem_range_next(range) : NULL;
		if (range->purged)
			ret = ASHMEM_WAS_PURGED;

		if (range->first < first && range->last > last) {
			/* A hole in the middle: this is the only range. */
			tail = ashmem_range_alloc(asma);
			if (!tail)
				return -ENOMEM;
			ashmem_range_insert(tail, last + 1, range->last,
					    range->purged);
			ashmem_range_trim(range, range->first, first - 1);
		} else if (range->first < first) {
			ashmem_range_trim(range, range->first, first - 1);
		} else if (range->last > last) {
			ashmem_range_trim(range, last + 1, range->last);
		} else {
			ashmem_range_delete(range);
		}
	}
	return ret;
}

/* Take a piece from @pieces and make it the resident range [@first, @last]. */
static void ashmem_unpin_piece(struct list_head *pieces, pgoff_t first,
			       pgoff_t last)
{
	struct ashmem_range *piece;

	piece = list_first_entry(pieces, struct ashmem_range, lru);
	list_del_init(&piece->lru);
	ashmem_range_insert(piece, first, last, false);
}

/*
 * Unpin [@first, @last].  Purged pages inside stay purged, so the range
 * becomes resident pieces between the purged ranges it covers; resident
 * ranges it overlaps or touches merge into those pieces.  Everything that
 * can fail is allocated first, so an error leaves the area as it was.
 */
static int ashmem_unpin(struct ashmem_area *asma, pgoff_t first, pgoff_t last)
{
	struct ashmem_range *start, *range, *next;
	unsigned int needed = 0;
	LIST_HEAD(pieces);
	pgoff_t page;

	lockdep_assert_held(&asma->lock);
	start = ashmem_range_find(asma, first ? first - 1 : 0);
	if (!start || start->first > last + 1) {
		/* Nothing to merge with, nothing purged inside: one range. */
		range = ashmem_range_alloc(asma);
		if (!range)
			return -ENOMEM;
		ashmem_range_insert(range, first, last, false);
		return 0;
	}
	if (!start->purged)
		first = min(first, start->first);

	/* Widen over resident ranges, count the gaps between purged ones. */
	page = first;
	for (range = start; range && range->first <= last + 1;
	     range = ashmem_range_next(range)) {
		if (!range->purged) {
			last = max(last, range->last);
		} else if (range->first <= last) {
			if (range->first > page)
				needed++;
			page = max(page, range->last + 1);
		}
	}
	if (page <= last)
		needed++;

	while (needed--) {
		range = ashmem_range_alloc(asma);
		if (!range)
			goto err_free_pieces;
		list_add(&range->lru, &pieces);
	}

	page = first;
	for (range = start; range && range->first <= last; range = next) {
		next = ashmem_range_next(range);
		if (!range->purged) {
			ashmem_range_delete(range);
			continue;
		}
		if (range->first > page)
			ashmem_unpin_piece(&pieces, page, range->first - 1);
		page = max(page, range->last + 1);
	}
	if (page <= last)
		ashmem_unpin_piece(&pieces, page, last);
	return 0;

err_free_pieces:
	list_for_each_entry_safe(range, next, &pieces, lru)
		ashmem_range_free(range);
	return -ENOMEM;
}

static int ashmem_get_pin_status(struct ashmem_area *asma, pgoff_t first,
				 pgoff_t last)
{
	struct ashmem_range *range = ashmem_range_find(asma, first);

	lockdep_assert_held(&asma->lock);
	if (range && range->first <= last)
		return ASHMEM_IS_UNPINNED;
	return ASHMEM_IS_PINNED;
}

/*
 * Punch out the pages of a range that has just been marked purged, and
 * count what that freed as progress of the reclaim we may be running in.
 */
static unsigned long ashmem_range_punch(struct ashmem_range *range)
{
	struct file *backing = range->asma->file;
	unsigned long resident = backing->f_mapping->nrpages;
	unsigned int nofs;

	lockdep_assert_held(&range->asma->lock);
	/* No fs reclaim under the backing inode's lock: see its lock class. */
	nofs = memalloc_nofs_save();
	ashmem_shmem_fops->fallocate(backing,
				     FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     (loff_t)range->first << PAGE_SHIFT,
				     (loff_t)ashmem_range_pages(range) << PAGE_SHIFT);
	memalloc_nofs_restore(nofs);

	resident -= min(resident, backing->f_mapping->nrpages);
	mm_account_reclaimed_pages(resident);
	return resident;
}

/**
 * struct ashmem_purge - what a walk of ashmem_lru is to do, and did
 * @target: stop once this many pages are purged
 * @freed: pages purged
 * @busy: ranges skipped because their area's lock was taken
 */
struct ashmem_purge {
	unsigned long target;
	unsigned long freed;
	unsigned long busy;
};

/*
 * Context: list_lru walk, from the shrinker or PURGE_ALL_CACHES; must not
 * sleep on locks that allocation may hold.  Unlinks the range with the lru
 * lock held; punches its hole with only the area's lock held.
 */
static enum lru_status ashmem_purge_isolate(struct list_head *item,
					    struct list_lru_one *lru,
					    spinlock_t *lru_lock, void *arg)
	__must_hold(lru_lock)
{
	struct ashmem_range *range = container_of(item, struct ashmem_range,
						  lru);
	struct ashmem_area *asma = range->asma;
	struct ashmem_purge *purge = arg;
	unsigned long resident;

	if (purge->freed >= purge->target)
		return LRU_STOP;
	if (!mutex_trylock(&asma->lock)) {
		purge->busy++;
		return LRU_ROTATE;
	}

	list_lru_isolate(lru, item);
	spin_unlock(lru_lock);

	ashmem_range_count(range, -(long)ashmem_range_pages(range));
	range->purged = true;
	ashmem_range_count(range, ashmem_range_pages(range));
	purge->freed += ashmem_range_pages(range);
	resident = ashmem_range_punch(range);
	trace_ashmem_purge(file_inode(asma->file)->i_ino, range->first,
			   range->last, resident);

	/* Once unlocked, the area may be released: see ashmem_area.rcu. */
	rcu_read_lock();
	mutex_unlock(&asma->lock);
	rcu_read_unlock();

	spin_lock(lru_lock);
	return LRU_REMOVED_RETRY;
}

/* Purge every list: all cgroups' ranges. */
static unsigned long ashmem_purge(struct ashmem_purge *purge)
{
	list_lru_walk(&ashmem_lru, ashmem_purge_isolate, purge,
		      list_lru_count(&ashmem_lru));
	return purge->freed;
}

static enum lru_status ashmem_count_isolate(struct list_head *item,
					    struct list_lru_one *lru,
					    spinlock_t *lru_lock, void *arg)
{
	struct ashmem_range *range = container_of(item, struct ashmem_range,
						  lru);
	/* Without the area's lock: a range being trimmed may read torn. */
	pgoff_t first = data_race(range->first), last = data_race(range->last);
	unsigned long *pages = arg;

	if (last >= first)
		*pages += last - first + 1;
	return LRU_SKIP;
}

/* For the trace: a cgroup as userspace sees it, by its inode number. */
static unsigned long ashmem_memcg_ino(struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	if (memcg)
		return cgroup_ino(memcg->css.cgroup);
#endif
	return 0;
}

/* Ranges summed by a count; beyond them, the pages are extrapolated. */
#define ASHMEM_COUNT_RANGES	1024

/*
 * The pages on the list of sc->memcg.  list_lru counts ranges, which vary in
 * size, so the count sums them; on a very long list it sums the oldest
 * ASHMEM_COUNT_RANGES and extrapolates.
 */
static unsigned long ashmem_shrink_count(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	unsigned long ranges = list_lru_shrink_count(&ashmem_lru, sc);
	unsigned long walk = min(ranges, ASHMEM_COUNT_RANGES);
	unsigned long summed, pages = 0;

	if (!ranges)
		return SHRINK_EMPTY;
	list_lru_walk_one(&ashmem_lru, sc->nid, sc->memcg, ashmem_count_isolate,
			  &pages, &walk);
	summed = min(ranges, ASHMEM_COUNT_RANGES) - walk;
	if (summed < ranges && summed)
		pages = mult_frac(pages, ranges, summed);
	return pages ?: SHRINK_EMPTY;
}

/*
 * Context: shrinker; must not sleep on locks that allocation may hold.
 * Purges whole ranges of sc->memcg, least recently unpinned first, until
 * sc->nr_to_scan pages are gone.
 */
static unsigned long ashmem_shrink_scan(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	struct ashmem_purge purge = { .target = sc->nr_to_scan };
	unsigned long walk = list_lru_shrink_count(&ashmem_lru, sc);

	/* Punching a hole takes filesystem locks. */
	if (!(sc->gfp_mask & __GFP_FS))
		return SHRINK_STOP;

	list_lru_walk_one(&ashmem_lru, sc->nid, sc->memcg, ashmem_purge_isolate,
			  &purge, &walk);
	sc->nr_scanned = max(sc->nr_scanned, purge.freed);
	trace_ashmem_shrink(ashmem_memcg_ino(sc->memcg), sc->nr_to_scan,
			    purge.freed);
	return purge.freed;
}

static struct ashmem_area *ashmem_area_create(void)
{
	struct ashmem_area *asma;

	asma = kzalloc(sizeof(*asma), GFP_KERNEL_ACCOUNT);
	if (!asma)
		return NULL;

	mutex_init(&asma->lock);
	asma->ranges = RB_ROOT;
	asma->prot_mask = ASHMEM_PROT_MASK;
	memcpy(asma->name, ASHMEM_NAME_PREFIX, ASHMEM_NAME_PREFIX_LEN);
	return asma;
}

static void ashmem_area_destroy(struct ashmem_area *asma)
{
	struct ashmem_range *range, *next;

	mutex_lock(&asma->lock);
	rbtree_postorder_for_each_entry_safe(range, next, &asma->ranges, node) {
		if (!range->purged)
			list_lru_del(&ashmem_lru, &range->lru, 0,
				     ashmem_memcg(asma));
		ashmem_range_count(range, -(long)ashmem_range_pages(range));
		kmem_cache_free(ashmem_range_cache, range);
	}
	asma->ranges = RB_ROOT;
	if (asma->spare)
		kmem_cache_free(ashmem_range_cache, asma->spare);
	mutex_unlock(&asma->lock);

	if (asma->file)
		fput(asma->file);
	mem_cgroup_put(asma->memcg);
	/* Most areas are never unpinned: reclaim never saw them. */
	if (asma->listed)
		kfree_rcu(asma, rcu);
	else
		kfree(asma);
}

static int ashmem_open(struct inode *inode, struct file *file)
{
	file->private_data = ashmem_area_create();
	return file->private_data ? 0 : -ENOMEM;
}

static int ashmem_release(struct inode *inode, struct file *file)
{
	ashmem_area_destroy(file->private_data);
	return 0;
}

static ssize_t ashmem_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct ashmem_area *asma = iocb->ki_filp->private_data;
	struct file *backing = ashmem_backing(asma);

	if (!backing)
		return READ_ONCE(asma->size) ? -EBADF : 0;
	return vfs_iter_read(backing, iter, &iocb->ki_pos, 0);
}

static loff_t ashmem_llseek(struct file *file, loff_t offset, int whence)
{
	struct ashmem_area *asma = file->private_data;
	struct file *backing = ashmem_backing(asma);
	loff_t pos;

	if (!backing)
		return READ_ONCE(asma->size) ? -EBADF : -EINVAL;

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_file_llseek_size(file, offset, whence,
						MAX_LFS_FILESIZE,
						i_size_read(file_inode(backing)));

	pos = vfs_llseek(backing, offset, whence);
	if (pos < 0)
		return pos;
	return vfs_setpos(file, pos, MAX_LFS_FILESIZE);
}

static int ashmem_backing_mmap(struct file *file, struct vm_area_struct *vma)
{
	return -EPERM;
}

static ssize_t ashmem_backing_read_iter(struct kiocb *iocb,
					struct iov_iter *iter)
{
	return ashmem_shmem_fops->read_iter(iocb, iter);
}

static loff_t ashmem_backing_llseek(struct file *file, loff_t offset,
				    int whence)
{
	return ashmem_shmem_fops->llseek(file, offset, whence);
}

/*
 * What the backing files offer besides the area: reading and seeking only.
 * Neither remap_file_pages() on a mapping nor an open of /proc/PID/map_files/
 * can map an area without its protection mask; the inode is immutable, so
 * such an open cannot write or truncate it either.
 */
static const struct file_operations ashmem_backing_fops = {
	.owner		= THIS_MODULE,
	.open		= generic_file_open,
	.read_iter	= ashmem_backing_read_iter,
	.llseek		= ashmem_backing_llseek,
	.mmap		= ashmem_backing_mmap,
};

/*
 * Create the backing file; the area's size and name are final from now.
 * The area joins the memory cgroup of the task mapping it first, which is
 * the one its pages are charged to as that task fills them.
 */
static int ashmem_create_backing(struct ashmem_area *asma,
				 unsigned long vm_flags)
{
	const char *name = ASHMEM_NAME_DEF;
	struct mem_cgroup *memcg;
	struct file *backing;
	struct inode *inode;
	int ret;

	lockdep_assert_held(&asma->lock);
	if (asma->name[ASHMEM_NAME_PREFIX_LEN])
		name = asma->name;

	memcg = get_mem_cgroup_from_mm(current->mm);
	if (IS_ENABLED(CONFIG_MEMCG) && memcg) {
		ret = memcg_list_lru_alloc(memcg, &ashmem_lru, GFP_KERNEL);
		if (ret)
			goto err_put_memcg;
	}

	/*
	 * Like shmem_zero_setup(): created under mmap_lock and reachable only
	 * through the area, so it stays out of the LSM hooks.
	 */
	backing = shmem_kernel_file_setup(name, asma->size, vm_flags);
	if (IS_ERR(backing)) {
		ret = PTR_ERR(backing);
		goto err_put_memcg;
	}

	/*
	 * Opened through /proc/PID/map_files/, the file must not be written,
	 * truncated or mapped: the area's size and mask hold there too.
	 */
	inode = file_inode(backing);
	lockdep_set_class(&inode->i_rwsem, &ashmem_backing_key);
	inode_set_flags(inode, S_IMMUTABLE, S_IMMUTABLE);
	inode->i_fop = &ashmem_backing_fops;
	replace_fops(backing, fops_get(&ashmem_backing_fops));

	asma->memcg = memcg;
	/* Lockless readers of asma->file may rely on size and name. */
	smp_store_release(&asma->file, backing);
	return 0;

err_put_memcg:
	mem_cgroup_put(memcg);
	return ret;
}

static unsigned long ashmem_vm_may_flags(unsigned long prot)
{
	return _calc_vm_trans(prot, PROT_READ, VM_MAYREAD) |
	       _calc_vm_trans(prot, PROT_WRITE, VM_MAYWRITE) |
	       _calc_vm_trans(prot, PROT_EXEC, VM_MAYEXEC);
}

static int ashmem_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ashmem_area *asma = file->private_data;
	unsigned long denied;
	pgoff_t pages;
	int ret = 0;

	mutex_lock(&asma->lock);
	pages = ashmem_area_pages(asma);
	if (!pages || vma_pages(vma) > pages ||
	    vma->vm_pgoff > pages - vma_pages(vma)) {
		ret = -EINVAL;
		goto out_unlock;
	}

	denied = ASHMEM_PROT_MASK & ~asma->prot_mask;
	if (vma->vm_flags & calc_vm_prot_bits(denied, 0)) {
		ret = -EPERM;
		goto out_unlock;
	}
	vm_flags_clear(vma, ashmem_vm_may_flags(denied));

	if (!asma->file) {
		ret = ashmem_create_backing(asma, vma->vm_flags);
		if (ret)
			goto out_unlock;
	}

	/*
	 * VM_MAYSHARE, not VM_SHARED: a MAP_SHARED mapping of a read-only
	 * descriptor loses VM_SHARED but must still see the shared pages.
	 */
	if (vma->vm_flags & VM_MAYSHARE)
		shmem_set_file(vma, get_file(asma->file));
	else
		vma_set_anonymous(vma);

out_unlock:
	mutex_unlock(&asma->lock);
	return ret;
}

static long ashmem_set_name(struct ashmem_area *asma, const char __user *uname)
{
	char name[ASHMEM_NAME_LEN];
	long len;

	len = strncpy_from_user(name, uname, sizeof(name));
	if (len < 0)
		return len;
	/* Like Android, cut a name that has no NUL in the buffer. */
	name[min_t(long, len, sizeof(name) - 1)] = '\0';

	guard(mutex)(&asma->lock);
	if (asma->file)
		return -EINVAL;
	strscpy(asma->name + ASHMEM_NAME_PREFIX_LEN, name, ASHMEM_NAME_LEN);
	return 0;
}

static long ashmem_get_name(struct ashmem_area *asma, char __user *uname)
{
	char name[ASHMEM_NAME_LEN];
	size_t len;

	mutex_lock(&asma->lock);
	if (asma->name[ASHMEM_NAME_PREFIX_LEN])
		strscpy(name, asma->name + ASHMEM_NAME_PREFIX_LEN, sizeof(name));
	else
		strscpy(name, ASHMEM_NAME_DEF, sizeof(name));
	mutex_unlock(&asma->lock);

	/* Only the name and its NUL: the rest of the buffer is not ours. */
	len = strlen(name) + 1;
	if (copy_to_user(uname, name, len))
		return -EFAULT;
	return 0;
}

static long ashmem_set_size(struct ashmem_area *asma, unsigned long size)
{
	if (size > MAX_LFS_FILESIZE || PAGE_ALIGN(size) < size)
		return -EINVAL;

	guard(mutex)(&asma->lock);
	if (asma->file)
		return -EINVAL;
	WRITE_ONCE(asma->size, size);
	return 0;
}

static long ashmem_set_prot_mask(struct ashmem_area *asma, unsigned long prot)
{
	guard(mutex)(&asma->lock);
	/* Bits can only be taken away; unknown bits are never in the mask. */
	if ((asma->prot_mask & prot) != prot)
		return -EINVAL;

	/* Where the mask still allows it, PROT_READ means PROT_EXEC too. */
	if ((prot & PROT_READ) && (current->personality & READ_IMPLIES_EXEC))
		prot |= asma->prot_mask & PROT_EXEC;
	WRITE_ONCE(asma->prot_mask, prot);
	return 0;
}

/* The pages [@first, @last] that @pin names, or -EINVAL. */
static int ashmem_pin_pages(struct ashmem_area *asma,
			    const struct ashmem_pin *pin,
			    pgoff_t *first, pgoff_t *last)
{
	u32 end;

	lockdep_assert_held(&asma->lock);
	if ((pin->offset | pin->len) & ~PAGE_MASK)
		return -EINVAL;
	if (check_add_overflow(pin->offset, pin->len, &end))
		return -EINVAL;
	if (!asma->file)
		return -EINVAL;

	/* A length of 0 means "to the end", even past 4 GiB. */
	*first = pin->offset >> PAGE_SHIFT;
	if (pin->len)
		*last = *first + (pin->len >> PAGE_SHIFT) - 1;
	else
		*last = ashmem_area_pages(asma) - 1;
	if (*first > *last || *last >= ashmem_area_pages(asma))
		return -EINVAL;
	return 0;
}

/* Eight bytes: cheaper than copy_from_user(), which is not inlined. */
static int ashmem_get_pin(struct ashmem_pin *pin,
			  const struct ashmem_pin __user *upin)
{
	if (!user_read_access_begin(upin, sizeof(*upin)))
		return -EFAULT;
	unsafe_get_user(pin->offset, &upin->offset, err_fault);
	unsafe_get_user(pin->len, &upin->len, err_fault);
	user_read_access_end();
	return 0;

err_fault:
	user_read_access_end();
	return -EFAULT;
}

static long ashmem_pin_ioctl(struct ashmem_area *asma, unsigned int cmd,
			     const struct ashmem_pin __user *upin)
{
	struct ashmem_pin pin;
	pgoff_t first, last;
	int ret;

	if (ashmem_get_pin(&pin, upin))
		return -EFAULT;

	guard(mutex)(&asma->lock);
	ret = ashmem_pin_pages(asma, &pin, &first, &last);
	if (ret)
		return ret;

	switch (cmd) {
	case ASHMEM_PIN:
		ret = ashmem_pin(asma, first, last);
		trace_ashmem_pin(file_inode(asma->file)->i_ino, first, last, ret);
		return ret;
	case ASHMEM_UNPIN:
		ret = ashmem_unpin(asma, first, last);
		trace_ashmem_unpin(file_inode(asma->file)->i_ino, first, last,
				   ret);
		return ret;
	default:
		return ashmem_get_pin_status(asma, first, last);
	}
}

/*
 * Returns the number of unpinned pages purged: all there were, as on
 * Android, unless an area stayed busy.  A range whose area is busy is
 * retried a few times rather than waited for.
 */
static long ashmem_purge_all_caches(void)
{
	struct ashmem_purge purge = { .target = ULONG_MAX };
	int tries = 100;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	do {
		purge.busy = 0;
		ashmem_purge(&purge);
		cond_resched();
	} while (purge.busy && --tries && !fatal_signal_pending(current));
	return purge.freed;
}

static long ashmem_get_file_id(struct ashmem_area *asma,
			       unsigned long __user *uid)
{
	struct file *backing = ashmem_backing(asma);

	if (!backing)
		return -EINVAL;
	return put_user(file_inode(backing)->i_ino, uid);
}

static long ashmem_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct ashmem_area *asma = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case ASHMEM_SET_NAME:
		return ashmem_set_name(asma, argp);
	case ASHMEM_GET_NAME:
		return ashmem_get_name(asma, argp);
	case ASHMEM_SET_SIZE:
		return ashmem_set_size(asma, arg);
	case ASHMEM_GET_SIZE:
		return READ_ONCE(asma->size);
	case ASHMEM_SET_PROT_MASK:
		return ashmem_set_prot_mask(asma, arg);
	case ASHMEM_GET_PROT_MASK:
		return READ_ONCE(asma->prot_mask);
	case ASHMEM_PIN:
	case ASHMEM_UNPIN:
	case ASHMEM_GET_PIN_STATUS:
		return ashmem_pin_ioctl(asma, cmd, argp);
	case ASHMEM_PURGE_ALL_CACHES:
		return ashmem_purge_all_caches();
	case ASHMEM_GET_FILE_ID:
		return ashmem_get_file_id(asma, argp);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/* size_t and unsigned long are 32 bits wide here: other numbers. */
#define COMPAT_ASHMEM_SET_SIZE		_IOW(__ASHMEMIOC, 3, compat_size_t)
#define COMPAT_ASHMEM_SET_PROT_MASK	_IOW(__ASHMEMIOC, 5, compat_ulong_t)
#define COMPAT_ASHMEM_GET_FILE_ID	_IOR(__ASHMEMIOC, 11, compat_ulong_t)

static long ashmem_compat_get_file_id(struct ashmem_area *asma,
				      compat_ulong_t __user *uid)
{
	struct file *backing = ashmem_backing(asma);
	unsigned long ino;

	if (!backing)
		return -EINVAL;
	ino = file_inode(backing)->i_ino;
	if (ino != (compat_ulong_t)ino)
		return -EOVERFLOW;
	return put_user(ino, uid);
}

static long ashmem_compat_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	switch (cmd) {
	case COMPAT_ASHMEM_SET_SIZE:
		return ashmem_ioctl(file, ASHMEM_SET_SIZE, arg);
	case COMPAT_ASHMEM_SET_PROT_MASK:
		return ashmem_ioctl(file, ASHMEM_SET_PROT_MASK, arg);
	case COMPAT_ASHMEM_GET_FILE_ID:
		return ashmem_compat_get_file_id(file->private_data,
						 compat_ptr(arg));
	}
	return ashmem_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#else
#define ashmem_compat_ioctl NULL
#endif

static void ashmem_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct ashmem_area *asma = file->private_data;

	guard(mutex)(&asma->lock);
	if (asma->file)
		seq_printf(m, "inode:\t%lu\n", file_inode(asma->file)->i_ino);
	if (asma->name[ASHMEM_NAME_PREFIX_LEN])
		seq_printf(m, "name:\t%s\n",
			   asma->name + ASHMEM_NAME_PREFIX_LEN);
	seq_printf(m, "size:\t%zu\n", asma->size);
	seq_printf(m, "pinned:\t%lu\n", ashmem_area_pages(asma) -
		   asma->unpinned_pages - asma->purged_pages);
	seq_printf(m, "unpinned:\t%lu\n", asma->unpinned_pages);
	seq_printf(m, "purged:\t%lu\n", asma->purged_pages);
}

static const struct file_operations ashmem_fops = {
	.owner		= THIS_MODULE,
	.open		= ashmem_open,
	.release	= ashmem_release,
	.read_iter	= ashmem_read_iter,
	.llseek		= ashmem_llseek,
	.mmap		= ashmem_mmap,
	.unlocked_ioctl	= ashmem_ioctl,
	.compat_ioctl	= ashmem_compat_ioctl,
	.show_fdinfo	= ashmem_show_fdinfo,
};

/* Every process may create areas, as with memfd_create(). */
static struct miscdevice ashmem_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ashmem",
	.fops	= &ashmem_fops,
	.mode	= 0666,
};

static int __init ashmem_init_shmem_fops(void)
{
	struct file *probe;

	probe = shmem_kernel_file_setup("ashmem", 0, VM_NORESERVE);
	if (IS_ERR(probe))
		return PTR_ERR(probe);
	ashmem_shmem_fops = probe->f_op;
	fput(probe);
	return 0;
}

static int __init ashmem_init(void)
{
	int ret;

	ashmem_range_cache = KMEM_CACHE(ashmem_range, 0);
	if (!ashmem_range_cache)
		return -ENOMEM;

	ret = ashmem_init_shmem_fops();
	if (ret)
		goto err_destroy_cache;

	ashmem_shrinker = shrinker_alloc(SHRINKER_MEMCG_AWARE, "ashmem");
	if (!ashmem_shrinker) {
		ret = -ENOMEM;
		goto err_destroy_cache;
	}

	ret = list_lru_init_memcg(&ashmem_lru, ashmem_shrinker);
	if (ret) {
		shrinker_free(ashmem_shrinker);
		goto err_destroy_cache;
	}

	ashmem_shrinker->count_objects = ashmem_shrink_count;
	ashmem_shrinker->scan_objects = ashmem_shrink_scan;
	/*
	 * Without swap, purging is the only way to reclaim these pages: ask
	 * for them as early as for any other cache.
	 */
	ashmem_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(ashmem_shrinker);

	ret = misc_register(&ashmem_misc);
	if (ret)
		goto err_free_shrinker;
	return 0;

err_free_shrinker:
	shrinker_free(ashmem_shrinker);
	list_lru_destroy(&ashmem_lru);
err_destroy_cache:
	kmem_cache_destroy(ashmem_range_cache);
	return ret;
}

static void __exit ashmem_exit(void)
{
	misc_deregister(&ashmem_misc);
	shrinker_free(ashmem_shrinker);
	list_lru_destroy(&ashmem_lru);
	kmem_cache_destroy(ashmem_range_cache);
}

module_init(ashmem_init);
module_exit(ashmem_exit);

#if IS_ENABLED(CONFIG_ASHMEM_KUNIT_TEST)
#include "ashmem_kunit.c"
#endif

MODULE_DESCRIPTION("Anonymous shared memory with purgeable ranges");
MODULE_LICENSE("GPL");
