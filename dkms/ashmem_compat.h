/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ashmem_compat.h: stand-ins for what mm/ashmem.c needs from mm and a stock
 * kernel lacks, for the out-of-tree (DKMS) build of the same ashmem.c.
 * Kbuild force-includes this file (-include) ahead of ashmem.c.
 *
 * ashmem's patch series adds a few small helpers to mm, and ashmem.c is
 * written against Linux 6.12, some of whose interfaces 6.1 lacks.  For each
 * one, Kbuild defines ASHMEM_HAVE_<NAME> if the kernel it builds against has
 * it: an exported function in the kernel's Module.symvers, a name in its
 * header.  Otherwise the fallback below takes over the name with a macro,
 * so that ashmem.c calls it unchanged.  Each fallback says what it costs
 * compared with what it replaces.
 *
 * Adding one: its name to ASHMEM_COMPAT_SYMS (exported) or
 * ASHMEM_COMPAT_INLINES (HEADER:NAME) in Kbuild, and here the kernel header
 * that would declare it, the fallback and the #define.
 */
#ifndef _ASHMEM_COMPAT_H
#define _ASHMEM_COMPAT_H

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/swap.h>

#ifndef ASHMEM_HAVE_VMA_FLAGS_T
/*
 * vma_flags_t (7.0), the bitmap that replaces vm_flags_t, and the VMA_*_BIT
 * numbers that name its bits.  Before, the flags are one word, and here
 * each VMA_*_BIT is the VM_* mask itself, which the helpers below take.
 */
#define vma_flags_t unsigned long

#define EMPTY_VMA_FLAGS		0UL
#define VMA_READ_BIT		VM_READ
#define VMA_WRITE_BIT		VM_WRITE
#define VMA_EXEC_BIT		VM_EXEC
#define VMA_MAYREAD_BIT		VM_MAYREAD
#define VMA_MAYWRITE_BIT	VM_MAYWRITE
#define VMA_MAYEXEC_BIT		VM_MAYEXEC
#define VMA_MAYSHARE_BIT	VM_MAYSHARE
#define VMA_NORESERVE_BIT	VM_NORESERVE
#define mk_vma_flags(bit)	((vma_flags_t)(bit))
#define vma_flags_set(flags, bit) (*(flags) |= (bit))
#endif

#ifdef ASHMEM_HAVE_SHMEM_KERNEL_FILE_SETUP
#define ashmem_compat_private_file_setup shmem_kernel_file_setup
#else
/*
 * 6.1 does not export shmem_kernel_file_setup(): shmem_file_setup()
 * and the flag the other adds, S_PRIVATE, which keeps the inode out of the
 * LSM hooks from then on.  Only the security hooks of the inode's and the
 * file's allocation see it, as they see a memfd's.
 */
static inline struct file *
ashmem_compat_private_file_setup(const char *name, loff_t size,
				 vma_flags_t flags)
{
	struct file *file = shmem_file_setup(name, size, flags);

	if (!IS_ERR(file))
		file_inode(file)->i_flags |= S_PRIVATE;
	return file;
}
#endif

#ifndef ASHMEM_HAVE_SHMEM_SET_FILE
/*
 * shmem_set_file(): vma_set_file() plus shmem's own ->mmap, which sets the
 * vm_ops (shmem_anon_vm_ops is not exported) and the file's atime.  By the
 * time ashmem maps a backing file it has replaced the file's f_op with its
 * own, so shmem's file_operations are taken from the files as shmem creates
 * them: ashmem's first one is its probe at module init.  Costs nothing per
 * mapping beyond the atime update.
 */
static const struct file_operations *ashmem_compat_shmem_fops;

static inline struct file *
ashmem_compat_shmem_kernel_file_setup(const char *name, loff_t size,
				      vma_flags_t flags)
{
	struct file *file = ashmem_compat_private_file_setup(name, size, flags);

	if (!IS_ERR(file))
		WRITE_ONCE(ashmem_compat_shmem_fops, file->f_op);
	return file;
}

#define shmem_kernel_file_setup ashmem_compat_shmem_kernel_file_setup

#ifdef ASHMEM_HAVE_MMAP_PREPARE
/*
 * Here the file shmem's ->mmap_prepare() looks at is the backing file, for
 * its atime and for the vm_ops of an unlinked file.
 */
