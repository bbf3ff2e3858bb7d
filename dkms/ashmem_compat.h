/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ashmem_compat.h: stand-ins for what mm/ashmem.c needs from mm and a stock
 * kernel lacks, for the out-of-tree (DKMS) build of the same ashmem.c.
 * Kbuild force-includes this file (-include) ahead of ashmem.c.
 *
 * ashmem's patch series adds a few small helpers to mm.  For each one,
 * Kbuild defines ASHMEM_HAVE_<NAME> if the kernel it builds against has it
 * (a kernel with the series applied): an exported function in the kernel's
 * Module.symvers, a static inline one in its header.  Otherwise the
 * fallback below takes over the name with a macro, so that ashmem.c calls
 * it unchanged.  Each fallback says what it costs compared with the helper
 * it replaces.
 *
 * Adding one: its name to ASHMEM_COMPAT_SYMS (exported) or
 * ASHMEM_COMPAT_INLINES (HEADER:NAME) in Kbuild, and here the kernel header
 * that would declare it, the fallback and the #define.
 */
#ifndef _ASHMEM_COMPAT_H
#define _ASHMEM_COMPAT_H

#include <linux/fs.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/swap.h>

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
				      unsigned long flags)
{
	struct file *file = shmem_kernel_file_setup(name, size, flags);

	if (!IS_ERR(file))
		WRITE_ONCE(ashmem_compat_shmem_fops, file->f_op);
	return file;
}

#define shmem_kernel_file_setup ashmem_compat_shmem_kernel_file_setup

static inline void ashmem_compat_shmem_set_file(struct vm_area_struct *vma,
						struct file *file)
{
	vma_set_file(vma, file);
	/* The caller's reference passes to @vma, which took its own. */
	fput(file);
	WARN_ON_ONCE(READ_ONCE(ashmem_compat_shmem_fops)->mmap(file, vma));
}

#define shmem_set_file ashmem_compat_shmem_set_file
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

#ifndef ASHMEM_HAVE_MM_ACCOUNT_RECLAIMED_MEMCG_PAGES
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

#endif /* _ASHMEM_COMPAT_H */
