// SPDX-License-Identifier: GPL-2.0
/*
 * ashmem: Android's anonymous shared memory, with page ranges userspace can
 * unpin so that they are purged under memory pressure.
 */

#include <linux/ashmem.h>
#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/compat.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/folio_batch.h>
#include <linux/fs.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/oom.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/personality.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#define CREATE_TRACE_POINTS
#include <trace/events/ashmem.h>

#define ASHMEM_NAME_PREFIX	"dev/ashmem/"
#define ASHMEM_NAME_PREFIX_LEN	(sizeof(ASHMEM_NAME_PREFIX) - 1)
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
 * @spares: free ranges, reserved for the next pin, unpin or split
 * @nr_spares: the ranges on @spares
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
	struct list_head spares;
	unsigned int nr_spares;
	bool listed;
	char name[ASHMEM_FULL_NAME_LEN];
	struct rcu_head rcu;
};

/**
 * struct ashmem_range - pages [@first, @last] of an area, unpinned
 * @node: in @asma->ranges; @asma->lock
 * @lru: in ashmem_lru while resident, or in @asma->spares while free; the
 *	list_lru lock, @asma->lock
 * @asma: the area, which outlives the range
 * @first: first page; @asma->lock
 * @last: last page, inclusive; @asma->lock
 * @memcg: while resident, the memory cgroup whose list @lru is on, with a
 *	reference held (see struct ashmem_key); @asma->lock
 * @nid: the node whose list @lru is on; @asma->lock
 * @purged: the pages were purged since they were unpinned; @asma->lock
 */
struct ashmem_range {
	struct rb_node node;
	struct list_head lru;
	struct ashmem_area *asma;
	pgoff_t first;
	pgoff_t last;
	struct mem_cgroup *memcg;
	int nid;
	bool purged;
};

/**
 * struct ashmem_key - where reclaim looks for pages being unpinned
 * @memcg: the memory cgroup the pages are charged to, else the unpinning
 *	task's; a reference is held
 * @nid: the node of the pages, else the unpinning CPU's
 *
 * The kernel charges a page to the cgroup of the task that faulted it in,
 * which need not be the area's creator (one process creates an area,
 * another fills it), and a cgroup's reclaim on a node calls the shrinker
 * with that cgroup and node: an unpin lists each run of resident pages of
 * one cgroup and node under that key, not under whoever created, mapped or
 * unpinned the area.
 */
struct ashmem_key {
	struct mem_cgroup *memcg;
	int nid;
};

/*
 * Locking
 *
 * Lock order: mmap_lock -> ashmem_area.lock -> i_rwsem of the backing file
 * -> the list_lru lock.  There is no global mutex: ioctls, mmap and read on
 * different areas never contend.  An area's lock is never held while
 * touching user memory, since a fault takes mmap_lock and ->mmap runs
 * under mmap_lock.
 *
 * Reclaim
 *
 * The resident unpinned ranges sit on ashmem_lru, least recently unpinned
 * first, one list per memory cgroup and node: the cgroup and node of the
 * range's first resident page when it was unpinned (struct ashmem_key).
 * There list_lru tells a cgroup's reclaim on that node to call the
 * shrinker, which counts the ranges of that cgroup and node and purges
 * the cgroup's ranges, its own node's first.  A range unpinned next to
 * another with a different key keeps apart from it.  An unpin gets the
 * keys of all its runs first and then changes the area under one hold of
 * its lock, so that it is atomic as every other ioctl.
 *
 * ioctls never allocate with an area's lock held: what a pin, an unpin
 * or a split needs is reserved first (ashmem_range_reserve()), so reclaim
 * that an ioctl's allocation enters finds the area free, and purges it
 * too.  Reclaim only ever trylocks an area, since a purge holds the lock
 * while it punches.  It purges at most ASHMEM_PURGE_BATCH pages, from the
 * front of a range, before it drops the lock again, and it punches them
 * with the lock held, so that a PIN waits for the hole and never pins
 * pages about to be zeroed.  The range stays on its list while its pages are punched,
 * and what is left of it keeps its place there: a concurrent count sees
 * the pages being purged, and the next batch is the oldest again.  A
 * reclaimer that finds an area locked leaves the range where it is and,
 * once the walk is over, waits for a batch to be purged (the lock holder
 * is a purge, or an ioctl that holds it for a short while) before it tries
 * again; if it can still purge nothing it returns SHRINK_STOP, so that the
 * work is deferred rather than dropped.
 *
 * With kmem accounting off (cgroup.memory=nokmem), list_lru keeps one list
 * per node for every cgroup.  Then listing a range flags its cgroup and
 * their ancestors for the shrinker on its node (ashmem_flag_memcgs()), and
 * a cgroup's reclaim counts and purges, on the node's list, only the
 * ranges whose pages are charged to it (ashmem_range_of()): slower, but
 * the same ranges as with a list per cgroup.
 *
 * What a purge frees counts as progress of the reclaim it runs in: the
 * pages on the node being reclaimed and, when a memory cgroup is being
 * reclaimed, only those charged to it.
 *
 * Reclaim may still fail an allocation while unpinned pages are resident:
 * without swap or page cache nothing else counts as reclaimable, and when
 * other tasks take the pages a purge freed before the allocating task gets
 * to them, the page allocator calls the OOM killer.  So ashmem is also an
 * OOM notifier: before the OOM killer picks a victim for the whole
 * machine, a worker purges the oldest unpinned pages, and the kill is
 * called off if that freed any.  The notifier runs under oom_lock in a
 * task that may hold any lock, a backing inode's or a folio's among them,
 * so it never purges itself: it waits for the worker at most
 * ASHMEM_OOM_WAIT, and the worker passes over areas whose inode is locked.
 */
static struct list_lru ashmem_lru;
static struct shrinker *ashmem_shrinker;

/* Always empty: adding to it flags a cgroup for the shrinker, see below. */
static struct list_lru ashmem_flags;
static DEFINE_SPINLOCK(ashmem_flags_lock);
static struct kmem_cache *ashmem_range_cache __ro_after_init;

/* Batches purged so far: what a reclaimer waiting for a busy area waits on. */
static atomic_t ashmem_purge_seq = ATOMIC_INIT(0);

/* Pages purged under one hold of an area's lock. */
#define ASHMEM_PURGE_BATCH	(SZ_512K / PAGE_SIZE)

/* Walks a reclaimer makes when areas are busy; PURGE_ALL_CACHES makes more. */
#define ASHMEM_PURGE_TRIES	8
#define ASHMEM_PURGE_ALL_TRIES	100

/* shmem's operations, which the backing files were created with. */
static const struct file_operations *ashmem_shmem_fops __ro_after_init;
static const struct inode_operations *ashmem_shmem_iops __ro_after_init;

/*
 * Backing inodes are punched by reclaim and by MADV_REMOVE, and never
 * written through a file: a lockdep class of their own keeps them apart
 * from tmpfs inodes, which allocate memory under i_rwsem.  Every punch
 * allocates without __GFP_FS (ashmem_backing_fallocate()), so the reclaim
 * it may enter never waits for the inode it holds locked.
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

/* Add @pages (may be negative) to the area's count of the range's kind. */
static void ashmem_range_account(struct ashmem_range *range, long pages)
{
	struct ashmem_area *asma = range->asma;

	if (range->purged)
		asma->purged_pages += pages;
	else
		asma->unpinned_pages += pages;
}

static struct mem_cgroup *ashmem_memcg_get(struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	if (memcg)
		css_get(&memcg->css);
#endif
	return memcg;
}

/*
 * @memcg, or once it is removed its nearest online ancestor, where list_lru
 * has moved its lists and whose reclaim reaches its pages; the caller's
 * reference moves along.
 */
static struct mem_cgroup *ashmem_memcg_online(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent;

	while (memcg && !mem_cgroup_online(memcg)) {
		parent = parent_mem_cgroup(memcg);
		if (!parent)
			break;
		ashmem_memcg_get(parent);
		mem_cgroup_put(memcg);
		memcg = parent;
	}
	return memcg;
}

/*
 * The key of the first resident page of [@first, @last] of the area, for
 * an unpin (see struct ashmem_key), and in @end the last page of the run
 * that shares it: the page before the next resident page with another
 * key, or @last.  The key's cgroup gets its list on ashmem_lru here,
 * before the area is locked.  Only a placement hint: a page may be on its
 * way out, or move later.
 */