static inline void ashmem_compat_shmem_set_file(struct vm_area_desc *desc,
						struct file *file)
{
	struct file *own = desc->file;

	desc->vm_file = file;
	desc->file = file;
	WARN_ON_ONCE(READ_ONCE(ashmem_compat_shmem_fops)->mmap_prepare(desc));
	desc->file = own;
}
#else
static inline void ashmem_compat_shmem_set_file(struct vm_area_struct *vma,
						struct file *file)
{
	vma_set_file(vma, file);
	/* The caller's reference passes to @vma, which took its own. */
	fput(file);
	WARN_ON_ONCE(READ_ONCE(ashmem_compat_shmem_fops)->mmap(file, vma));
}
#endif

#define shmem_set_file ashmem_compat_shmem_set_file
#elif !defined(ASHMEM_HAVE_SHMEM_KERNEL_FILE_SETUP)
#define shmem_kernel_file_setup ashmem_compat_private_file_setup
#endif

#if IS_ENABLED(CONFIG_MEMCG) && !defined(ASHMEM_HAVE_MEMCG_LIST_LRU_ALLOC)
/*
 * memcg_list_lru_alloc(): the slab hooks allocate the list of the cgroup an
 * accounted allocation is charged to when the allocation names the list_lru,
 * so allocate an object with kmem_cache_alloc_lru() in @memcg's charging
 * scope and free it.  Costs an allocation and a charge of its few bytes the
 * first time a cgroup's pages are unpinned; does nothing once the list is
 * there, for the root cgroup, or with kmem accounting off, where ashmem_lru
 * has no list to allocate.
 */
static inline int ashmem_compat_memcg_list_lru_alloc(struct mem_cgroup *memcg,
						     struct list_lru *lru,
						     gfp_t gfp)
{
	struct kmem_cache *cache = kmalloc_caches[KMALLOC_CGROUP][kmalloc_index(8)];
	int idx = READ_ONCE(memcg->kmemcg_id);
	struct mem_cgroup *old;
	void *obj;

	/* As memcg_list_lru_allocated() tells. */
	if (!lru->memcg_aware || idx < 0 || xa_load(&lru->xa, idx))
		return 0;

	old = set_active_memcg(memcg);
	obj = kmem_cache_alloc_lru(cache, lru, gfp | __GFP_ACCOUNT);
	set_active_memcg(old);
	if (!obj)
		return -ENOMEM;
	kmem_cache_free(cache, obj);
	return 0;
}

#define memcg_list_lru_alloc ashmem_compat_memcg_list_lru_alloc
#endif

#ifndef ASHMEM_HAVE_MM_ACCOUNT_RECLAIMED_PAGES
/*
 * mm_account_reclaimed_pages() and mm_account_reclaimed_memcg_pages()
 * (6.4): before, what a shrinker frees counts as progress of the reclaim
 * that calls it, global or a memory cgroup's, through reclaimed_slab.  The
 * pages charged to the cgroup being reclaimed count there, as with the
 * helper; those charged elsewhere (faulted in by another cgroup after the
 * unpin) count for no one, so global reclaim purges a little more for them.
 */
static inline void ashmem_compat_account_reclaimed(unsigned long pages)
{
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += pages;
}

static inline void ashmem_compat_account_reclaimed_elsewhere(unsigned long pages)
{
}

#define mm_account_reclaimed_memcg_pages ashmem_compat_account_reclaimed
#define mm_account_reclaimed_pages ashmem_compat_account_reclaimed_elsewhere
#elif !defined(ASHMEM_HAVE_MM_ACCOUNT_RECLAIMED_MEMCG_PAGES)
/*
 * mm_account_reclaimed_memcg_pages(): a stock kernel counts pages freed
 * outside LRU reclaim as progress of global reclaim only.  A memory
 * cgroup's reclaim then never sees a purge as progress: it goes on down to
 * priority 0 and purges every unpinned page of the cgroup, and
 * memory.reclaim fails with EAGAIN after purging them.  Global reclaim and
 * the OOM notifier work as with the helper.
 */
#define mm_account_reclaimed_memcg_pages mm_account_reclaimed_pages
#endif

