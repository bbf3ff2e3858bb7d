// SPDX-License-Identifier: GPL-2.0
/*
 * Purging beats the OOM killer.  Each shape fills ashmem areas, unpins
 * them, then makes a process allocate anonymous memory until it holds what
 * was available plus half of the unpinned pages: with no swap and nothing
 * else to reclaim, only purging can give it that memory.  A run passes if
 * nothing is OOM-killed (/proc/vmstat oom_kill unchanged), every pinned
 * page kept its data, every unpinned page is intact or zero, and PIN
 * reports ASHMEM_WAS_PURGED exactly for the pages that were lost.  In a
 * memory cgroup, its memory.events must not count an OOM kill either.
 *
 * Shapes: one big range, pressure from the area's owner itself or from
 * another process; many small ranges; several processes with an area each;
 * all of it inside a memory cgroup at its memory.max; and on a NUMA
 * machine, pages and pressure bound to node 1.  Then the shapes where the
 * pages are charged elsewhere than where the area was made, each with the
 * pressure from a process at its cgroup's memory.max: an area created and
 * mapped in another cgroup (its pages unpinned by their filler, or by the
 * creator) or in the root cgroup, and filled by that process; one area
 * charged half to another cgroup; a process that pins every other page
 * of its unpinned area, splitting a range with each PIN.  Last, an area
 * interleaved over nodes 0 and 1 under pressure bound to node 1, and an
 * area that another thread pins, checks and unpins in a loop all through
 * the pressure.
 *
 * ASHMEM_RECLAIM_RUNS (default 2) sets the runs per shape; `make soak`
 * runs many.  Needs root for the cgroup shapes, two memory nodes for the
 * NUMA shapes, and no swap (with swap, reclaim may swap instead of purge).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/mempolicy.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define MIB		((size_t)1 << 20)
#define CG_RECLAIM	CG_ROOT "/ashmem_reclaim"
#define CG_OTHER	CG_ROOT "/ashmem_reclaim_other"	/* no limit */
#define MAX_OWNERS	4
#define PINNED_MB	4		/* pinned head of every area */
#define STRIPE_PAGES	16		/* many-small-ranges shape */
#define BUSY_PAGES	16		/* the busy thread's window */
#define NUMA_NODE	1

enum shape_flags {
	SELF_PRESSURE	= 1 << 0,	/* the owner allocates, not a hog */
	STRIPES		= 1 << 1,	/* unpin every other 64 KiB */
	IN_CGROUP	= 1 << 2,	/* owners and hog under memory.max */
	ON_NODE		= 1 << 3,	/* pages and pressure on NUMA_NODE */
	MADE_ELSEWHERE	= 1 << 4,	/* created and mapped in CG_OTHER */
	MADE_IN_ROOT	= 1 << 5,	/* created and mapped in the root cgroup */
	CREATOR_UNPINS	= 1 << 6,	/* the creator unpins, in its cgroup */
	HALF_ELSEWHERE	= 1 << 7,	/* the creator fills half of what is unpinned */
	SPLITS		= 1 << 8,	/* the owner pins every other unpinned page */
	INTERLEAVED	= 1 << 9,	/* pages on nodes 0 and 1, pressure on NUMA_NODE */
	BUSY		= 1 << 10,	/* a thread pins and unpins during the pressure */
};

#define MADE_BY_CREATOR	(MADE_ELSEWHERE | MADE_IN_ROOT)

/* What an owner reports once it has pinned its area again. */
struct report {
	long long purged;	/* fdinfo "purged" before the PINs */
	size_t pin_wrong;	/* pages whose PIN said otherwise than their data */
	size_t garbled;		/* pages neither intact nor zero */
	size_t zeroed;		/* unpinned pages read back as zero */
	size_t pinned_lost;	/* pinned pages that lost their data */
	size_t foreign_lost;	/* pages charged to CG_OTHER that were purged */
	unsigned long busy_rounds;	/* PIN/UNPIN rounds of the busy thread */
	unsigned long busy_refills;	/* windows it found purged */
	unsigned long busy_wrong;	/* its ioctls that answered wrong */
	int error;		/* a step that failed, 0 if none */
};

