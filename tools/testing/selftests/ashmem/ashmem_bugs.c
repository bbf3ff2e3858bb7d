// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducers of bugs Android's ashmem had that are not ABI edges (those
 * are in ashmem_test), one test per bug.  Races and deadlocks run in a
 * child with a watchdog, so that a hang is a failure, not a timeout.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

/* Each test makes its own areas: the set-up only skips without ashmem. */
FIXTURE(ashmem_bug) {
};

FIXTURE_SETUP(ashmem_bug)
{
	int fd = open_area(_metadata, O_RDWR);

	if (fd >= 0)
		close(fd);
}

FIXTURE_TEARDOWN(ashmem_bug)
{
}

/* The first mmap raced by SET_SIZE and the pin ioctls; every round a new area. */
struct racer {
	int fd;
	uint64_t seed;
	int stop;		/* __atomic: set by the main thread */
	int map_started;	/* set before the mmap() call */
	/* pin ioctls */
	unsigned long ops, bad_errno, ok_before_map;
	size_t max_end;		/* end page of successful ops with a length */
	size_t max_start;	/* first page of successful ops with len 0 */
};

static void *size_flipper(void *arg)
{
	struct racer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
		set_size(r->fd, 1 + below(&r->seed, pages(16)));
	return NULL;
}

/*
 * CVE-2017-13216: SET_SIZE did not take the area's lock, so it could change
 * the size while the first mmap created a backing file of the old size, or
 * between mmap's size check and its use; later mappings were checked
 * against the new size and SIGBUSed.
 */
TEST_F_TIMEOUT(ashmem_bug, set_size_races_first_mmap, 120)
{
	int round;

	for (round = 0; round < 100; round++) {
		struct racer r = { .seed = 0x1234567u + round };
		size_t len = pages(1 + round % 16), size, n;
		ssize_t got, total = 0;
		pthread_t thread;
		char buf[4096];
		char *p, *q;

		r.fd = open_area(_metadata, O_RDWR);
		ASSERT_EQ(0, set_size(r.fd, pages(1)));
		ASSERT_EQ(0, pthread_create(&thread, NULL, size_flipper, &r));
		usleep(below(&r.seed, 200));
		/* Until the flipper made the area long enough. */
		do {
			p = map_fd(r.fd, len, PROT_RW, MAP_SHARED, 0);
		} while (p == MAP_FAILED && errno == EINVAL);
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(thread, NULL));
		ASSERT_MAPPED(p);

		/* The size the mapping was checked against is the final one. */
		size = xioctl(r.fd, ASHMEM_GET_SIZE, 0);
		n = page_align(size) / pages(1);
		EXPECT_LE(len, pages(n)) TH_LOG("round %d: size %zu", round, size);
		EXPECT_EQ(-1, touch_pages(p, len / pages(1), true));
		munmap(p, len);
		EXPECT_EQ((off_t)size, lseek(r.fd, 0, SEEK_END))
			TH_LOG("round %d: backing file size differs from GET_SIZE", round);
		EXPECT_EQ((long long)size, fdinfo_num(r.fd, "size"));
		EXPECT_ERRNO(EINVAL, set_size(r.fd, pages(2)));
		EXPECT_EQ((long)size, xioctl(r.fd, ASHMEM_GET_SIZE, 0));

		/* All of PAGE_ALIGN(size) maps and every page is there. */
		EXPECT_ERRNO(EINVAL, map_fd(r.fd, pages(n + 1), PROT_RW, MAP_SHARED, 0));
		q = map_fd_checked(_metadata, r.fd, pages(n), PROT_RW, MAP_SHARED, 0);
		EXPECT_EQ(-1, touch_pages(q, n, true))
			TH_LOG("round %d: size %zu, a page faulted", round, size);
		munmap(q, pages(n));
		EXPECT_EQ(0, lseek(r.fd, 0, SEEK_SET));
		while ((got = read(r.fd, buf, sizeof(buf))) > 0)
			total += got;
		EXPECT_EQ((ssize_t)size, total);
		close(r.fd);
	}
}