#ifndef ASHMEM_HAVE_MEM_CGROUP_TRYGET
/* mem_cgroup_tryget() (6.2). */
static inline bool ashmem_compat_mem_cgroup_tryget(struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	return !memcg || css_tryget(&memcg->css);
#else
	return true;
#endif
}

#define mem_cgroup_tryget ashmem_compat_mem_cgroup_tryget
#endif

#ifndef ASHMEM_HAVE_VM_FLAGS_CLEAR
/* vm_flags_clear() (6.3): before it, ->mmap writes vm_flags itself. */
static inline void ashmem_compat_vm_flags_clear(struct vm_area_struct *vma,
						vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}

#define vm_flags_clear ashmem_compat_vm_flags_clear
#endif

#ifndef ASHMEM_HAVE_MNT_IDMAP
/*
 * struct mnt_idmap (6.3) took the place of the user namespace that inode
 * operations are given; ashmem only passes it on to shmem's.
 */
#define mnt_idmap user_namespace
#endif

#ifndef ASHMEM_HAVE_KZALLOC_OBJ
/* kzalloc_obj(), newer than 6.12: a zeroed object of the type of @p. */
#define kzalloc_obj(p, gfp) ((typeof(p) *)kzalloc(sizeof(p), gfp))
#endif

#ifndef ASHMEM_HAVE_FILE_KATTR
/* struct file_kattr (6.17) was struct fileattr. */
#define file_kattr fileattr
#endif

#ifndef ASHMEM_HAVE_SIZED_STRSCPY
/* strscpy() into an array, with its size left out (6.8). */
#define ashmem_compat_strscpy0(dst, src, ...) \
	strscpy(dst, src, sizeof(dst) + __must_be_array(dst))
#define ashmem_compat_strscpy1(dst, src, size) strscpy(dst, src, size)
#define ashmem_compat_strscpy(n) CONCATENATE(ashmem_compat_strscpy, n)
#define strscpy(dst, src, ...) \
	ashmem_compat_strscpy(COUNT_ARGS(__VA_ARGS__))(dst, src, __VA_ARGS__)
#endif

/*
 * fops_get() as 6.12 has it, with the argument in a variable: 6.1's tests
 * the address of ashmem's static file_operations, which -Waddress warns of.
 */
#undef fops_get
#define fops_get(fops) ({						\
	const struct file_operations *_fops = (fops);			\
	(((_fops) && try_module_get((_fops)->owner) ? (_fops) : NULL));	\
})

#ifndef ASHMEM_HAVE_LRU_STOP
/*
 * LRU_STOP (6.4) ends a list_lru walk.  Before it, the walk goes on to the
 * end of the list, and the callback, which returns LRU_STOP as soon as it
 * is done, skips each remaining item at the cost of a comparison.
 */
#define LRU_STOP LRU_SKIP
#endif

#ifdef ASHMEM_HAVE_LIST_LRU_LOCK
#ifndef ASHMEM_HAVE_LIST_LRU_UNLOCK
/* list_lru_unlock() is not exported: what it does to the lock of a walk. */
#define list_lru_unlock(l) spin_unlock(&(l)->lock)
#endif
#else
/*
 * The lock of each list in struct list_lru_one, list_lru_lock() and
 * list_lru_unlock() (7.2; the walk's callback lost its lock argument in
 * 6.13): a walk's callback drops the lock with list_lru_unlock() before it
 * returns LRU_RETRY or LRU_STOP, where before it dropped the lock it was
 * given and took it again.  The walks below give ashmem's callbacks the
 * lock through a trampoline, which takes the lock again for the walk when
 * the callback dropped it.  The callback finds its walk on its CPU: the
 * walk holds a spinlock until the callback drops it.
 */
typedef enum lru_status (*ashmem_compat_walk_cb)(struct list_head *item,
						 struct list_lru_one *list,
						 void *arg);

struct ashmem_compat_walk {
	ashmem_compat_walk_cb isolate;
	void *arg;
	spinlock_t *lock;	/* the walk's: held, but where unlocked says */
	bool unlocked;
};

static DEFINE_PER_CPU(struct ashmem_compat_walk *, ashmem_compat_walk);