struct owner {
	pid_t pid;
	int ready;		/* owner -> parent: set up */
	int go;			/* parent -> owner: hog target, then verify */
	int result;		/* owner -> parent: struct report */
	int fd;			/* the area, if its creator is the parent */
	char *map;		/* and its mapping */
};

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static bool write_full(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len;
}

/* A field of /sys/devices/system/node/nodeN/meminfo, in KiB, or -1. */
static long node_meminfo_kb(int node, const char *key)
{
	size_t klen = strlen(key);
	char path[PATH_MAX], line[256], *p;
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, key);
		if (p && p[klen] == ':') {
			kb = strtol(p + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

static int bind_to_node(int node)
{
	unsigned long mask[2] = { 0 };

	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
	return syscall(SYS_set_mempolicy, MPOL_BIND, mask,
		       8 * sizeof(mask) + 1);
}

/* The pages at @map, from one page to the next, on nodes 0 and 1. */
static int interleave(void *map, size_t len)
{
	unsigned long mask[2] = { 0x3 };

	return syscall(SYS_mbind, map, len, MPOL_INTERLEAVE, mask,
		       8 * sizeof(mask) + 1, 0);
}

/* Pages of the mapping at @map that are on @node (numa_maps), or -1. */
static long node_pages(const void *map, int node)
{
	char line[4096], key[16], *p;
	unsigned long start;
	long n = -1;
	FILE *f;

	f = fopen("/proc/self/numa_maps", "re");
	if (!f)
		return -1;
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx ", &start) != 1 ||
		    start != (uintptr_t)map)
			continue;
		p = strstr(line, key);
		n = p ? strtol(p + strlen(key), NULL, 10) : 0;
		break;
	}
	fclose(f);
	return n;
}