static int ashmem_key_get(struct ashmem_area *asma, pgoff_t first,
			  pgoff_t last, struct ashmem_key *key, pgoff_t *end)
{
	XA_STATE(xas, &asma->file->f_mapping->i_pages, first);
	struct mem_cgroup *memcg;
	struct folio *folio;
	bool found = false;
	int ret;

	key->memcg = NULL;
	key->nid = numa_mem_id();
	*end = last;
	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		memcg = folio_memcg(folio);
		if (!found) {
			found = true;
			key->memcg = memcg;
			key->nid = folio_nid(folio);
		} else if (memcg != key->memcg ||
			   folio_nid(folio) != key->nid) {
			*end = xas.xa_index - 1;
			break;
		}
	}
	if (key->memcg && !mem_cgroup_tryget(key->memcg))
		key->memcg = NULL;
	rcu_read_unlock();
	if (!key->memcg)
		key->memcg = get_mem_cgroup_from_mm(current->mm);
	key->memcg = ashmem_memcg_online(key->memcg);

	if (IS_ENABLED(CONFIG_MEMCG) && key->memcg) {
		ret = memcg_list_lru_alloc(key->memcg, &ashmem_lru, GFP_KERNEL);
		if (ret) {
			mem_cgroup_put(key->memcg);
			return ret;
		}
	}
	return 0;
}

static void ashmem_key_put(struct ashmem_key *key)
{
	mem_cgroup_put(key->memcg);
}

/* ashmem_lru has one list per node for all cgroups: kmem accounting is off. */
static bool ashmem_lru_shared(void)
{
#ifdef CONFIG_MEMCG
	return !ashmem_lru.memcg_aware && !mem_cgroup_disabled();
#else
	return false;
#endif
}

/*
 * Whether @range is @memcg's to purge: its pages are charged to @memcg,
 * or to a removed cgroup whose nearest online ancestor is @memcg.
 */
static bool ashmem_range_of(const struct ashmem_range *range,
			    struct mem_cgroup *memcg)
{
	struct mem_cgroup *owner = range->memcg;

	while (owner && !mem_cgroup_online(owner) && parent_mem_cgroup(owner))
		owner = parent_mem_cgroup(owner);
	return owner == memcg;
}

/*
 * With ashmem_lru shared, flag @memcg and its ancestors on node @nid, so
 * that their reclaim calls the shrinker there, the ancestors' for the day
 * @memcg is removed.  list_lru_add() flags the cgroup it is given when a
 * list gets its first item, and the lists of ashmem_flags are always
 * empty: the lock keeps them so between an add and its del.
 */
static void ashmem_flag_memcgs(struct mem_cgroup *memcg, int nid)
{
	struct list_head item;

	spin_lock(&ashmem_flags_lock);
	for (; memcg; memcg = parent_mem_cgroup(memcg)) {
		INIT_LIST_HEAD(&item);
		list_lru_add(&ashmem_flags, &item, nid, memcg);
		list_lru_del(&ashmem_flags, &item, nid, memcg);
	}
	spin_unlock(&ashmem_flags_lock);
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

static struct ashmem_range *ashmem_range_prev(struct ashmem_range *range)
{
	struct rb_node *node = rb_prev(&range->node);

	return node ? rb_entry(node, struct ashmem_range, node) : NULL;
}

static struct ashmem_range *ashmem_range_new(struct ashmem_area *asma,
					     gfp_t gfp)
{
	struct ashmem_range *range = kmem_cache_zalloc(ashmem_range_cache, gfp);

	if (range) {
		INIT_LIST_HEAD(&range->lru);
		range->asma = asma;
	}
	return range;
}

/* A reserved range, or NULL if none is left. */
static struct ashmem_range *ashmem_range_take(struct ashmem_area *asma)
{
	struct ashmem_range *range;

	lockdep_assert_held(&asma->lock);
	range = list_first_entry_or_null(&asma->spares, struct ashmem_range,
					 lru);
	if (range) {
		list_del_init(&range->lru);
		asma->nr_spares--;
	}
	return range;
}

/* Keep one free range per area: pin and unpin cycles then do not allocate. */
static void ashmem_range_free(struct ashmem_range *range)
{
	struct ashmem_area *asma = range->asma;

	lockdep_assert_held(&asma->lock);
	if (asma->nr_spares) {
		kmem_cache_free(ashmem_range_cache, range);
		return;
	}
	list_add(&range->lru, &asma->spares);
	asma->nr_spares++;
}

/*
 * Have at least @nr ranges reserved in the area, allocating them with the
 * area unlocked.  The caller then locks the area and finds them there, or
 * finds that it needs more and calls again.
 */
static int ashmem_range_reserve(struct ashmem_area *asma, unsigned int nr)
{
	struct ashmem_range *range;
	LIST_HEAD(reserved);
	unsigned int have;

	for (have = READ_ONCE(asma->nr_spares); have < nr; have++) {
		range = ashmem_range_new(asma, GFP_KERNEL_ACCOUNT);
		if (!range)
			break;
		list_add(&range->lru, &reserved);
	}
	if (list_empty(&reserved))
		return have < nr ? -ENOMEM : 0;

	guard(mutex)(&asma->lock);
	list_for_each_entry(range, &reserved, lru)
		asma->nr_spares++;
	list_splice(&reserved, &asma->spares);
	return have < nr && asma->nr_spares < nr ? -ENOMEM : 0;
}

/*
 * Put @range in the tree as [@first, @last]: resident and on the LRU list
 * of @key, or purged if @key is NULL.
 */
static void ashmem_range_insert(struct ashmem_range *range, pgoff_t first,
				pgoff_t last, const struct ashmem_key *key)
{
	struct ashmem_area *asma = range->asma;

	lockdep_assert_held(&asma->lock);
	range->first = first;
	range->last = last;
	range->purged = !key;
	rb_add(&range->node, &asma->ranges, ashmem_range_less);
	ashmem_range_account(range, ashmem_range_pages(range));
	if (key) {
		range->memcg = ashmem_memcg_get(key->memcg);
		range->nid = key->nid;
		list_lru_add(&ashmem_lru, &range->lru, range->nid,
			     range->memcg);
		if (ashmem_lru_shared())
			ashmem_flag_memcgs(range->memcg, range->nid);
		asma->listed = true;
	}
}

/* The key a resident range was listed with. */
static void ashmem_range_key(const struct ashmem_range *range,
			     struct ashmem_key *key)
{
	key->memcg = range->memcg;
	key->nid = range->nid;
}

static void ashmem_range_unlist(struct ashmem_range *range)
{
	list_lru_del(&ashmem_lru, &range->lru, range->nid, range->memcg);
	mem_cgroup_put(range->memcg);
	range->memcg = NULL;
}

static void ashmem_range_delete(struct ashmem_range *range)
{
	lockdep_assert_held(&range->asma->lock);
	if (!range->purged)
		ashmem_range_unlist(range);
	ashmem_range_account(range, -(long)ashmem_range_pages(range));
	rb_erase(&range->node, &range->asma->ranges);
	ashmem_range_free(range);
}

/* Make @range [@first, @last]; its place in the tree stays valid. */
static void ashmem_range_resize(struct ashmem_range *range, pgoff_t first,
				pgoff_t last)
{
	lockdep_assert_held(&range->asma->lock);
	ashmem_range_account(range, -(long)ashmem_range_pages(range));
	range->first = first;
	range->last = last;
	ashmem_range_account(range, ashmem_range_pages(range));
}

/*
 * Pin [@first, @last]; returns whether any of it was purged, or -EAGAIN,
 * with nothing changed, if it splits a range and no range is reserved.
 */
static int ashmem_pin_locked(struct ashmem_area *asma, pgoff_t first,
			     pgoff_t last)
{
	struct ashmem_range *range, *next, *tail;
	struct ashmem_key key;
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
			tail = ashmem_range_take(asma);
			if (!tail)
				return -EAGAIN;
			ashmem_range_key(range, &key);
			ashmem_range_insert(tail, last + 1, range->last,
					    range->purged ? NULL : &key);
			ashmem_range_resize(range, range->first, first - 1);
		} else if (range->first < first) {
			ashmem_range_resize(range, range->first, first - 1);
		} else if (range->last > last) {
			ashmem_range_resize(range, last + 1, range->last);
		} else {
			ashmem_range_delete(range);
		}
	}
	return ret;
}