static enum lru_status ashmem_compat_isolate(struct list_head *item,
					     struct list_lru_one *list,
					     spinlock_t *lock, void *cookie)
{
	struct ashmem_compat_walk *walk = cookie;
	enum lru_status ret;

	walk->lock = lock;
	walk->unlocked = false;
	this_cpu_write(ashmem_compat_walk, walk);
	ret = walk->isolate(item, list, walk->arg);
	if (walk->unlocked)
		spin_lock(lock);
	return ret;
}

static inline void ashmem_compat_list_lru_unlock(struct list_lru_one *list)
{
	struct ashmem_compat_walk *walk = this_cpu_read(ashmem_compat_walk);

	walk->unlocked = true;
	spin_unlock(walk->lock);
}

static inline unsigned long
ashmem_compat_list_lru_walk_one(struct list_lru *lru, int nid,
				struct mem_cgroup *memcg,
				ashmem_compat_walk_cb isolate, void *arg,
				unsigned long *nr_to_walk)
{
	struct ashmem_compat_walk walk = { .isolate = isolate, .arg = arg };

	return list_lru_walk_one(lru, nid, memcg, ashmem_compat_isolate,
				 &walk, nr_to_walk);
}

static inline unsigned long
ashmem_compat_list_lru_walk_node(struct list_lru *lru, int nid,
				 ashmem_compat_walk_cb isolate, void *arg,
				 unsigned long *nr_to_walk)
{
	struct ashmem_compat_walk walk = { .isolate = isolate, .arg = arg };

	return list_lru_walk_node(lru, nid, ashmem_compat_isolate, &walk,
				  nr_to_walk);
}

#define list_lru_unlock ashmem_compat_list_lru_unlock
#define list_lru_walk_one ashmem_compat_list_lru_walk_one
#define list_lru_walk_node ashmem_compat_list_lru_walk_node
#endif

#ifndef ASHMEM_HAVE_LIST_LRU_ADD_OBJ
/*
 * list_lru_add() and list_lru_del() on the list of a given node and memory
 * cgroup (6.8).  Before, they take both from the item's own memory: the
 * node of its page and the cgroup its slab object is charged to, which for
 * ashmem is where and by whom the range was allocated, not where its pages
 * are.  These are 6.8's functions on the structures of <linux/list_lru.h>,
 * with list_lru_from_memcg_idx() (static) and set_shrinker_bit() (not
 * exported) as 6.1 has them: the lists, the counts and the shrinker's bit
 * in the cgroup are the same as with 6.1's own list_lru_add(), and
 * list_lru's walks, counts and reparenting find the items there.
 */
static inline struct list_lru_one *
ashmem_compat_list_lru_one(struct list_lru *lru, int nid,
			   struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG_KMEM
	int idx = memcg_kmem_id(memcg);
	struct list_lru_memcg *mlru;

	if (lru->memcg_aware && idx >= 0) {
		mlru = xa_load(&lru->xa, idx);
		return mlru ? &mlru->node[nid] : NULL;
	}
#endif
	return &lru->node[nid].lru;
}

static inline void ashmem_compat_set_shrinker_bit(struct list_lru *lru,
						  int nid,
						  struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG_KMEM
	struct shrinker_info *info;

	/* The root cgroup, which a module cannot name, has no parent. */
	if (lru->shrinker_id < 0 || !memcg || !parent_mem_cgroup(memcg))
		return;
	rcu_read_lock();
	info = rcu_dereference(memcg->nodeinfo[nid]->shrinker_info);
	/* Pairs with the barrier in shrink_slab_memcg(). */
	smp_mb__before_atomic();
	set_bit(lru->shrinker_id, info->map);
	rcu_read_unlock();
#endif
}

static inline bool ashmem_compat_list_lru_add(struct list_lru *lru,
					      struct list_head *item, int nid,
					      struct mem_cgroup *memcg)
{
	struct list_lru_node *nlru = &lru->node[nid];
	struct list_lru_one *l;
	bool added = false;

	spin_lock(&nlru->lock);
	if (list_empty(item)) {
		l = ashmem_compat_list_lru_one(lru, nid, memcg);
		list_add_tail(item, &l->list);
		if (!l->nr_items++)
			ashmem_compat_set_shrinker_bit(lru, nid, memcg);
		nlru->nr_items++;
		added = true;
	}
	spin_unlock(&nlru->lock);
	return added;
}