static long long cg_num(const char *file)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s", CG_RECLAIM, file);
	if (read_small(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * Allocate anonymous memory 1 MiB at a time, touching every page, until
 * @target bytes are held; the memory stays until the process exits.
 */
static int hog(size_t target)
{
	size_t held;

	for (held = 0; held < target; held += MIB) {
		char *p = mmap(NULL, MIB, PROT_RW,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (p == MAP_FAILED)
			return -1;
		for (i = 0; i < MIB; i += pages(1))
			p[i] = 1;
	}
	return 0;
}

/* Unpin what the shape unpins; returns the number of pages unpinned. */
static long long unpin_area(int fd, size_t npages, unsigned int flags)
{
	size_t first = PINNED_MB * MIB / pages(1), i;
	long long unpinned = 0;

	if (!(flags & STRIPES)) {
		if (pin_pages(fd, ASHMEM_UNPIN, first, npages - first))
			return -1;
		return npages - first;
	}
	for (i = first; i + STRIPE_PAGES <= npages; i += 2 * STRIPE_PAGES) {
		if (pin_pages(fd, ASHMEM_UNPIN, i, STRIPE_PAGES))
			return -1;
		unpinned += STRIPE_PAGES;
	}
	return unpinned;
}

static bool page_unpinned(size_t i, unsigned int flags)
{
	size_t first = PINNED_MB * MIB / pages(1);

	if (i < first)
		return false;
	return !(flags & STRIPES) || (i - first) % (2 * STRIPE_PAGES) < STRIPE_PAGES;
}

/*
 * With HALF_ELSEWHERE the creator fills the pinned head and the first
 * half of what is unpinned, in CG_OTHER; the owner fills the rest.
 */
static size_t owner_first_page(size_t npages, unsigned int flags)
{
	size_t first = PINNED_MB * MIB / pages(1);

	if (!(flags & HALF_ELSEWHERE))
		return 0;
	return first + (npages - first) / 2;
}

/* Fills pages [@first, @first + @n) as fill_pages() fills a whole area. */
static void fill_from(char *map, size_t first, size_t n)
{
	size_t i;

	for (i = first; i < first + n; i++)
		memset(map + pages(i), page_byte(i), pages(1));
}

/* Bytes of an area that the pressure may purge for itself. */
static size_t purgeable(size_t area, unsigned int flags)
{
	size_t unpinned = area - PINNED_MB * MIB;

	/* Every other stripe; the owner's half; the half on NUMA_NODE. */
	if (flags & (STRIPES | HALF_ELSEWHERE | INTERLEAVED))
		unpinned /= 2;
	return unpinned;
}

/*
 * Pin the area again one page at a time, from its start (pinning the
 * first page of a range splits nothing), and check each page against
 * what its PIN said, in @said[i] if it was pinned before (-1 if not).
 * Reading through the fd shows a hole as zeroes; touching it through the
 * mapping would allocate a page for it, under the very pressure the run
 * made.
 */
static int verify_area(int fd, size_t npages, unsigned int flags,
		       signed char *said, struct report *r)
{
	size_t foreign = owner_first_page(npages, flags), i;
	char *page = malloc(pages(1));
	int ret = -1;

	if (!page)
		return -1;
	for (i = 0; i < npages; i++) {
		bool intact, zero;

		if (said[i] < 0)
			said[i] = pin_pages(fd, ASHMEM_PIN, i, 1);
		if (said[i] < 0 ||
		    pread(fd, page, pages(1), pages(i)) != (ssize_t)pages(1))
			goto out;
		intact = all_bytes(page, page_byte(i), pages(1));
		zero = !intact && all_bytes(page, 0, pages(1));
		if (!page_unpinned(i, flags)) {
			r->pinned_lost += !intact;
			r->pin_wrong += said[i] != ASHMEM_NOT_PURGED;
			continue;
		}
		r->zeroed += zero;
		r->garbled += !intact && !zero;
		r->foreign_lost += zero && i < foreign;
		r->pin_wrong += said[i] != (zero ? ASHMEM_WAS_PURGED :
						   ASHMEM_NOT_PURGED);
	}
	ret = 0;
out:
	free(page);
	return ret;
}

/*
 * The busy thread: pins a window of BUSY_PAGES, fills it again if PIN says
 * it was purged, checks it is pinned, unpins it and checks it is unpinned,
 * one window after another through the area's unpinned pages, until
 * told to stop.  Each PIN in the middle of a range splits it, each UNPIN
 * merges it back.  A window it fills again is no longer purged: the
 * purges it saw count apart.
 */
struct busy {
	pthread_t thread;
	int fd;
	char *map;
	size_t first, npages;	/* the pages it walks through */
	bool stop;
	unsigned long rounds, refills, wrong;
};

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	size_t w = 0;

	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		size_t i = b->first + w;
		int ret = pin_pages(b->fd, ASHMEM_PIN, i, BUSY_PAGES);

		if (ret == ASHMEM_WAS_PURGED) {
			fill_from(b->map, i, BUSY_PAGES);
			b->refills++;
		}
		b->wrong += ret != ASHMEM_WAS_PURGED && ret != ASHMEM_NOT_PURGED;
		b->wrong += pin_pages(b->fd, ASHMEM_GET_PIN_STATUS, i,
				      BUSY_PAGES) != ASHMEM_IS_PINNED;
		b->wrong += pin_pages(b->fd, ASHMEM_UNPIN, i, BUSY_PAGES) != 0;
		b->wrong += pin_pages(b->fd, ASHMEM_GET_PIN_STATUS, i,
				      BUSY_PAGES) != ASHMEM_IS_UNPINNED;
		b->rounds++;
		w = (w + BUSY_PAGES) % (b->npages - b->first - BUSY_PAGES);
	}
	return NULL;
}

/* Pins every other page of what unpin_area() unpinned, each PIN a split. */
static int pin_every_other(int fd, size_t npages, signed char *said)
{
	size_t i;

	for (i = PINNED_MB * MIB / pages(1); i < npages; i += 2) {
		said[i] = pin_pages(fd, ASHMEM_PIN, i, 1);
		if (said[i] < 0)
			return -1;
	}
	return 0;
}

/*
 * An owner: fills an area of @size bytes (its own, or o->fd made by the
 * parent), unpins it (unless its creator does), tells the parent, waits
 * for the word; with SELF_PRESSURE it then allocates the target the
 * parent sends, otherwise the target is 0.  Then it pins the area again,
 * checks every page and reports.
 */
static void __noreturn owner_main(struct owner *o, size_t size,
				  unsigned int flags)
{
	size_t npages = size / pages(1), target, first;
	struct busy busy = { .stop = false };
	struct report r = { 0 };
	signed char *said;
	char *p = o->map;
	int fd = o->fd;

	said = malloc(npages);
	if (!said ||
	    ((flags & IN_CGROUP) && cg_enter(CG_RECLAIM)) ||
	    ((flags & ON_NODE) && bind_to_node(NUMA_NODE))) {
		r.error = 1;
		goto out;
	}
	memset(said, -1, npages);
	if (fd < 0) {
		fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);
		p = fd < 0 ? MAP_FAILED : area_map(fd, size, PROT_RW, MAP_SHARED);
	}
	if (p == MAP_FAILED ||
	    ((flags & INTERLEAVED) && interleave(p, size))) {
		r.error = 2;
		goto out;
	}
	first = owner_first_page(npages, flags);
	fill_from(p, first, npages - first);
	if (!(flags & CREATOR_UNPINS) && unpin_area(fd, npages, flags) < 0) {
		r.error = 3;
		goto out;
	}
	/* Both nodes hold about half of the area, or the shape is not there. */
	if ((flags & INTERLEAVED) &&
	    (node_pages(p, 0) < (long)npages / 4 ||
	     node_pages(p, NUMA_NODE) < (long)npages / 4)) {
		r.error = 7;
		goto out;
	}
	if (flags & BUSY) {
		busy = (struct busy){
			.fd = fd, .map = p, .npages = npages,
			.first = PINNED_MB * MIB / pages(1),
		};
		if (pthread_create(&busy.thread, NULL, busy_main, &busy)) {
			r.error = 8;
			goto out;
		}
	}
	if (!write_full(o->ready, "r", 1) ||
	    !read_full(o->go, &target, sizeof(target))) {
		r.error = 4;
		goto out;
	}
	if (target && hog(target)) {
		r.error = 5;
		goto out;
	}
	if ((flags & SPLITS) && pin_every_other(fd, npages, said)) {
		r.error = 9;
		goto out;
	}
	if (flags & BUSY) {
		__atomic_store_n(&busy.stop, true, __ATOMIC_RELAXED);
		pthread_join(busy.thread, NULL);
		r.busy_rounds = busy.rounds;
		r.busy_refills = busy.refills;
		r.busy_wrong = busy.wrong;
	}
	r.purged = fdinfo_num(fd, "purged");
	if (verify_area(fd, npages, flags, said, &r))
		r.error = 6;
out:
	write_full(o->result, &r, sizeof(r));
	_exit(0);
}