/*
 * A range an unpin with @key goes around rather than merges with: a purged
 * one, whose pages stay purged, or one listed with another key.
 */
static bool ashmem_range_kept(const struct ashmem_range *range,
			      const struct ashmem_key *key)
{
	return range->purged || range->memcg != key->memcg ||
	       range->nid != key->nid;
}

/*
 * Unpin [@first, @last] with @key.  Resident ranges of the same key that
 * it overlaps or touches merge with it; around the ranges it keeps (see
 * ashmem_range_kept()) it becomes pieces, one per gap.  Returns -EAGAIN,
 * with nothing changed, if fewer than the @needed ranges it takes are
 * reserved.
 */
static int ashmem_unpin_locked(struct ashmem_area *asma, pgoff_t first,
			       pgoff_t last, const struct ashmem_key *key,
			       unsigned int *needed)
{
	struct ashmem_range *start, *range, *next, *merged = NULL;
	pgoff_t page;

	lockdep_assert_held(&asma->lock);
	*needed = 1;
	start = ashmem_range_find(asma, first ? first - 1 : 0);
	if (!start || start->first > last + 1) {
		/*
		 * Nothing to merge with, nothing inside: one range.  The
		 * general case below handles this too; this path is the
		 * common one and saves it a tenth of an UNPIN's instructions.
		 */
		range = ashmem_range_take(asma);
		if (!range)
			return -EAGAIN;
		ashmem_range_insert(range, first, last, key);
		return 0;
	}
	if (!ashmem_range_kept(start, key))
		first = min(first, start->first);

	/* Widen over ranges to merge, count the gaps between kept ones. */
	*needed = 0;
	page = first;
	for (range = start; range && range->first <= last + 1;
	     range = ashmem_range_next(range)) {
		if (!ashmem_range_kept(range, key)) {
			last = max(last, range->last);
		} else if (range->first <= last) {
			if (range->first > page)
				(*needed)++;
			page = max(page, range->last + 1);
		}
	}
	if (page <= last)
		(*needed)++;
	if (asma->nr_spares < *needed)
		return -EAGAIN;

	/*
	 * The first range merged leaves the LRU only once the pieces are on
	 * it: a count in between, if these are the list's only ranges, must
	 * not find the list empty.  It stays in the tree meanwhile, which a
	 * piece overlaps, and nothing looks up under the area's lock.
	 */
	page = first;
	for (range = start; range && range->first <= last; range = next) {
		next = ashmem_range_next(range);
		if (!ashmem_range_kept(range, key)) {
			if (merged)
				ashmem_range_delete(range);
			else
				merged = range;
			continue;
		}
		if (range->first > page)
			ashmem_range_insert(ashmem_range_take(asma), page,
					    range->first - 1, key);
		page = max(page, range->last + 1);
	}
	if (page <= last)
		ashmem_range_insert(ashmem_range_take(asma), page, last, key);
	if (merged)
		ashmem_range_delete(merged);
	return 0;
}

static int ashmem_get_pin_status_locked(struct ashmem_area *asma,
					pgoff_t first, pgoff_t last)
{
	struct ashmem_range *range = ashmem_range_find(asma, first);

	lockdep_assert_held(&asma->lock);
	if (range && range->first <= last)
		return ASHMEM_IS_UNPINNED;
	return ASHMEM_IS_PINNED;
}

/**
 * struct ashmem_purge - a walk of ashmem_lru: what it is to do, and did
 * @target: stop once this many pages are purged
 * @nid: the node being reclaimed, or NUMA_NO_NODE outside reclaim
 * @memcg: the memory cgroup being reclaimed, NULL if none
 * @nowait: pass over an area whose backing inode is locked
 * @purged: pages purged, resident or not
 * @freed: resident pages freed
 * @busy: ranges skipped because their area or inode was locked
 */
struct ashmem_purge {
	unsigned long target;
	int nid;
	struct mem_cgroup *memcg;
	bool nowait;
	unsigned long purged;
	unsigned long freed;
	unsigned long busy;
};

static bool ashmem_folio_charged_to(struct folio *folio,
				    struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *owner;
	bool ret;

	/* The root cgroup, which a module cannot name: all memory counts. */
	if (!memcg || !parent_mem_cgroup(memcg))
		return true;
	rcu_read_lock();
	owner = folio_memcg(folio);
	ret = owner && mem_cgroup_is_descendant(owner, memcg);
	rcu_read_unlock();
	return ret;
#else
	return true;
#endif
}

/*
 * The resident pages of [@first, @last] that a purge would free for the
 * reclaim @purge runs in: in @local those on its node, in @charged those
 * of them also charged to the cgroup it reclaims.
 */
static void ashmem_count_progress(struct address_space *mapping,
				  pgoff_t first, pgoff_t last,
				  const struct ashmem_purge *purge,
				  unsigned long *local, unsigned long *charged)
{
	struct folio_batch fbatch;
	pgoff_t index = first;
	unsigned int i;

	folio_batch_init(&fbatch);
	while (filemap_get_folios(mapping, &index, last, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];
			pgoff_t end = min(folio_next_index(folio) - 1, last);
			unsigned long nr = end - max(folio->index, first) + 1;

			if (purge->nid != NUMA_NO_NODE &&
			    folio_nid(folio) != purge->nid)
				continue;
			*local += nr;
			if (ashmem_folio_charged_to(folio, purge->memcg))
				*charged += nr;
		}
		folio_batch_release(&fbatch);
	}
}

/*
 * The backing file's ->fallocate, which MADV_REMOVE calls, and the purge's
 * punch.  A punch may allocate with the inode locked (a huge page is split
 * to punch part of it); reclaim from there could purge this very inode, or
 * wait for another punch that waits for this one, so it is kept out.
 */