static void *pin_hammer(void *arg)
{
	static const unsigned long cmds[] = {
		ASHMEM_PIN, ASHMEM_UNPIN, ASHMEM_GET_PIN_STATUS,
	};
	struct racer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		size_t first = below(&r->seed, 20);
		size_t n = below(&r->seed, 20);
		int ret;

		ret = pin_pages(r->fd, cmds[below(&r->seed, 3)], first, n);
		r->ops++;
		if (ret < 0) {
			if (errno != EINVAL)
				r->bad_errno++;
			continue;
		}
		/* Success while mmap() had not even begun: impossible. */
		if (!__atomic_load_n(&r->map_started, __ATOMIC_ACQUIRE))
			r->ok_before_map++;
		if (n && first + n > r->max_end)
			r->max_end = first + n;
		if (!n && first + 1 > r->max_start)
			r->max_start = first + 1;
	}
	return NULL;
}

/*
 * The pin ioctls read the size and the backing file without the lock
 * SET_SIZE and mmap take, so a PIN racing the first mmap could check the
 * range against one size and record it against another.
 */
TEST_F_TIMEOUT(ashmem_bug, pin_races_mmap_and_set_size, 120)
{
	int round;

	for (round = 0; round < 60; round++) {
		struct racer sizer = { .seed = 0xabcdef1u + round };
		struct racer pinner = { .seed = 0x7654321u + round };
		pthread_t t1, t2;
		size_t size, n;
		char *p;

		sizer.fd = open(ASHMEM_DEV, O_RDWR);
		pinner.fd = sizer.fd;
		ASSERT_LE(0, sizer.fd);
		ASSERT_EQ(0, set_size(sizer.fd, pages(1)));
		ASSERT_EQ(0, pthread_create(&t1, NULL, size_flipper, &sizer));
		ASSERT_EQ(0, pthread_create(&t2, NULL, pin_hammer, &pinner));
		usleep(below(&sizer.seed, 500));
		__atomic_store_n(&pinner.map_started, 1, __ATOMIC_RELEASE);
		p = map_fd(sizer.fd, pages(1), PROT_RW, MAP_SHARED, 0);
		__atomic_store_n(&sizer.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(t1, NULL));
		usleep(2000);
		__atomic_store_n(&pinner.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(t2, NULL));
		ASSERT_MAPPED(p);
		munmap(p, pages(1));

		size = xioctl(sizer.fd, ASHMEM_GET_SIZE, 0);
		n = page_align(size) / pages(1);
		EXPECT_EQ(0, pinner.bad_errno) TH_LOG("round %d", round);
		EXPECT_EQ(0, pinner.ok_before_map) TH_LOG("round %d", round);
		EXPECT_LE(pinner.max_end, n)
			TH_LOG("round %d: a range up to page %zu passed, size is %zu pages",
			       round, pinner.max_end, n);
		EXPECT_LE(pinner.max_start, n)
			TH_LOG("round %d: len 0 from page %zu passed, size is %zu pages",
			       round, pinner.max_start - 1, n);
		EXPECT_EQ(n, fdinfo_num(sizer.fd, "pinned") +
			  fdinfo_num(sizer.fd, "unpinned") +
			  fdinfo_num(sizer.fd, "purged"));
		EXPECT_EQ(0, pin_op(sizer.fd, ASHMEM_UNPIN, 0, 0));
		EXPECT_EQ(0, fdinfo_num(sizer.fd, "pinned"));
		EXPECT_ERRNO(EINVAL, pin_pages(sizer.fd, ASHMEM_GET_PIN_STATUS, n, 1));
		EXPECT_ERRNO(EINVAL, pin_pages(sizer.fd, ASHMEM_PIN, 0, n + 1));
		EXPECT_LE(0, pin_op(sizer.fd, ASHMEM_PIN, 0, 0));
		close(sizer.fd);
	}
}