static inline bool ashmem_compat_list_lru_del(struct list_lru *lru,
					      struct list_head *item, int nid,
					      struct mem_cgroup *memcg)
{
	struct list_lru_node *nlru = &lru->node[nid];
	struct list_lru_one *l;
	bool deleted = false;

	spin_lock(&nlru->lock);
	if (!list_empty(item)) {
		l = ashmem_compat_list_lru_one(lru, nid, memcg);
		list_del_init(item);
		l->nr_items--;
		nlru->nr_items--;
		deleted = true;
	}
	spin_unlock(&nlru->lock);
	return deleted;
}

#define list_lru_add ashmem_compat_list_lru_add
#define list_lru_del ashmem_compat_list_lru_del

/*
 * With kmem accounting off (cgroup.memory=nokmem) list_lru puts every
 * cgroup's items on the lists of the root.  6.12's list_lru then says it
 * is not cgroup aware, which ashmem_lru_shared() goes by; 6.1's says it
 * is, and a cgroup would be flagged for the shrinker only when a node's
 * list gets its first range, and its reclaim would purge any cgroup's.
 * 6.1 does not export mem_cgroup_kmem_disabled(): kmem accounting is off
 * when the kmalloc caches for accounted allocations are the plain ones.
 */
static inline bool ashmem_compat_kmem_disabled(void)
{
	unsigned int i = kmalloc_index(8);

	return kmalloc_caches[KMALLOC_CGROUP][i] ==
	       kmalloc_caches[KMALLOC_NORMAL][i];
}

#undef list_lru_init_memcg
#define list_lru_init_memcg(lru, shrinker) \
	__list_lru_init((lru), !ashmem_compat_kmem_disabled(), NULL, (shrinker))
#endif

#ifndef ASHMEM_HAVE_SHRINKER_ALLOC
/*
 * shrinker_alloc(), shrinker_register() and shrinker_free() (6.7).  Before,
 * a memory-cgroup-aware list_lru needs its shrinker's id, which only
 * register_shrinker() gives out (prealloc_shrinker() is not exported), as
 * it makes the shrinker live.  So shrinker_alloc() registers a shrinker of
 * its own whose callbacks answer nothing until shrinker_register() hands
 * over to those of the shrinker the caller filled in.
 */
struct ashmem_compat_shrinker {
	struct shrinker shrinker;	/* the caller's */
	struct shrinker live;		/* registered */
	bool registered;
};

static inline struct ashmem_compat_shrinker *
ashmem_compat_shrinker_of(struct shrinker *live)
{
	return container_of(live, struct ashmem_compat_shrinker, live);
}

static inline unsigned long
ashmem_compat_shrink_count(struct shrinker *live, struct shrink_control *sc)
{
	struct ashmem_compat_shrinker *s = ashmem_compat_shrinker_of(live);

	/* Pairs with ashmem_compat_shrinker_register(). */
	if (!smp_load_acquire(&s->registered))
		return 0;
	return s->shrinker.count_objects(&s->shrinker, sc);
}

static inline unsigned long
ashmem_compat_shrink_scan(struct shrinker *live, struct shrink_control *sc)
{
	struct ashmem_compat_shrinker *s = ashmem_compat_shrinker_of(live);

	/* Pairs with ashmem_compat_shrinker_register(). */
	if (!smp_load_acquire(&s->registered))
		return SHRINK_STOP;
	return s->shrinker.scan_objects(&s->shrinker, sc);
}

static inline struct shrinker *ashmem_compat_shrinker_alloc(unsigned int flags,
							    const char *name)
{
	struct ashmem_compat_shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->live.count_objects = ashmem_compat_shrink_count;
	s->live.scan_objects = ashmem_compat_shrink_scan;
	s->live.seeks = DEFAULT_SEEKS;
	s->live.flags = flags;
	if (register_shrinker(&s->live, "%s", name)) {
		kfree(s);
		return NULL;
	}
	s->shrinker.flags = s->live.flags;
#ifdef CONFIG_MEMCG
	s->shrinker.id = s->live.id;
#endif
	return &s->shrinker;
}