/*
 * The area of an owner whose creator is the parent: made and mapped in
 * CG_OTHER or in the root cgroup, with HALF_ELSEWHERE filled there in part.
 */
static int creator_area(struct owner *o, size_t size, unsigned int flags,
			const char *home)
{
	const char *cg = flags & MADE_IN_ROOT ? CG_ROOT : CG_OTHER;
	size_t npages = size / pages(1);

	o->fd = area_mapped_in(cg, home, size, &o->map);
	if (o->fd < 0)
		return -1;
	if (flags & HALF_ELSEWHERE) {
		if (cg_enter(cg))
			return -1;
		fill_from(o->map, 0, owner_first_page(npages, flags));
		if (cg_enter(home))
			return -1;
	}
	return 0;
}

static int start_owner(struct owner *o, size_t size, unsigned int flags)
{
	int ready[2], go[2], result[2];

	if (pipe(ready) || pipe(go) || pipe(result))
		return -1;
	o->pid = fork_child();
	if (o->pid < 0)
		return -1;
	if (o->pid == 0) {
		close(ready[0]);
		close(go[1]);
		close(result[0]);
		o->ready = ready[1];
		o->go = go[0];
		o->result = result[1];
		owner_main(o, size, flags);
	}
	close(ready[1]);
	close(go[0]);
	close(result[1]);
	o->ready = ready[0];
	o->go = go[1];
	o->result = result[0];
	return 0;
}

static void close_owner(struct owner *o, size_t size)
{
	close(o->ready);
	close(o->go);
	close(o->result);
	if (o->fd >= 0) {
		munmap(o->map, size);
		close(o->fd);
	}
}