static long ashmem_backing_fallocate(struct file *file, int mode,
				     loff_t offset, loff_t len)
{
	unsigned int nofs;
	long ret;

	if (mode != (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;

	nofs = memalloc_nofs_save();
	ret = ashmem_shmem_fops->fallocate(file, mode, offset, len);
	memalloc_nofs_restore(nofs);
	return ret;
}

/*
 * Punch out [@first, @last] of the area's backing file; returns the
 * resident pages that freed, and credits them to the reclaim that runs.
 */
static unsigned long ashmem_punch(struct ashmem_area *asma, pgoff_t first,
				  pgoff_t last, const struct ashmem_purge *purge)
{
	struct address_space *mapping = asma->file->f_mapping;
	unsigned long resident = mapping->nrpages, local = 0, charged = 0;

	lockdep_assert_held(&asma->lock);
	if (current->reclaim_state)
		ashmem_count_progress(mapping, first, last, purge, &local,
				      &charged);

	ashmem_backing_fallocate(asma->file,
				 FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 (loff_t)first << PAGE_SHIFT,
				 (loff_t)(last - first + 1) << PAGE_SHIFT);

	resident -= min(resident, mapping->nrpages);
	local = min(local, resident);
	charged = min(charged, local);
	mm_account_reclaimed_memcg_pages(charged);
	mm_account_reclaimed_pages(local - charged);
	return resident;
}

/*
 * @range has just been purged whole: merge it with the purged ranges it
 * touches, so that pages purged one after the other stay one range.
 */
static void ashmem_range_merge_purged(struct ashmem_range *range)
{
	struct ashmem_range *prev = ashmem_range_prev(range);
	struct ashmem_range *next = ashmem_range_next(range);
	pgoff_t last;

	if (next && next->purged && next->first == range->last + 1) {
		last = next->last;
		ashmem_range_delete(next);
		ashmem_range_resize(range, range->first, last);
	}
	if (prev && prev->purged && prev->last + 1 == range->first) {
		last = range->last;
		ashmem_range_delete(range);
		ashmem_range_resize(prev, prev->first, last);
	}
}

/*
 * The last page of the batch that starts at @first and ends at @last at
 * the latest: the one that makes @want resident pages.  Holes cost nothing
 * to purge, so a sparse range goes in as few batches as a dense one.
 */
static pgoff_t ashmem_batch_end(struct address_space *mapping, pgoff_t first,
				pgoff_t last, unsigned long want)
{
	struct folio_batch fbatch;
	pgoff_t index = first, end = last;
	unsigned long nr = 0;
	unsigned int i;
	bool done = false;

	folio_batch_init(&fbatch);
	while (!done && filemap_get_folios(mapping, &index, last, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			nr += folio_next_index(folio) - max(folio->index, first);
			if (nr >= want) {
				end = min(folio_next_index(folio) - 1, last);
				done = true;
				break;
			}
		}
		folio_batch_release(&fbatch);
	}
	return end;
}

/*
 * Purge the first pages of @range, a resident range: up to as many
 * resident pages as @purge still wants, at most ASHMEM_PURGE_BATCH.  They
 * leave @range for the purged range in front of it, or a new one; the rest
 * of @range keeps its place on the LRU.  Returns the pages purged, holes
 * included.
 *
 * Context: list_lru walk with the lru lock dropped, @range's area locked.
 */
static unsigned long ashmem_purge_batch(struct ashmem_range *range,
					struct ashmem_purge *purge)
{
	struct ashmem_area *asma = range->asma;
	struct ashmem_range *prev = ashmem_range_prev(range), *head = NULL;
	unsigned long want = clamp_t(unsigned long,
				     purge->target - purge->purged, 1,
				     ASHMEM_PURGE_BATCH);
	pgoff_t first = range->first, last = range->last;
	unsigned long freed;

	lockdep_assert_held(&asma->lock);
	if (want < ashmem_range_pages(range))
		last = ashmem_batch_end(asma->file->f_mapping, first, last, want);
	if (last < range->last &&
	    (!prev || !prev->purged || prev->last + 1 != first)) {
		/* In reclaim: no waiting, no charge, reserves allowed. */
		head = ashmem_range_take(asma) ?:
		       ashmem_range_new(asma, GFP_NOWAIT | __GFP_NOWARN);
		if (!head)
			last = range->last;
	}

	freed = ashmem_punch(asma, first, last, purge);
	purge->freed += freed;

	if (last == range->last) {
		ashmem_range_account(range, -(long)ashmem_range_pages(range));
		range->purged = true;
		ashmem_range_account(range, ashmem_range_pages(range));
		ashmem_range_unlist(range);
		ashmem_range_merge_purged(range);
	} else {
		ashmem_range_resize(range, last + 1, range->last);
		if (head)
			ashmem_range_insert(head, first, last, NULL);
		else
			ashmem_range_resize(prev, prev->first, last);
	}
	trace_ashmem_purge(file_inode(asma->file)->i_ino, first, last, freed);
	return last - first + 1;
}

/*
 * Context: list_lru walk, from the shrinker or PURGE_ALL_CACHES; must not
 * sleep on locks that allocation may hold.  Drops the lru lock to purge a
 * batch with only the area's lock held, then has the walk start over; the
 * walk takes LRU_RETRY and LRU_STOP with the lock dropped.
 */
static enum lru_status ashmem_purge_isolate(struct list_head *item,
					    struct list_lru_one *lru,
					    void *arg)
{
	struct ashmem_range *range = container_of(item, struct ashmem_range,
						  lru);
	struct ashmem_area *asma = range->asma;
	struct ashmem_purge *purge = arg;

	if (purge->purged >= purge->target) {
		list_lru_unlock(lru);
		return LRU_STOP;
	}
	/* Read under the lru lock: the range is not freed while listed. */
	if (purge->memcg && ashmem_lru_shared() &&
	    !ashmem_range_of(range, purge->memcg))
		return LRU_SKIP;
	if (!mutex_trylock(&asma->lock)) {
		purge->busy++;
		return LRU_SKIP;
	}
	/* The inode's lock holder may be the very task waiting for @purge. */
	if (purge->nowait && inode_is_locked(file_inode(asma->file))) {
		mutex_unlock(&asma->lock);
		purge->busy++;
		return LRU_SKIP;
	}
	list_lru_unlock(lru);

	purge->purged += ashmem_purge_batch(range, purge);

	/* Once unlocked, the area may be released: see ashmem_area.rcu. */
	rcu_read_lock();
	mutex_unlock(&asma->lock);
	rcu_read_unlock();
	atomic_inc(&ashmem_purge_seq);
	/* Orders the count before wake_up_var()'s check for waiters. */
	smp_mb__after_atomic();
	wake_up_var(&ashmem_purge_seq);
	return LRU_RETRY;
}

/* One walk of the lists of a reclaim's cgroup, its node's list first. */
static void ashmem_purge_walk_reclaim(struct ashmem_purge *purge)
{
	unsigned long walk = ULONG_MAX;
	int nid;

	list_lru_walk_one(&ashmem_lru, purge->nid, purge->memcg,
			  ashmem_purge_isolate, purge, &walk);
	for_each_node(nid) {
		if (nid == purge->nid || purge->purged >= purge->target)
			continue;
		walk = ULONG_MAX;
		list_lru_walk_one(&ashmem_lru, nid, purge->memcg,
				  ashmem_purge_isolate, purge, &walk);
	}
}

/* One walk of every list: all nodes, all cgroups. */
static void ashmem_purge_walk_all(struct ashmem_purge *purge)
{
	unsigned long walk = ULONG_MAX;
	int nid;

	for_each_node(nid)
		list_lru_walk_node(&ashmem_lru, nid, ashmem_purge_isolate,
				   purge, &walk);
}

/*
 * Walk until @purge has purged its target or found no busy area, waiting
 * for a batch to be purged between walks, at most @tries walks.
 */
static void ashmem_purge(struct ashmem_purge *purge,
			 void (*walk)(struct ashmem_purge *purge), int tries)
{
	int seq;

	for (;;) {
		seq = atomic_read(&ashmem_purge_seq);
		purge->busy = 0;
		walk(purge);
		if (purge->purged >= purge->target || !purge->busy ||
		    !--tries || fatal_signal_pending(current))
			return;
		wait_var_event_timeout(&ashmem_purge_seq,
				       atomic_read(&ashmem_purge_seq) != seq, 1);
	}
}

/*
 * The controls of Android 17, each a misc device that reads "0\n" or "1\n"
 * and takes a boolean: /dev/ashmem_unpinning_enable switches purging under
 * memory pressure (the shrinker and the OOM purge) off and on, while pins,
 * unpins and PURGE_ALL_CACHES go on as before; the other two make
 * SET_PROT_MASK keep PROT_READ or PROT_EXEC, as memfd does.  Anyone may
 * read them; only CAP_SYS_ADMIN in the initial user namespace may write,
 * checked at write time, whatever the node's mode.
 *
 * Unpinning is a flag that count, scan and the OOM purge read, rather
 * than a shrinker unregistered and registered again: a freed shrinker
 * cannot be registered again, and with a flag the ranges stay on
 * ashmem_lru, their cgroups flagged, so switching loses nothing.  A scan
 * already running when it goes off purges what it was asked for, no
 * more.  Off, count returns 0, not SHRINK_EMPTY, which would unflag a
 * cgroup whose ranges are still listed.
 */
static bool ashmem_unpinning_enable = true;
static bool ashmem_ignore_unset_prot_read;
static bool ashmem_ignore_unset_prot_exec;
static DEFINE_MUTEX(ashmem_control_lock);

static bool ashmem_unpinning(void)
{
	return READ_ONCE(ashmem_unpinning_enable);
}

/* The PROT_* bits SET_PROT_MASK keeps although the new mask lacks them. */
static unsigned long ashmem_prot_kept(void)
{
	return (READ_ONCE(ashmem_ignore_unset_prot_read) ? PROT_READ : 0) |
	       (READ_ONCE(ashmem_ignore_unset_prot_exec) ? PROT_EXEC : 0);
}

struct ashmem_control {
	struct miscdevice misc;
	bool *value;
};

/* misc_open() left the device in ->private_data. */
static struct ashmem_control *ashmem_control_of(struct file *file)
{
	return container_of(file->private_data, struct ashmem_control, misc);
}

static ssize_t ashmem_control_read(struct file *file, char __user *buf,
				   size_t count, loff_t *ppos)
{
	char val[2] = { READ_ONCE(*ashmem_control_of(file)->value) ? '1' : '0',
			'\n' };

	return simple_read_from_buffer(buf, count, ppos, val, sizeof(val));
}

static ssize_t ashmem_control_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	struct ashmem_control *control = ashmem_control_of(file);
	char kbuf[16];
	bool val;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, buf, count))
		return -EFAULT;
	kbuf[count] = '\0';
	ret = kstrtobool(kbuf, &val);
	if (ret)
		return ret;

	guard(mutex)(&ashmem_control_lock);
	if (*control->value != val) {
		WRITE_ONCE(*control->value, val);
		pr_info("ashmem: %s set to %d by %s[%d]\n", control->misc.name,
			val, current->comm, task_tgid_nr(current));
	}
	return count;
}