/* A thread maps the area again and again while another copies to user. */
struct fault_race {
	int fd;
	int stop;	/* __atomic: set by the main thread */
	unsigned long maps, bad;
};

static void *map_loop(void *arg)
{
	struct fault_race *fr = arg;

	while (!__atomic_load_n(&fr->stop, __ATOMIC_RELAXED)) {
		void *p = map_fd(fr->fd, pages(16), PROT_RW, MAP_SHARED, 0);

		if (p == MAP_FAILED) {
			fr->bad++;
			continue;
		}
		fr->maps++;
		munmap(p, pages(16));
	}
	return NULL;
}

static int uncached_buffers(void *arg)
{
	const size_t buflen = pages(32);
	unsigned long bad = 0, calls = 0;
	int round, i;
	char *anon;

	anon = mmap(NULL, buflen, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 2;
	for (round = 0; round < 20; round++) {
		struct fault_race fr = {};
		char *self_map = NULL;
		pthread_t thread;

		fr.fd = open(ASHMEM_DEV, O_RDWR);
		if (fr.fd < 0 || set_size(fr.fd, pages(16)))
			return 2;
		if (pthread_create(&thread, NULL, map_loop, &fr))
			return 2;
		for (i = 0; i < 300; i++) {
			char *buf = anon + pages(i % 16);
			ssize_t r;

			/* Not faulted in: the copy takes mmap_lock. */
			madvise(anon, buflen, MADV_DONTNEED);
			r = ioctl(fr.fd, ASHMEM_SET_NAME, buf);
			if (r && errno != EINVAL)
				bad++;
			madvise(anon, buflen, MADV_DONTNEED);
			if (ioctl(fr.fd, ASHMEM_GET_NAME, buf + 7))
				bad++;
			madvise(anon, buflen, MADV_DONTNEED);
			r = read(fr.fd, buf, pages(3));
			if (r < 0 && errno != EBADF)
				bad++;
			if (r >= 0 && !self_map) {
				/* The area is mapped: use it as the buffer. */
				self_map = map_fd(fr.fd, pages(16), PROT_RW, MAP_SHARED, 0);
				if (self_map == MAP_FAILED)
					return 2;
			}
			if (self_map) {
				madvise(self_map, pages(16), MADV_DONTNEED);
				if (pread(fr.fd, self_map + pages(8), pages(4), pages(1)) < 0)
					bad++;
				madvise(self_map, pages(16), MADV_DONTNEED);
				if (ioctl(fr.fd, ASHMEM_GET_NAME, self_map + 100))
					bad++;
			}
			calls += 3;
		}
		__atomic_store_n(&fr.stop, 1, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
		if (self_map)
			munmap(self_map, pages(16));
		close(fr.fd);
		bad += fr.bad;
	}
	if (bad)
		fprintf(stderr, "# %lu of %lu calls failed unexpectedly\n", bad, calls);
	return bad ? 1 : 0;
}

/*
 * read(), SET_NAME and GET_NAME copied to or from user memory with the
 * area's lock held; a fault there needs mmap_lock, which a concurrent mmap
 * held while it waited for the area's lock: an ABBA deadlock.
 */
TEST_F_TIMEOUT(ashmem_bug, uncached_user_buffer_vs_mmap_deadlock, 150)
{
	int ret = run_bounded(uncached_buffers, NULL, 100);

	ASSERT_NE(-1, ret) TH_LOG("deadlock: still running after 100 s");
	EXPECT_EQ(0, ret);
}

/*
 * The task's fail-nth fails its n-th slab allocation (ignore-gfp-wait=N
 * includes GFP_KERNEL).  If the ashmem_range cache is not merged, the cache
 * filter confines failures to it and every n is tried; otherwise only
 * n = 1, the range (a later one could be kmemleak's metadata).
 */
#define FAILSLAB	"/sys/kernel/debug/failslab"
#define RANGE_FAILSLAB	"/sys/kernel/slab/ashmem_range/failslab"

FIXTURE(ashmem_failslab) {
	int nth;		/* /proc/thread-self/fail-nth */
	bool filtered;		/* failures confined to ashmem_range */
	char gfp_wait[8], verbose[8], cache_filter[8];
	bool armed;
};

FIXTURE_VARIANT(ashmem_failslab) {
	bool purged;		/* the unpinned pages were purged first */
};

FIXTURE_VARIANT_ADD(ashmem_failslab, resident) { .purged = false };
FIXTURE_VARIANT_ADD(ashmem_failslab, purged) { .purged = true };

FIXTURE_SETUP(ashmem_failslab)
{
	char buf[8];

	self->nth = -1;
	if (!root_and_ashmem(_metadata))
		return;
	if (!mount_if_missing(FAILSLAB, "debugfs", "/sys/kernel/debug") ||
	    access(FAILSLAB "/ignore-gfp-wait", W_OK))
		SKIP(return, "no " FAILSLAB " (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)");
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (self->nth < 0)
		SKIP(return, "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)");

	ASSERT_EQ(0, read_line(FAILSLAB "/ignore-gfp-wait", self->gfp_wait,
			       sizeof(self->gfp_wait)));
	ASSERT_EQ(0, read_line(FAILSLAB "/verbose", self->verbose, sizeof(self->verbose)));
	ASSERT_EQ(0, read_line(FAILSLAB "/cache-filter", self->cache_filter,
			       sizeof(self->cache_filter)));
	self->armed = true;
	ASSERT_EQ(0, write_str(FAILSLAB "/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_str(FAILSLAB "/verbose", "0"));
	self->filtered = !read_line(RANGE_FAILSLAB, buf, sizeof(buf)) &&
			 !write_str(RANGE_FAILSLAB, "1") &&
			 !write_str(FAILSLAB "/cache-filter", "Y");
	TH_LOG("failures %s", self->filtered ?
	       "confined to the ashmem_range cache" :
	       "not confined (ashmem_range cache merged or no sysfs): n = 1 only");
}

FIXTURE_TEARDOWN(ashmem_failslab)
{
	if (self->nth >= 0) {
		if (pwrite(self->nth, "0", 1, 0) != 1)
			TH_LOG("could not disarm fail-nth");
		close(self->nth);
	}
	if (!self->armed)
		return;
	write_str(FAILSLAB "/ignore-gfp-wait", self->gfp_wait);
	write_str(FAILSLAB "/verbose", self->verbose);
	write_str(FAILSLAB "/cache-filter", self->cache_filter);
	if (self->filtered)
		write_str(RANGE_FAILSLAB, "0");
}

/*
 * Runs @cmd with the task's @n-th candidate allocation failing: returns
 * the ioctl's result, and *injected whether a failure happened.  A failure
 * must be ENOMEM: *enomem counts them.
 */
static int ioctl_failing_nth(struct __test_metadata *_metadata, int nth, int n,
			     int fd, unsigned long cmd, struct ashmem_pin *pin,
			     int *enomem, bool *injected)
{
	char buf[16];
	int len, ret, err;

	len = snprintf(buf, sizeof(buf), "%d", n);
	ASSERT_EQ(len, pwrite(nth, buf, len, 0)) TH_LOG("fail-nth does not work");
	ret = ioctl(fd, cmd, pin);
	err = ret < 0 ? errno : 0;
	memset(buf, 0, sizeof(buf));
	ASSERT_LT(0, pread(nth, buf, sizeof(buf) - 1, 0));
	*injected = atoi(buf) == 0;
	ASSERT_EQ(1, pwrite(nth, "0", 1, 0));
	TH_LOG("n=%d: %s returned %d (errno %d), failure %sinjected", n,
	       cmd == ASHMEM_PIN ? "PIN" : "UNPIN", ret, err, *injected ? "" : "not ");
	if (ret < 0) {
		EXPECT_EQ(ENOMEM, err);
		*enomem += err == ENOMEM;
	}
	return ret;
}

/* A mapped area of 8 pages, @npages unpinned from @first, maybe purged. */
static int failslab_area(struct __test_metadata *_metadata, bool purged,
			 size_t first, size_t npages, char **p)
{
	int fd = area_filled(pages(8), p);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, first, npages));
	if (purged)
		ASSERT_LE(0, ioctl(fd, ASHMEM_PURGE_ALL_CACHES));
	return fd;
}

/*
 * Checks the 8 pages of a failslab_area(): those in the bitmask @pinned
 * pinned, the others unpinned, and fdinfo's counts, of which @purged of
 * the unpinned pages are purged.
 */
static void expect_pages(struct __test_metadata *_metadata, int fd, int n,
			 unsigned int pinned, int purged)
{
	int i, npinned = __builtin_popcount(pinned);

	for (i = 0; i < 8; i++)
		EXPECT_EQ(pinned & 1 << i ? ASHMEM_IS_PINNED : ASHMEM_IS_UNPINNED,
			  pin_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1))
			TH_LOG("n=%d: page %d", n, i);
	EXPECT_PAGE_COUNTS(fd, npinned, 8 - npinned - purged, purged);
}

/*
 * PIN of the middle of an unpinned range splits it, which allocates a
 * range for the second half.  Android trimmed the first half before it
 * allocated, so on failure the second half was silently lost (pinned and
 * never purged, the accounting off).  Must fail cleanly or succeed fully.
 */
TEST_F(ashmem_failslab, pin_split_alloc_failure)
{
	int expect_pin = variant->purged ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
	int n, enomem = 0, max_n = self->filtered ? 16 : 1;

	for (n = 1; n <= max_n; n++) {
		struct ashmem_pin pin = { pages(3), pages(2) };
		bool injected = false;
		int fd, ret;
		char *p;
		size_t i;

		fd = failslab_area(_metadata, variant->purged, 0, 0, &p);
		ret = ioctl_failing_nth(_metadata, self->nth, n, fd, ASHMEM_PIN,
					&pin, &enomem, &injected);
		if (ret < 0) {
			/* Failed: nothing changed, all eight pages as before. */
			expect_pages(_metadata, fd, n, 0, variant->purged ? 8 : 0);
			/* And the PIN works once memory is back. */
			EXPECT_EQ(expect_pin, pin_pages(fd, ASHMEM_PIN, 3, 2));
		} else {
			EXPECT_EQ(expect_pin, ret);
		}

		/* Either way: the middle pinned, both halves as they were. */
		EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(fd, ASHMEM_GET_PIN_STATUS, 3, 2));
		expect_pages(_metadata, fd, n, 0x18, variant->purged ? 6 : 0);
		EXPECT_EQ(expect_pin, pin_pages(fd, ASHMEM_PIN, 0, 3));
		EXPECT_EQ(expect_pin, pin_pages(fd, ASHMEM_PIN, 5, 3));
		EXPECT_PAGE_COUNTS(fd, 8, 0, 0);
		if (!variant->purged)
			for (i = 0; i < 8; i++)
				EXPECT_TRUE(all_bytes(p + pages(i), page_byte(i), pages(1)));
		munmap(p, pages(8));
		close(fd);
		if (!injected)
			break;
	}
	ASSERT_LT(0, enomem) TH_LOG("no injected failure reached the range allocation");
}