/* A hog process: allocates @target bytes, exits 0 once it holds them. */
static pid_t start_hog(size_t target, unsigned int flags)
{
	pid_t pid = fork_child();

	if (pid != 0)
		return pid;
	if (((flags & IN_CGROUP) && cg_enter(CG_RECLAIM)) ||
	    ((flags & (ON_NODE | INTERLEAVED)) && bind_to_node(NUMA_NODE)))
		_exit(2);
	_exit(hog(target) ? 1 : 0);
}

/* Bytes the pressure can still get without purging. */
static size_t headroom(unsigned int flags)
{
	if (flags & IN_CGROUP)
		return cg_num("memory.max") - cg_num("memory.current");
	if (flags & (ON_NODE | INTERLEAVED))
		return node_meminfo_kb(NUMA_NODE, "MemFree") * 1024;
	return meminfo_kb("MemAvailable") * 1024;
}

/* What the pressure reaches: RAM, node 1 or the cgroup's limit. */
static size_t reach(unsigned int flags)
{
	if (flags & IN_CGROUP)
		return cg_num("memory.max");
	if (flags & (ON_NODE | INTERLEAVED))
		return node_meminfo_kb(NUMA_NODE, "MemTotal") * 1024;
	return meminfo_kb("MemTotal") * 1024;
}