static const struct file_operations ashmem_control_fops = {
	.owner	= THIS_MODULE,
	.read	= ashmem_control_read,
	.write	= ashmem_control_write,
	.llseek	= default_llseek,
};

#define ASHMEM_CONTROL(_name) {						\
	.misc = {							\
		.minor	= MISC_DYNAMIC_MINOR,				\
		.name	= "ashmem_" #_name,				\
		.fops	= &ashmem_control_fops,				\
		.mode	= 0644,						\
	},								\
	.value = &ashmem_##_name,					\
}

static struct ashmem_control ashmem_controls[] = {
	ASHMEM_CONTROL(unpinning_enable),
	ASHMEM_CONTROL(ignore_unset_prot_read),
	ASHMEM_CONTROL(ignore_unset_prot_exec),
};

static void ashmem_controls_deregister(unsigned int nr)
{
	while (nr--)
		misc_deregister(&ashmem_controls[nr].misc);
}

static int __init ashmem_controls_register(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ashmem_controls); i++) {
		ret = misc_register(&ashmem_controls[i].misc);
		if (ret) {
			ashmem_controls_deregister(i);
			return ret;
		}
	}
	return 0;
}

/* Pages the OOM notifier purges per call: a few high watermarks' worth. */
static unsigned long ashmem_oom_target(void)
{
	return max(SZ_4M / PAGE_SIZE, totalram_pages() / 256);
}

/* How long the OOM notifier waits for its purge before it lets the kill go on. */
#define ASHMEM_OOM_WAIT		HZ

/*
 * The OOM purge: a worker on a WQ_MEM_RECLAIM queue, which has a rescuer
 * thread when no worker can be created.  Purges asked for, purges done,
 * resident pages freed, as counters the notifier compares.
 */
static struct workqueue_struct *ashmem_oom_wq;
static atomic_t ashmem_oom_asked = ATOMIC_INIT(0);
static atomic_t ashmem_oom_done = ATOMIC_INIT(0);
static atomic_long_t ashmem_oom_freed = ATOMIC_LONG_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(ashmem_oom_waitq);

/*
 * Context: workqueue.  Purges ashmem_oom_target() pages of every list,
 * oldest first, with the reserves: its allocations neither reclaim nor
 * come back to the OOM killer.
 */
static void ashmem_oom_purge(struct work_struct *work)
{
	struct ashmem_purge purge = {
		.target = ashmem_oom_target(),
		.nid = NUMA_NO_NODE,
		.nowait = true,
	};
	int asked = atomic_read(&ashmem_oom_asked);
	unsigned int noreclaim;

	noreclaim = memalloc_noreclaim_save();
	if (ashmem_unpinning())
		ashmem_purge(&purge, ashmem_purge_walk_all,
			     ASHMEM_PURGE_TRIES);
	memalloc_noreclaim_restore(noreclaim);
	atomic_long_add(purge.freed, &ashmem_oom_freed);
	atomic_set_release(&ashmem_oom_done, asked);
	wake_up_all(&ashmem_oom_waitq);
}

static DECLARE_WORK(ashmem_oom_work, ashmem_oom_purge);

/*
 * Context: out_of_memory(), oom_lock held, in the task whose allocation
 * failed; whatever locks it holds, they must not be waited for, so the
 * worker purges and this waits for it, ASHMEM_OOM_WAIT at most.  What the
 * worker freed meanwhile, for this call or an earlier one that gave up
 * waiting, calls the kill off; what other reclaim purged does not count.
 */
static int ashmem_oom_notify(struct notifier_block *nb, unsigned long unused,
			     void *parm)
{
	long before = atomic_long_read(&ashmem_oom_freed);
	unsigned long *freed = parm;
	int asked;

	if (!ashmem_unpinning() || !list_lru_count(&ashmem_lru))
		return NOTIFY_DONE;
	asked = atomic_inc_return(&ashmem_oom_asked);
	queue_work(ashmem_oom_wq, &ashmem_oom_work);
	wait_event_timeout(ashmem_oom_waitq,
			   atomic_read_acquire(&ashmem_oom_done) - asked >= 0,
			   ASHMEM_OOM_WAIT);
	*freed += max(atomic_long_read(&ashmem_oom_freed) - before, 0L);
	return NOTIFY_OK;
}

static struct notifier_block ashmem_oom_nb = {
	.notifier_call = ashmem_oom_notify,
};

/**
 * struct ashmem_count - a count of the pages on a list
 * @memcg: with ashmem_lru shared, count only the ranges of this cgroup
 * @pages: pages counted
 * @subtree: ranges seen of @memcg or of its descendants
 */
struct ashmem_count {
	struct mem_cgroup *memcg;
	unsigned long pages;
	unsigned long subtree;
};