/*
 * The same for UNPIN, which allocates a range for every resident piece
 * between purged ranges: all of them first, so a failure changes nothing.
 */
TEST_F(ashmem_failslab, unpin_alloc_failure)
{
	int n, enomem = 0, max_n = self->filtered ? 16 : 1;

	for (n = 1; n <= max_n; n++) {
		struct ashmem_pin pin = { 0, pages(8) };
		bool injected = false;
		int fd, ret;
		char *p;

		fd = failslab_area(_metadata, variant->purged, 2, 2, &p);
		ret = ioctl_failing_nth(_metadata, self->nth, n, fd, ASHMEM_UNPIN,
					&pin, &enomem, &injected);
		if (ret < 0) {
			/* Pages 2 and 3 unpinned, as before. */
			expect_pages(_metadata, fd, n, 0xf3, variant->purged ? 2 : 0);
			EXPECT_EQ(0, pin_op(fd, ASHMEM_UNPIN, 0, pages(8)));
		} else {
			EXPECT_EQ(0, ret);
		}
		expect_pages(_metadata, fd, n, 0, variant->purged ? 2 : 0);
		EXPECT_EQ(variant->purged ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED,
			  pin_op(fd, ASHMEM_PIN, 0, 0));
		EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 0, 2));
		munmap(p, pages(8));
		close(fd);
		if (!injected)
			break;
	}
	ASSERT_LT(0, enomem) TH_LOG("no injected failure reached the range allocation");
}