struct tally {
	unsigned int runs, oom_runs, memcg_oom_runs, hog_failed, owner_failed;
	unsigned int lost, garbled, pin_wrong, not_purged, foreign_lost;
	unsigned int busy_idle, busy_wrong;
	unsigned long long busy_rounds, busy_refills;
	long long purged_min, purged_max;
	double seconds;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One run of a shape; adds what it saw to @t. */
static void run_once(struct __test_metadata *_metadata, unsigned int flags,
		     unsigned int nr_owners, const char *home, struct tally *t)
{
	size_t area = reach(flags) / 4 / nr_owners, target;
	long long oom_before, memcg_oom_before = 0, purged = 0, refills = 0;
	struct owner owners[MAX_OWNERS];
	double start = now();
	unsigned int i;
	pid_t hog_pid = 0;
	int status;

	/* Interleaved, half of the area is on NUMA_NODE. */
	if (flags & INTERLEAVED)
		area *= 2;
	area = page_align(area);
	oom_before = vm_event("oom_kill");
	ASSERT_LE(0, oom_before);
	if (flags & IN_CGROUP) {
		memcg_oom_before = cg_event(CG_RECLAIM, "oom_kill");
		ASSERT_LE(0, memcg_oom_before);
	}
	for (i = 0; i < nr_owners; i++) {
		owners[i].fd = -1;
		if (flags & MADE_BY_CREATOR)
			ASSERT_EQ(0, creator_area(&owners[i], area, flags, home));
		ASSERT_EQ(0, start_owner(&owners[i], area, flags));
	}
	for (i = 0; i < nr_owners; i++) {
		char c;

		ASSERT_TRUE(read_full(owners[i].ready, &c, 1))
			TH_LOG("owner %u died while setting up", i);
		if (!(flags & CREATOR_UNPINS))
			continue;
		ASSERT_EQ(0, cg_enter(CG_OTHER));
		ASSERT_LE(0, unpin_area(owners[i].fd, area / pages(1), flags));
		ASSERT_EQ(0, cg_enter(home));
	}

	/* Half of what the pressure may purge must be purged to reach the target. */
	target = headroom(flags) + nr_owners * purgeable(area, flags) / 2;

	if (flags & SELF_PRESSURE) {
		ASSERT_TRUE(write_full(owners[0].go, &target, sizeof(target)));
	} else {
		size_t zero = 0;

		hog_pid = start_hog(target, flags);
		ASSERT_LT(0, hog_pid);
		status = wait_child(hog_pid);
		if (status)
			t->hog_failed++;
		for (i = 0; i < nr_owners; i++)
			ASSERT_TRUE(write_full(owners[i].go, &zero, sizeof(zero)));
	}

	for (i = 0; i < nr_owners; i++) {
		struct report r;
		bool got = read_full(owners[i].result, &r, sizeof(r));

		status = wait_child(owners[i].pid);
		close_owner(&owners[i], area);
		if (!got || status || r.error) {
			t->owner_failed++;
			TH_LOG("run %u owner %u: status %d, step %d", t->runs, i,
			       status, got ? r.error : -1);
			continue;
		}
		t->lost += r.pinned_lost;
		t->garbled += r.garbled;
		t->foreign_lost += r.foreign_lost;
		if (r.pin_wrong || (long long)r.zeroed < r.purged)
			t->pin_wrong++;
		if (flags & BUSY) {
			t->busy_idle += !r.busy_rounds;
			t->busy_wrong += r.busy_wrong;
			t->busy_rounds += r.busy_rounds;
			t->busy_refills += r.busy_refills;
			refills += r.busy_refills;
		}
		purged += r.purged;
	}
	if (vm_event("oom_kill") != oom_before)
		t->oom_runs++;
	if ((flags & IN_CGROUP) &&
	    cg_event(CG_RECLAIM, "oom_kill") != memcg_oom_before)
		t->memcg_oom_runs++;
	if (!purged && !refills)
		t->not_purged++;
	if (!t->runs || purged < t->purged_min)
		t->purged_min = purged;
	if (purged > t->purged_max)
		t->purged_max = purged;
	t->seconds += now() - start;
	t->runs++;
}

/*
 * Since 6.7 each CPU's free page lists grow up to an eighth of a zone
 * when a lot is freed: tens of MiB here after earlier tests, which
 * MemFree and MemAvailable leave out.  A hog gets those pages without any
 * purge, or, when they wait on another CPU, does not get them however much
 * is purged.  A fixed small limit on the lists makes headroom() the memory
 * a hog gets without a purge, within a few MiB either way.
 */
#define PCP_FRACTION	"/proc/sys/vm/percpu_pagelist_high_fraction"

FIXTURE(reclaim) {
	char pcp_fraction[32];
	char home[PATH_MAX];	/* the cgroup the test started in */
};

FIXTURE_VARIANT(reclaim) {
	unsigned int flags;
	unsigned int owners;
};

FIXTURE_VARIANT_ADD(reclaim, big_range_owner_pressure) {
	.flags = SELF_PRESSURE,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, big_range_other_pressure) {
	.flags = 0,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, small_ranges) {
	.flags = STRIPES,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, several_processes) {
	.flags = 0,
	.owners = MAX_OWNERS,
};

FIXTURE_VARIANT_ADD(reclaim, cgroup_limit) {
	.flags = IN_CGROUP,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, numa_node1) {
	.flags = ON_NODE,
	.owners = 1,
};

/* Created and mapped in another cgroup; filled, unpinned by the filler. */
FIXTURE_VARIANT_ADD(reclaim, filled_elsewhere) {
	.flags = IN_CGROUP | SELF_PRESSURE | MADE_ELSEWHERE,
	.owners = 1,
};

/* The same, unpinned by the creator in its own cgroup. */
FIXTURE_VARIANT_ADD(reclaim, unpinned_elsewhere) {
	.flags = IN_CGROUP | SELF_PRESSURE | MADE_ELSEWHERE | CREATOR_UNPINS,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, created_in_root) {
	.flags = IN_CGROUP | SELF_PRESSURE | MADE_IN_ROOT,
	.owners = 1,
};

/* Half of the unpinned pages charged to another cgroup, one range. */
FIXTURE_VARIANT_ADD(reclaim, two_cgroups) {
	.flags = IN_CGROUP | SELF_PRESSURE | MADE_ELSEWHERE | HALF_ELSEWHERE,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, splits_at_limit) {
	.flags = IN_CGROUP | SELF_PRESSURE | SPLITS,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, interleaved) {
	.flags = INTERLEAVED,
	.owners = 1,
};

FIXTURE_VARIANT_ADD(reclaim, busy_area) {
	.flags = BUSY,
	.owners = 1,
};

FIXTURE_SETUP(reclaim)
{
	int fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		SKIP(return, "%s: %s", ASHMEM_DEV, strerror(errno));
	close(fd);
	if (swap_on())
		SKIP(return, "swap is on: reclaim may swap instead of purging");
	if ((variant->flags & (ON_NODE | INTERLEAVED)) &&
	    node_meminfo_kb(NUMA_NODE, "MemTotal") <= 0)
		SKIP(return, "needs memory on NUMA node %d", NUMA_NODE);
	if (variant->flags & IN_CGROUP) {
		char limit[32];

		if (!cgroup2_memory() ||
		    write_str(CG_ROOT "/cgroup.subtree_control", "+memory"))
			SKIP(return, "needs cgroup2 with the memory controller");
		ASSERT_EQ(0, cg_self(self->home, sizeof(self->home)));
		rmdir(CG_RECLAIM);
		ASSERT_EQ(0, mkdir(CG_RECLAIM, 0755));
		rmdir(CG_OTHER);
		ASSERT_EQ(0, mkdir(CG_OTHER, 0755));
		/* A quarter of RAM: the cgroup, not the machine, runs short. */
		snprintf(limit, sizeof(limit), "%ld",
			 meminfo_kb("MemTotal") * 1024 / 4);
		ASSERT_EQ(0, write_str(CG_RECLAIM "/memory.max", limit));
	}
	/* Last: the teardown that restores it runs once the setup is done. */
	if (!read_small(PCP_FRACTION, self->pcp_fraction,
			sizeof(self->pcp_fraction)))
		ASSERT_EQ(0, write_str(PCP_FRACTION, "1000000"));
}

FIXTURE_TEARDOWN(reclaim)
{
	if (self->pcp_fraction[0])
		write_file(PCP_FRACTION, self->pcp_fraction);
	if (variant->flags & IN_CGROUP) {
		rmdir(CG_RECLAIM);
		rmdir(CG_OTHER);
	}
}

TEST_F_TIMEOUT(reclaim, purge_beats_oom_killer, 7200)
{
	const char *env = getenv("ASHMEM_RECLAIM_RUNS");
	unsigned int runs = env ? strtoul(env, NULL, 10) : 2, i;
	struct tally t = { 0 };

	for (i = 0; i < runs; i++)
		run_once(_metadata, variant->flags, variant->owners, self->home,
			 &t);

	ksft_print_msg("%s: %u runs, %u with an OOM kill, %u of them in the cgroup\n",
		       _metadata->name, t.runs, t.oom_runs, t.memcg_oom_runs);
	ksft_print_msg("%s: %u hog failures, %u owner failures\n",
		       _metadata->name, t.hog_failed, t.owner_failed);
	ksft_print_msg("%s: purged %lld-%lld pages a run, %.1f s a run\n",
		       _metadata->name, t.purged_min, t.purged_max,
		       t.runs ? t.seconds / t.runs : 0);
	if (variant->flags & BUSY)
		ksft_print_msg("%s: the busy thread: %llu rounds, %llu windows found purged\n",
			       _metadata->name, t.busy_rounds, t.busy_refills);
	EXPECT_EQ(0, t.oom_runs) TH_LOG("OOM kills while unpinned ashmem was resident");
	EXPECT_EQ(0, t.memcg_oom_runs) TH_LOG("the cgroup's memory.events counts OOM kills");
	EXPECT_EQ(0, t.hog_failed) TH_LOG("the memory pressure did not get its memory");
	EXPECT_EQ(0, t.owner_failed);
	EXPECT_EQ(0, t.lost) TH_LOG("pinned pages lost their data");
	EXPECT_EQ(0, t.garbled) TH_LOG("unpinned pages neither intact nor zero");
	EXPECT_EQ(0, t.pin_wrong) TH_LOG("PIN's answer does not match the purge");
	EXPECT_EQ(0, t.not_purged) TH_LOG("a run purged nothing");
	EXPECT_EQ(0, t.foreign_lost) TH_LOG("the cgroup's reclaim purged another cgroup's pages");
	EXPECT_EQ(0, t.busy_idle) TH_LOG("the busy thread did not run");
	EXPECT_EQ(0, t.busy_wrong) TH_LOG("the busy thread's ioctls answered wrong");
}

TEST_HARNESS_MAIN