static enum lru_status ashmem_sum_range_pages(struct list_head *item,
					      struct list_lru_one *lru,
					      void *arg)
{
	struct ashmem_range *range = container_of(item, struct ashmem_range,
						  lru);
	/* Without the area's lock: a range being resized may read torn. */
	pgoff_t first = data_race(range->first), last = data_race(range->last);
	struct ashmem_count *count = arg;

#ifdef CONFIG_MEMCG
	if (count->memcg) {
		if (!mem_cgroup_is_descendant(range->memcg, count->memcg))
			return LRU_SKIP;
		count->subtree++;
		if (!ashmem_range_of(range, count->memcg))
			return LRU_SKIP;
	}
#endif
	if (last >= first)
		count->pages += last - first + 1;
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

/* Ranges summed by a count, per list; beyond them, pages are extrapolated. */
#define ASHMEM_COUNT_RANGES	1024

/*
 * The pages on the list of sc->memcg and sc->nid: reclaim asks each node
 * for its own, so that k nodes do not see k times the pages.  list_lru
 * counts ranges, which vary in size, so the count sums them; on a very
 * long list it sums the oldest ASHMEM_COUNT_RANGES and extrapolates.  A
 * range being purged is still on its list, so its pages still count.
 */
static unsigned long ashmem_shrink_count(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	struct ashmem_count count = {
		.memcg = ashmem_lru_shared() ? sc->memcg : NULL,
	};
	unsigned long ranges, walk, pages;

	if (!ashmem_unpinning())
		return 0;
	ranges = list_lru_count_one(&ashmem_lru, sc->nid, sc->memcg);
	if (!ranges)
		return SHRINK_EMPTY;
	walk = min(ranges, ASHMEM_COUNT_RANGES);
	list_lru_walk_one(&ashmem_lru, sc->nid, sc->memcg,
			  ashmem_sum_range_pages, &count, &walk);
	walk = min(ranges, ASHMEM_COUNT_RANGES) - walk;
	pages = count.pages;
	if (walk && walk < ranges)
		pages = mult_frac(pages, ranges, walk);
	/* A shared list: stay flagged while descendants have ranges here. */
	if (!pages && count.subtree)
		return 0;
	return pages ?: SHRINK_EMPTY;
}

/*
 * Context: shrinker; must not sleep on locks that allocation may hold.
 * Purges ranges of sc->memcg, least recently unpinned first, until
 * sc->nr_to_scan pages are gone.
 */
static unsigned long ashmem_shrink_scan(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	struct ashmem_purge purge = {
		.target = sc->nr_to_scan,
		.nid = sc->nid,
		.memcg = sc->memcg,
	};

	/* Punching a hole takes filesystem locks. */
	if (!(sc->gfp_mask & __GFP_FS) || !ashmem_unpinning())
		return SHRINK_STOP;

	ashmem_purge(&purge, ashmem_purge_walk_reclaim, ASHMEM_PURGE_TRIES);
	trace_ashmem_shrink(ashmem_memcg_ino(sc->memcg), sc->nr_to_scan,
			    purge.purged);
	if (!purge.purged)
		return purge.busy ? SHRINK_STOP : 0;
	sc->nr_scanned = purge.purged;
	return purge.purged;
}

static struct ashmem_area *ashmem_area_create(void)
{
	struct ashmem_area *asma;

	asma = kzalloc_obj(*asma, GFP_KERNEL_ACCOUNT);
	if (!asma)
		return NULL;

	mutex_init(&asma->lock);
	asma->ranges = RB_ROOT;
	INIT_LIST_HEAD(&asma->spares);
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
			ashmem_range_unlist(range);
		ashmem_range_account(range, -(long)ashmem_range_pages(range));
		kmem_cache_free(ashmem_range_cache, range);
	}
	asma->ranges = RB_ROOT;
	list_for_each_entry_safe(range, next, &asma->spares, lru)
		kmem_cache_free(ashmem_range_cache, range);
	mutex_unlock(&asma->lock);

	if (asma->file)
		fput(asma->file);
	/*
	 * Most areas are never unpinned and reclaim never saw them: they need
	 * no grace period, which makes an area's lifecycle cheaper.
	 */
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

/*
 * The backing file
 *
 * An area's shared mappings map its backing file.  Android maps a plain
 * shmem file there, so every call a mapping makes on its file must work
 * as on a memfd: MADV_REMOVE punches a hole (->fallocate), msync()
 * (->fsync) has nothing to write back, MADV_WILLNEED and the rest need no
 * file operation.  ->mmap_prepare refuses: remap_file_pages() calls it to
 * map more of the file, which must not escape the area's size and mask.
 * It is not ->mmap: once ashmem's ->mmap_prepare has made the backing file
 * the vma's file, mmap calls that file's ->mmap, if it has one.  The file
 * is never a file descriptor, so nothing else can be asked of it.
 *
 * With CAP_SYS_ADMIN, /proc/PID/map_files/ opens the backing inode anew,
 * and that file gets the inode's own operations: reading and seeking.  It
 * cannot be opened for writing (or for O_TRUNC), nor mapped, and the inode
 * takes no change: its attributes (truncate(2), chmod(2), utimes(2)), its
 * flags (FS_IOC_SETFLAGS), its ACLs and extended attributes are refused,
 * so that no flag or permission can ever open it for writing either.
 * The inode is not S_IMMUTABLE: vfs_fallocate() would refuse MADV_REMOVE.
 */
static int ashmem_backing_mmap_prepare(struct vm_area_desc *desc)
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

/* The area's own file, the vm_file of its shared mappings. */
static const struct file_operations ashmem_backing_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= ashmem_backing_read_iter,
	.llseek		= ashmem_backing_llseek,
	.mmap_prepare	= ashmem_backing_mmap_prepare,
	.fallocate	= ashmem_backing_fallocate,
	.fsync		= noop_fsync,
};

static int ashmem_backing_open(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	return generic_file_open(inode, file);
}

/* A file opened through /proc/PID/map_files/. */
static const struct file_operations ashmem_backing_reopen_fops = {
	.owner		= THIS_MODULE,
	.open		= ashmem_backing_open,
	.read_iter	= ashmem_backing_read_iter,
	.llseek		= ashmem_backing_llseek,
	.mmap_prepare	= ashmem_backing_mmap_prepare,
};

static int ashmem_backing_getattr(struct mnt_idmap *idmap,
				  const struct path *path, struct kstat *stat,
				  u32 request_mask, unsigned int query_flags)
{
	return ashmem_shmem_iops->getattr(idmap, path, stat, request_mask,
					  query_flags);
}

static int ashmem_backing_setattr(struct mnt_idmap *idmap,
				  struct dentry *dentry, struct iattr *attr)
{
	return -EPERM;
}

/* FS_IOC_GETFLAGS reports what shmem does, if it reports anything. */
static int ashmem_backing_fileattr_get(struct dentry *dentry,
				       struct file_kattr *fa)
{
	if (!ashmem_shmem_iops->fileattr_get)
		return -ENOIOCTLCMD;
	return ashmem_shmem_iops->fileattr_get(dentry, fa);
}

static int ashmem_backing_fileattr_set(struct mnt_idmap *idmap,
				       struct dentry *dentry,
				       struct file_kattr *fa)
{
	return -EPERM;
}

/* No ->set_acl and no ->listxattr: the inode has no ACL, no xattr. */
static const struct inode_operations ashmem_backing_iops = {
	.getattr	= ashmem_backing_getattr,
	.setattr	= ashmem_backing_setattr,
	.fileattr_get	= ashmem_backing_fileattr_get,
	.fileattr_set	= ashmem_backing_fileattr_set,
};

/*
 * Create the backing file; the area's size and name are final from now.
 * The area has no range yet, so reclaim has no reason to wait for it while
 * this allocates with its lock held.
 */
static int ashmem_create_backing(struct ashmem_area *asma,
				 vma_flags_t vma_flags)
{
	const char *name = ASHMEM_NAME_DEF;
	struct file *backing;
	struct inode *inode;

	lockdep_assert_held(&asma->lock);
	if (asma->name[ASHMEM_NAME_PREFIX_LEN])
		name = asma->name;

	/*
	 * Like shmem_zero_setup(): created under mmap_lock and reachable only
	 * through the area, so it stays out of the LSM hooks.
	 */
	backing = shmem_kernel_file_setup(name, asma->size, vma_flags);
	if (IS_ERR(backing))
		return PTR_ERR(backing);

	/* See "The backing file" above. */
	inode = file_inode(backing);
	lockdep_set_class(&inode->i_rwsem, &ashmem_backing_key);
	inode->i_op = &ashmem_backing_iops;
	inode->i_opflags &= ~IOP_XATTR;
	inode->i_fop = &ashmem_backing_reopen_fops;
	replace_fops(backing, fops_get(&ashmem_backing_fops));

	/* Lockless readers of asma->file may rely on size and name. */
	smp_store_release(&asma->file, backing);
	return 0;
}

/* The VMA_*_BIT flags of @prot: the access flags, or the VMA_MAY* ones. */
static vma_flags_t ashmem_prot_vma_flags(unsigned long prot, bool may)
{
	vma_flags_t flags = EMPTY_VMA_FLAGS;

	if (prot & PROT_READ)
		vma_flags_set(&flags, may ? VMA_MAYREAD_BIT : VMA_READ_BIT);
	if (prot & PROT_WRITE)
		vma_flags_set(&flags, may ? VMA_MAYWRITE_BIT : VMA_WRITE_BIT);
	if (prot & PROT_EXEC)
		vma_flags_set(&flags, may ? VMA_MAYEXEC_BIT : VMA_EXEC_BIT);
	return flags;
}

/*
 * Creating the backing file here, before the mapping is certain, is what
 * shmem_zero_setup_desc() does too: a mapping that then fails leaves the
 * area with its backing file, as a first mmap that succeeded would.
 */
static int ashmem_mmap_prepare(struct vm_area_desc *desc)
{
	struct ashmem_area *asma = desc->file->private_data;
	unsigned long denied;
	pgoff_t pages;
	int ret;

	guard(mutex)(&asma->lock);
	pages = ashmem_area_pages(asma);
	if (!pages || vma_desc_pages(desc) > pages ||
	    desc->pgoff > pages - vma_desc_pages(desc))
		return -EINVAL;

	denied = ASHMEM_PROT_MASK & ~asma->prot_mask;
	if (vma_desc_test_any_mask(desc, ashmem_prot_vma_flags(denied, false)))
		return -EPERM;
	vma_desc_clear_flags_mask(desc, ashmem_prot_vma_flags(denied, true));

	if (!asma->file) {
		ret = ashmem_create_backing(asma, desc->vma_flags);
		if (ret)
			return ret;
	}

	/*
	 * VM_MAYSHARE, not VM_SHARED: a MAP_SHARED mapping of a read-only
	 * descriptor loses VM_SHARED but must still see the shared pages.
	 */
	if (vma_desc_test(desc, VMA_MAYSHARE_BIT))
		shmem_set_file(desc, get_file(asma->file));
	else
		vma_desc_set_anonymous(desc);
	return 0;
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

	scoped_guard(mutex, &asma->lock) {
		if (asma->name[ASHMEM_NAME_PREFIX_LEN])
			strscpy(name, asma->name + ASHMEM_NAME_PREFIX_LEN,
				sizeof(name));
		else
			strscpy(name, ASHMEM_NAME_DEF, sizeof(name));
	}

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
	prot |= asma->prot_mask & ashmem_prot_kept();

	/* Where the mask still allows it, PROT_READ means PROT_EXEC too. */
	if ((prot & PROT_READ) && (current->personality & READ_IMPLIES_EXEC))
		prot |= asma->prot_mask & PROT_EXEC;
	WRITE_ONCE(asma->prot_mask, prot);
	return 0;
}