/* The ashmem shrinker's count, from CONFIG_SHRINKER_DEBUG; -1 if unknown. */
static long long shrinker_count(void)
{
	char path[512], line[512];
	long long total = -1;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/sys/kernel/debug/shrinker");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		FILE *f;

		if (strncmp(d->d_name, "ashmem-", 7))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/shrinker/%s/count", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		total = 0;
		/* One line per memcg with objects: "<ino> <count per node>..." */
		while (fgets(line, sizeof(line), f)) {
			char *s = line, *end;

			strtoull(s, &end, 10);
			for (s = end; ; s = end) {
				unsigned long long v = strtoull(s, &end, 10);

				if (end == s)
					break;
				total += v;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return total;
}

/* The shrinker's count is @n, @when; not checked if shrinker_count() is -1. */
#define EXPECT_SHRINKER_COUNT(n, when) do {				\
	long long __count = shrinker_count();				\
									\
	if (__count >= 0)						\
		EXPECT_EQ(n, __count)					\
			TH_LOG("%s, the shrinker counts %lld", when, __count); \
} while (0)

/*
 * The shrinker's count was not lowered for every purged range, so it kept
 * reporting freeable pages that no longer existed.  The count is read from
 * /sys/kernel/debug/shrinker/ashmem-N/count.
 */
TEST_F(ashmem_bug, purge_accounting)
{
	const size_t big = 1024, half = big / 2;
	cpu_set_t cpu0;
	int fd, fd2;
	char *p;

	if (geteuid() != 0)
		SKIP(return, "needs root (CAP_SYS_ADMIN)");
	if (!mount_if_missing("/sys/kernel/debug/shrinker", "debugfs", "/sys/kernel/debug"))
		TH_LOG("no /sys/kernel/debug/shrinker (CONFIG_SHRINKER_DEBUG): count not checked");
	/* Every count update on one CPU: the same history each run. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	fd = open_area(_metadata, O_RDWR);
	p = area_map_checked(_metadata, fd, pages(16), PROT_RW);
	fill_pages(p, 16);
	ASSERT_LE(0, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 1, 3));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 8, 2));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 12, 0));
	EXPECT_PAGE_COUNTS(fd, 7, 9, 0);
	EXPECT_SHRINKER_COUNT(9, "9 pages unpinned");

	EXPECT_EQ(9, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_PAGE_COUNTS(fd, 7, 0, 9);
	EXPECT_SHRINKER_COUNT(0, "all purged");

	/* Purged pages stay out of the count when unpinned again... */
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, 0));
	EXPECT_PAGE_COUNTS(fd, 0, 7, 9);
	EXPECT_EQ(7, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	/* ...and pinned ones leave it. */
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_op(fd, ASHMEM_PIN, 0, 0));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 2, 4));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 2, 2));
	EXPECT_EQ(2, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_SHRINKER_COUNT(0, "pinned or purged");

	/*
	 * Big steps and a small rest: unpin 512 pages, pin back 505, purge
	 * the last 7.  A count kept in per-cpu batches must still reach 0.
	 */
	fd2 = open_area(_metadata, O_RDWR);
	ASSERT_EQ(0, set_size(fd2, pages(big)));
	map_fd_checked(_metadata, fd2, pages(1), PROT_READ, MAP_SHARED, 0);
	ASSERT_EQ(0, pin_pages(fd2, ASHMEM_UNPIN, 0, half));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd2, ASHMEM_PIN, 0, half - 7));
	EXPECT_EQ(7, xioctl(fd2, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(fd2, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_PAGE_COUNTS(fd2, big - 7, 0, 7);
	EXPECT_SHRINKER_COUNT(0, "nothing is unpinned");

	/* Closing drops unpinned pages from the count. */
	ASSERT_EQ(0, pin_pages(fd2, ASHMEM_UNPIN, 0, half + 3));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 8, 4));
	close(fd2);
	munmap(p, pages(16));
	close(fd);
	fd = open_area(_metadata, O_RDWR);
	EXPECT_EQ(0, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_SHRINKER_COUNT(0, "all areas closed");
}

/*
 * The unpinned list was kept in the wrong order (or a PIN removed the
 * wrong entry), so after pinning page 2 again the purge still punched
 * page 2 and left page 0, which was the one unpinned.
 */
TEST_F(ashmem_bug, range_order)
{
	char *p;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root (CAP_SYS_ADMIN)");
	fd = open_area(_metadata, O_RDWR);
	p = area_map_checked(_metadata, fd, pages(4), PROT_RW);
	fill_pages(p, 4);
	ASSERT_LE(0, ioctl(fd, ASHMEM_PURGE_ALL_CACHES));

	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, 1));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 2, 1));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 2, 1));
	EXPECT_EQ(1, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));

	EXPECT_TRUE(all_bytes(p + pages(2), page_byte(2), pages(1)))
		TH_LOG("page 2 was purged although pinned");
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(fd, ASHMEM_GET_PIN_STATUS, 2, 1));
	EXPECT_TRUE(all_bytes(p, 0, pages(1))) TH_LOG("page 0 not purged");
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_pages(fd, ASHMEM_GET_PIN_STATUS, 0, 1));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, 1));
	EXPECT_TRUE(all_bytes(p + pages(1), page_byte(1), pages(1)));
	EXPECT_TRUE(all_bytes(p + pages(3), page_byte(3), pages(1)));
	EXPECT_PAGE_COUNTS(fd, 4, 0, 0);
}