static inline void ashmem_compat_shrinker_register(struct shrinker *shrinker)
{
	struct ashmem_compat_shrinker *s =
		container_of(shrinker, struct ashmem_compat_shrinker, shrinker);

	WRITE_ONCE(s->live.seeks, shrinker->seeks);
	WRITE_ONCE(s->live.batch, shrinker->batch);
	/* The callbacks are set before the shrinker calls them. */
	smp_store_release(&s->registered, true);
}

static inline void ashmem_compat_shrinker_free(struct shrinker *shrinker)
{
	struct ashmem_compat_shrinker *s;

	if (!shrinker)
		return;
	s = container_of(shrinker, struct ashmem_compat_shrinker, shrinker);
	/* Waits for the callbacks running, under shrinker_rwsem. */
	unregister_shrinker(&s->live);
	kfree(s);
}

#define shrinker_alloc ashmem_compat_shrinker_alloc
#define shrinker_register ashmem_compat_shrinker_register
#define shrinker_free ashmem_compat_shrinker_free
#endif

#ifndef ASHMEM_HAVE_MMAP_PREPARE
/*
 * ->mmap_prepare() and struct vm_area_desc (6.16), with the VMA flags as
 * a vma_flags_t (7.0): before, ->mmap() sets up the vma itself.  ashmem's
 * ->mmap_prepare() runs on a descriptor of the vma, and its ->mmap() then
 * writes back what the descriptor may change: the flags ashmem clears and
 * the file and vm_ops of a shared mapping.  ashmem_mmap_prepare() (the
 * macro, followed by a parenthesis) renames ashmem's function, while the
 * name alone, in its file_operations, is the ->mmap() below.
 */
struct vm_area_desc {
	struct file *file;
	unsigned long start;
	unsigned long end;
	pgoff_t pgoff;
	struct file *vm_file;
	vma_flags_t vma_flags;
	const struct vm_operations_struct *vm_ops;
};

static inline unsigned long vma_desc_pages(const struct vm_area_desc *desc)
{
	return (desc->end - desc->start) >> PAGE_SHIFT;
}

#define vma_desc_test(desc, bit) (!!((desc)->vma_flags & (bit)))
#define vma_desc_test_any_mask(desc, flags) (!!((desc)->vma_flags & (flags)))
#define vma_desc_clear_flags_mask(desc, flags) ((desc)->vma_flags &= ~(flags))
#define vma_desc_set_anonymous(desc) ((desc)->vm_ops = NULL)

static int ashmem_compat_mmap_prepare(struct vm_area_desc *desc);

static int ashmem_mmap_prepare(struct file *file, struct vm_area_struct *vma)
{
	struct vm_area_desc desc = {
		.file		= file,
		.start		= vma->vm_start,
		.end		= vma->vm_end,
		.pgoff		= vma->vm_pgoff,
		.vm_file	= file,
		.vma_flags	= vma->vm_flags,
		.vm_ops		= vma->vm_ops,
	};
	int ret;

	ret = ashmem_compat_mmap_prepare(&desc);
	if (ret)
		return ret;
	vm_flags_clear(vma, vma->vm_flags & ~desc.vma_flags);
	if (desc.vm_file != file)
		shmem_set_file(vma, desc.vm_file);
	else
		vma->vm_ops = desc.vm_ops;
	return 0;
}

static inline void ashmem_compat_desc_set_file(struct vm_area_desc *desc,
					       struct file *file)
{
	desc->vm_file = file;
}

/* The backing file's ->mmap_prepare() refuses whatever it is given. */
static int ashmem_compat_backing_mmap_prepare(struct vm_area_desc *desc);

static int ashmem_backing_mmap_prepare(struct file *file,
				       struct vm_area_struct *vma)
{
	struct vm_area_desc desc = { .file = file, .vm_file = file };

	return ashmem_compat_backing_mmap_prepare(&desc);
}

#undef shmem_set_file
#define shmem_set_file ashmem_compat_desc_set_file
#define ashmem_mmap_prepare(desc) ashmem_compat_mmap_prepare(desc)
#define ashmem_backing_mmap_prepare(desc) \
	ashmem_compat_backing_mmap_prepare(desc)
#define mmap_prepare mmap
#endif

#endif /* _ASHMEM_COMPAT_H */