/*
 * Read the 8 bytes of struct ashmem_pin in one user access window:
 * copy_from_user() is not inlined, and PIN and UNPIN are hot enough that
 * the difference shows in their cost.
 */
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

/* What needs no area state: page alignment, no wrap past 4 GiB. */
static int ashmem_pin_check(const struct ashmem_pin *pin)
{
	u32 end;

	if ((pin->offset | pin->len) & ~PAGE_MASK)
		return -EINVAL;
	if (check_add_overflow(pin->offset, pin->len, &end))
		return -EINVAL;
	return 0;
}

static int ashmem_pin_arg(const struct ashmem_pin __user *upin,
			  struct ashmem_pin *pin)
{
	if (ashmem_get_pin(pin, upin))
		return -EFAULT;
	return ashmem_pin_check(pin);
}

/*
 * The pages [@first, @last] that @pin names in the mapped area, or -EINVAL.
 * Once the area is mapped its size is final, so the area need not be locked.
 */
static int ashmem_pin_range(struct ashmem_area *asma,
			    const struct ashmem_pin *pin,
			    pgoff_t *first, pgoff_t *last)
{
	pgoff_t pages;

	if (!ashmem_backing(asma))
		return -EINVAL;
	pages = ashmem_area_pages(asma);

	/* A length of 0 means "to the end", even past 4 GiB. */
	*first = pin->offset >> PAGE_SHIFT;
	if (pin->len)
		*last = *first + (pin->len >> PAGE_SHIFT) - 1;
	else
		*last = pages - 1;
	if (*first > *last || *last >= pages)
		return -EINVAL;
	return 0;
}

/* Pin pages [@first, @last] of a mapped area, reserving a range first. */
static int ashmem_pin_pages(struct ashmem_area *asma, pgoff_t first,
			    pgoff_t last)
{
	int ret;

	do {
		ret = ashmem_range_reserve(asma, 1);
		if (ret)
			return ret;
		scoped_guard(mutex, &asma->lock)
			ret = ashmem_pin_locked(asma, first, last);
	} while (ret == -EAGAIN);
	trace_ashmem_pin(file_inode(asma->file)->i_ino, first, last, ret);
	return ret;
}

/* Pages [@first, @last] of an unpin, to be listed with @key. */
struct ashmem_run {
	pgoff_t first;
	pgoff_t last;
	struct ashmem_key key;
};

/*
 * Unpin the @nr runs of an unpin under one hold of the area's lock, or
 * return -EAGAIN with nothing changed if fewer than the *@needed ranges
 * they may take are reserved.  Each boundary between the ranges they
 * leave is a boundary between runs or an end of a range that was there
 * before: the ranges they take are at most one per run, two per range
 * in or next to them, and two more.
 */
static int ashmem_unpin_runs_locked(struct ashmem_area *asma,
				    const struct ashmem_run *runs,
				    unsigned int nr, unsigned int *needed)
{
	pgoff_t first = runs[0].first, last = runs[nr - 1].last;
	struct ashmem_range *range;
	unsigned int i, unused;

	lockdep_assert_held(&asma->lock);
	if (nr == 1)
		return ashmem_unpin_locked(asma, first, last, &runs[0].key,
					   needed);

	*needed = nr + 2;
	for (range = ashmem_range_find(asma, first ? first - 1 : 0);
	     range && range->first <= last + 1;
	     range = ashmem_range_next(range))
		*needed += 2;
	if (asma->nr_spares < *needed)
		return -EAGAIN;
	for (i = 0; i < nr; i++)
		WARN_ON_ONCE(ashmem_unpin_locked(asma, runs[i].first,
						 runs[i].last, &runs[i].key,
						 &unused));
	return 0;
}

/*
 * Unpin pages [@first, @last] of a mapped area, each run of pages with the
 * same key listed under it: keys, lists and ranges are got unlocked, then
 * all runs change the area under one hold of its lock, so that a PIN never
 * finds it half unpinned (ranges are reserved again if too few were).
 */
static int ashmem_unpin_pages(struct ashmem_area *asma, pgoff_t first,
			      pgoff_t last)
{
	struct ashmem_run one, *runs = &one, *more;
	unsigned int nr = 0, room = 1, needed, i;
	pgoff_t start, end;
	int ret = 0;

	for (start = first; start <= last; start = end + 1) {
		if (nr == room) {
			more = kvmalloc_array(2 * room, sizeof(*runs),
					      GFP_KERNEL);
			if (!more) {
				ret = -ENOMEM;
				goto out;
			}
			memcpy(more, runs, nr * sizeof(*runs));
			if (runs != &one)
				kvfree(runs);
			runs = more;
			room *= 2;
		}
		ret = ashmem_key_get(asma, start, last, &runs[nr].key, &end);
		if (ret)
			goto out;
		runs[nr].first = start;
		runs[nr++].last = end;
		cond_resched();
	}

	needed = nr;
	do {
		ret = ashmem_range_reserve(asma, needed);
		if (ret)
			break;
		mutex_lock(&asma->lock);
		ret = ashmem_unpin_runs_locked(asma, runs, nr, &needed);
		mutex_unlock(&asma->lock);
	} while (ret == -EAGAIN);
out:
	for (i = 0; i < nr; i++)
		ashmem_key_put(&runs[i].key);
	if (runs != &one)
		kvfree(runs);
	trace_ashmem_unpin(file_inode(asma->file)->i_ino, first, last, ret);
	return ret;
}

static long ashmem_pin(struct ashmem_area *asma,
		       const struct ashmem_pin __user *upin)
{
	struct ashmem_pin pin;
	pgoff_t first, last;
	int ret;

	ret = ashmem_pin_arg(upin, &pin);
	if (ret)
		return ret;
	ret = ashmem_pin_range(asma, &pin, &first, &last);
	if (ret)
		return ret;
	return ashmem_pin_pages(asma, first, last);
}

static long ashmem_unpin(struct ashmem_area *asma,
			 const struct ashmem_pin __user *upin)
{
	struct ashmem_pin pin;
	pgoff_t first, last;
	int ret;

	ret = ashmem_pin_arg(upin, &pin);
	if (ret)
		return ret;
	ret = ashmem_pin_range(asma, &pin, &first, &last);
	if (ret)
		return ret;
	return ashmem_unpin_pages(asma, first, last);
}

static long ashmem_get_pin_status(struct ashmem_area *asma,
				  const struct ashmem_pin __user *upin)
{
	struct ashmem_pin pin;
	pgoff_t first, last;
	int ret;

	ret = ashmem_pin_arg(upin, &pin);
	if (ret)
		return ret;
	ret = ashmem_pin_range(asma, &pin, &first, &last);
	if (ret)
		return ret;

	guard(mutex)(&asma->lock);
	return ashmem_get_pin_status_locked(asma, first, last);
}

/*
 * Returns the number of unpinned pages purged: all there were, as on
 * Android, unless an area stayed busy.  A busy area is waited for a few
 * times, as reclaim does, never for long.
 */