/*
 * ashmem_stress, beside this program, its output as comments: a worker of
 * three threads, two memory hogs (one did not fill memory under KASAN
 * before PURGE_ALL_CACHES started at half time), and -e: a PIN failing
 * with ENOMEM is a violation too.
 */
static int run_stress(void *path)
{
	char line[512];
	int pipefd[2], status;
	pid_t pid;
	FILE *f;

	if (pipe(pipefd))
		return 2;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execl(path, "ashmem_stress", "-t", "40", "-w", "1", "-T", "3",
		      "-H", "2", "-e", NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f))
		printf("# %s", line);
	status = wait_child(pid);
	return status;
}

/*
 * The shrinker took every area's mutex while reclaim could be entered from
 * an ioctl holding one (lockdep splat, deadlock), and walked ranges of
 * areas being released (use-after-free).  ashmem_stress races pin, unpin,
 * mmap and close with reclaim, checking every page as it goes; lockdep and
 * KASAN in the debug kernel do the rest.
 */
TEST_F_TIMEOUT(ashmem_bug, shrinker_vs_ioctls, 180)
{
	char path[256];
	ssize_t n;
	int ret;

	n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	ASSERT_LT(0, n);
	path[n] = '\0';
	snprintf(strrchr(path, '/') + 1, 16, "%s", "ashmem_stress");
	if (access(path, X_OK))
		SKIP(return, "no ashmem_stress beside this program");
	ret = run_bounded(run_stress, path, 120);
	ASSERT_NE(-1, ret) TH_LOG("deadlock: still running after 120 s");
	EXPECT_EQ(0, ret);
}

TEST_HARNESS_MAIN