static long ashmem_purge_all_caches(void)
{
	struct ashmem_purge purge = {
		.target = ULONG_MAX,
		.nid = NUMA_NO_NODE,
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	ashmem_purge(&purge, ashmem_purge_walk_all, ASHMEM_PURGE_ALL_TRIES);
	return purge.purged;
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
		return ashmem_pin(asma, argp);
	case ASHMEM_UNPIN:
		return ashmem_unpin(asma, argp);
	case ASHMEM_GET_PIN_STATUS:
		return ashmem_get_pin_status(asma, argp);
	case ASHMEM_PURGE_ALL_CACHES:
		return ashmem_purge_all_caches();
	case ASHMEM_GET_FILE_ID:
		return ashmem_get_file_id(asma, argp);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
static long ashmem_compat_get_file_id(struct ashmem_area *asma,
				      compat_ulong_t __user *uid)
{
	struct file *backing = ashmem_backing(asma);

	if (!backing)
		return -EINVAL;
	return ashmem_compat_put_file_id(file_inode(backing)->i_ino, uid);
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

/* What fdinfo shows, taken in one short hold of the area's lock. */
struct ashmem_fdinfo {
	unsigned long ino;
	size_t size;
	pgoff_t pages;
	unsigned long unpinned;
	unsigned long purged;
	char name[ASHMEM_NAME_LEN];
};

static void ashmem_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct ashmem_area *asma = file->private_data;
	struct ashmem_fdinfo info;

	scoped_guard(mutex, &asma->lock) {
		info.ino = asma->file ? file_inode(asma->file)->i_ino : 0;
		info.size = asma->size;
		info.pages = ashmem_area_pages(asma);
		info.unpinned = asma->unpinned_pages;
		info.purged = asma->purged_pages;
		strscpy(info.name, asma->name + ASHMEM_NAME_PREFIX_LEN);
	}

	if (info.ino)
		seq_printf(m, "inode:\t%lu\n", info.ino);
	if (info.name[0])
		seq_printf(m, "name:\t%s\n", info.name);
	seq_printf(m, "size:\t%zu\n", info.size);
	seq_printf(m, "pinned:\t%lu\n",
		   info.pages - info.unpinned - info.purged);
	seq_printf(m, "unpinned:\t%lu\n", info.unpinned);
	seq_printf(m, "purged:\t%lu\n", info.purged);
}

static const struct file_operations ashmem_fops = {
	.owner		= THIS_MODULE,
	.open		= ashmem_open,
	.release	= ashmem_release,
	.read_iter	= ashmem_read_iter,
	.llseek		= ashmem_llseek,
	.mmap_prepare	= ashmem_mmap_prepare,
	.unlocked_ioctl	= ashmem_ioctl,
	.compat_ioctl	= ashmem_compat_ioctl,
	.show_fdinfo	= ashmem_show_fdinfo,
};

/**
 * is_ashmem_file() - whether a file is an area of /dev/ashmem
 * @file: any file
 *
 * Context: any context.
 * Return: true if @file was opened from /dev/ashmem.
 */
bool is_ashmem_file(struct file *file)
{
	return file && file->f_op == &ashmem_fops;
}
EXPORT_SYMBOL_GPL(is_ashmem_file);

/**
 * ashmem_area_name() - the name of an area, as its backing file has it
 * @file: an area of /dev/ashmem
 * @name: a buffer of %ASHMEM_FULL_NAME_LEN bytes
 *
 * Copies "dev/ashmem/" followed by the name SET_NAME gave, or
 * %ASHMEM_NAME_DEF for an area never named.
 *
 * Context: process context; takes the area's lock.
 * Return: 0, or -EINVAL if @file is not an area.
 */
int ashmem_area_name(struct file *file, char *name)
{
	struct ashmem_area *asma;

	if (!is_ashmem_file(file))
		return -EINVAL;
	asma = file->private_data;
	guard(mutex)(&asma->lock);
	if (asma->name[ASHMEM_NAME_PREFIX_LEN])
		strscpy(name, asma->name, ASHMEM_FULL_NAME_LEN);
	else
		strscpy(name, ASHMEM_NAME_DEF, ASHMEM_FULL_NAME_LEN);
	return 0;
}
EXPORT_SYMBOL_GPL(ashmem_area_name);

/**
 * ashmem_area_size() - the size of an area, as GET_SIZE reports it
 * @file: an area of /dev/ashmem
 *
 * Context: any context.
 * Return: the size in bytes, or -EINVAL if @file is not an area.
 */
long ashmem_area_size(struct file *file)
{
	if (!is_ashmem_file(file))
		return -EINVAL;
	return READ_ONCE(((struct ashmem_area *)file->private_data)->size);
}
EXPORT_SYMBOL_GPL(ashmem_area_size);

/**
 * ashmem_area_vmfile() - the shmem file that backs an area
 * @file: an area of /dev/ashmem
 *
 * Context: any context.
 * Return: the backing file with a reference the caller drops with fput(),
 * or NULL if @file is not an area or the area was never mapped.
 */
struct file *ashmem_area_vmfile(struct file *file)
{
	struct file *backing;

	if (!is_ashmem_file(file))
		return NULL;
	backing = ashmem_backing(file->private_data);
	return backing ? get_file(backing) : NULL;
}
EXPORT_SYMBOL_GPL(ashmem_area_vmfile);

/* Every process may create areas, as with memfd_create(). */
static struct miscdevice ashmem_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ashmem",
	.fops	= &ashmem_fops,
	.mode	= 0666,
};

static int __init ashmem_init_shmem_ops(void)
{
	struct file *probe;

	probe = shmem_kernel_file_setup("ashmem", 0,
					mk_vma_flags(VMA_NORESERVE_BIT));
	if (IS_ERR(probe))
		return PTR_ERR(probe);
	ashmem_shmem_fops = probe->f_op;
	ashmem_shmem_iops = file_inode(probe)->i_op;
	fput(probe);
	return 0;
}

static int __init ashmem_init(void)
{
	int ret;

	ashmem_range_cache = KMEM_CACHE(ashmem_range, 0);
	if (!ashmem_range_cache)
		return -ENOMEM;

	ret = ashmem_init_shmem_ops();
	if (ret)
		goto err_destroy_cache;

	ashmem_oom_wq = alloc_workqueue("ashmem_oom", WQ_MEM_RECLAIM | WQ_UNBOUND, 1);
	if (!ashmem_oom_wq) {
		ret = -ENOMEM;
		goto err_destroy_cache;
	}

	/* Not slab: its memory cgroups count with kmem accounting off too. */
	ashmem_shrinker = shrinker_alloc(SHRINKER_MEMCG_AWARE |
					 SHRINKER_NUMA_AWARE |
					 SHRINKER_NONSLAB, "ashmem");
	if (!ashmem_shrinker) {
		ret = -ENOMEM;
		goto err_destroy_wq;
	}

	ret = list_lru_init_memcg(&ashmem_lru, ashmem_shrinker);
	if (ret) {
		shrinker_free(ashmem_shrinker);
		goto err_destroy_wq;
	}
	ret = list_lru_init_memcg(&ashmem_flags, ashmem_shrinker);
	if (ret) {
		shrinker_free(ashmem_shrinker);
		list_lru_destroy(&ashmem_lru);
		goto err_destroy_wq;
	}

	ashmem_shrinker->count_objects = ashmem_shrink_count;
	ashmem_shrinker->scan_objects = ashmem_shrink_scan;
	/*
	 * Without swap, purging is the only way to reclaim these pages: ask
	 * for them as early as for any other cache.
	 */
	ashmem_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(ashmem_shrinker);

	ret = register_oom_notifier(&ashmem_oom_nb);
	if (ret)
		goto err_free_shrinker;

	ret = misc_register(&ashmem_misc);
	if (ret)
		goto err_unregister_oom;
	ret = ashmem_controls_register();
	if (ret)
		goto err_deregister_misc;
	return 0;

err_deregister_misc:
	misc_deregister(&ashmem_misc);
err_unregister_oom:
	unregister_oom_notifier(&ashmem_oom_nb);
err_free_shrinker:
	shrinker_free(ashmem_shrinker);
	list_lru_destroy(&ashmem_flags);
	list_lru_destroy(&ashmem_lru);
err_destroy_wq:
	destroy_workqueue(ashmem_oom_wq);
err_destroy_cache:
	kmem_cache_destroy(ashmem_range_cache);
	return ret;
}

static void __exit ashmem_exit(void)
{
	ashmem_controls_deregister(ARRAY_SIZE(ashmem_controls));
	misc_deregister(&ashmem_misc);
	unregister_oom_notifier(&ashmem_oom_nb);
	destroy_workqueue(ashmem_oom_wq);
	shrinker_free(ashmem_shrinker);
	list_lru_destroy(&ashmem_flags);
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
