// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducers for the bugs Android's ashmem had over the years, and bad
 * input for every ioctl.
 *
 * ashmem_bug.*: one test per historical bug, named after it, with a note on
 * what used to go wrong.  Our driver must refuse or survive each of them.
 * The rest feeds every ioctl bad pointers, edge sizes and offsets, in every
 * state of an area (new, sized, mapped, mapping gone), and on O_RDONLY and
 * O_WRONLY descriptors.  Return values and errno are checked separately;
 * output buffers are filled with 0xcc first, so a stray write shows.
 *
 * Built 64-bit and with -m32; a few edges exist only for one of the two.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define PROT_RWX	(PROT_READ | PROT_WRITE | PROT_EXEC)
#define FILL		0xcc
#define LP64		(sizeof(long) == 8)

/* Checks that a call returned -1, then that it set errno to @err. */
#define EXPECT_ERRNO(err, call) do {		\
	long __r;				\
	errno = 0;				\
	__r = (long)(call);			\
	EXPECT_EQ(-1, __r);			\
	EXPECT_EQ(err, errno);			\
} while (0)

/* The same, saying which case of a loop failed. */
#define EXPECT_ERRNO_AT(err, call, what) do {				\
	long __r;							\
	int __e;							\
	errno = 0;							\
	__r = (long)(call);						\
	__e = errno;							\
	EXPECT_EQ(-1, __r) TH_LOG("%s: returned %ld", what, __r);	\
	EXPECT_EQ(err, __e) TH_LOG("%s: errno %d (%s)", what, __e,	\
				   strerror(__e));			\
} while (0)

#define EXPECT_MMAP_ERRNO(err, call) do {			\
	void *__p;						\
	errno = 0;						\
	__p = (call);						\
	EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)__p);	\
	EXPECT_EQ(err, errno);					\
	if (__p != MAP_FAILED)					\
		munmap(__p, pages(1));				\
} while (0)

#define ASSERT_MAPPED(p) ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)(p))

/* The end of a writable page that is followed by an unmapped page. */
static char *page_before_hole(void)
{
	char *p = mmap(NULL, pages(2), PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + pages(1), pages(1));
	memset(p, FILL, pages(1));
	return p + pages(1);
}

/* x86-64: the start of kernel text; wider than a 32-bit unsigned long. */
#define KERNEL_ADDR_64		0xffffffff81000000ULL
#define NON_CANONICAL_64	0x8000000000000000ULL

/* An address the kernel must refuse with EFAULT however it is used. */
static unsigned long kernel_addr(void)
{
	return LP64 ? (unsigned long)KERNEL_ADDR_64 : 0xfffff000UL;
}

#define EXPECT_PAGE_COUNTS(fd, pinned, unpinned, purged) do {		\
	EXPECT_EQ(pinned, fdinfo_num(fd, "pinned"));			\
	EXPECT_EQ(unpinned, fdinfo_num(fd, "unpinned"));		\
	EXPECT_EQ(purged, fdinfo_num(fd, "purged"));			\
} while (0)

static sigjmp_buf fault_jmp;

static void fault_handler(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/*
 * Reads, and if @write also writes back, one byte of each of @n pages.
 * Returns the index of the first page that raised SIGBUS or SIGSEGV, or
 * -1 if none did, so a test can fail with a message instead of a signal.
 */
static long touch_pages(char *p, size_t n, bool write)
{
	struct sigaction sa = { .sa_handler = fault_handler }, obus, osegv;
	/* Not a local: a local changed after sigsetjmp() is lost by longjmp. */
	static __thread size_t i;
	long ret = -1;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	i = 0;
	if (sigsetjmp(fault_jmp, 1) == 0) {
		for (i = 0; i < n; i++) {
			char *c = p + pages(i);
			char v = __atomic_load_n(c, __ATOMIC_RELAXED);

			if (write)
				__atomic_store_n(c, v, __ATOMIC_RELAXED);
		}
	} else {
		ret = i;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return ret;
}

/*
 * Runs @fn in a child and waits at most @secs for it.  Returns its exit
 * code, 128 + the signal that killed it, or -1 on timeout (the child is
 * then killed; one stuck in the kernel stays behind, which is the point).
 */
static int run_bounded(int (*fn)(void *), void *arg, int secs)
{
	struct timespec start, now;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0)
		_exit(fn(arg));
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (r < 0)
			return -2;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= secs)
			break;
		usleep(20 * 1000);
	}
	kill(pid, SIGKILL);
	usleep(500 * 1000);
	waitpid(pid, &status, WNOHANG);
	return -1;
}

static uint32_t xorshift(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x ?: 0x9e3779b9;
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/*
 * Makes @path under /sys/kernel/debug reachable: if debugfs is not mounted,
 * mounts it in a mount namespace of this test process only.
 */
static bool debugfs_has(const char *path)
{
	if (!access(path, F_OK))
		return true;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		return false;
	return !access(path, F_OK);
}

FIXTURE(ashmem_bug) {
	int fd;
};

FIXTURE_SETUP(ashmem_bug)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem_bug)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * 1. The first ashmem checked the prot mask in ->mmap but left VM_MAYWRITE
 * and VM_MAYEXEC set, so mprotect() widened a read-only mapping at will.
 */
TEST_F(ashmem_bug, vm_may_flags_not_cleared)
{
	static const int types[] = { MAP_SHARED, MAP_PRIVATE };
	struct maps_entry e;
	unsigned int i;
	char *p;

	ASSERT_EQ(0, set_size(self->fd, pages(2)));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	for (i = 0; i < 2; i++) {
		const char *what = i ? "MAP_PRIVATE" : "MAP_SHARED";

		EXPECT_MMAP_ERRNO(EPERM, mmap(NULL, pages(2), PROT_RW,
					      types[i], self->fd, 0));
		p = mmap(NULL, pages(2), PROT_READ, types[i], self->fd, 0);
		ASSERT_MAPPED(p);
		EXPECT_ERRNO_AT(EACCES, mprotect(p, pages(2), PROT_RW), what);
		EXPECT_ERRNO_AT(EACCES, mprotect(p + pages(1), pages(1),
						 PROT_WRITE), what);
		EXPECT_ERRNO_AT(EACCES, mprotect(p, pages(1),
						 PROT_READ | PROT_EXEC), what);
		/* Narrowing and back within the mask is fine. */
		EXPECT_EQ(0, mprotect(p, pages(2), PROT_NONE));
		EXPECT_EQ(0, mprotect(p, pages(2), PROT_READ));
		ASSERT_EQ(0, maps_find(p, &e));
		EXPECT_TRUE(!strchr(e.perms, 'w')) TH_LOG("%s: %s", what, e.perms);
		EXPECT_TRUE(!strchr(e.perms, 'x')) TH_LOG("%s: %s", what, e.perms);
		EXPECT_EQ(-1, touch_pages(p, 2, false));
		munmap(p, pages(2));
	}
}

/*
 * 2. remap_file_pages() re-mmaps the vma's file with the vma's protection,
 * and /proc/self/map_files/ hands out that file: with a plain shmem file
 * behind the mapping, either one gave a mapping the mask forbids.
 */
TEST_F(ashmem_bug, remap_around_mask)
{
	struct maps_entry e;
	char path[128], *p;
	int mfd, r;
	size_t i;
	void *q;

	p = area_map(self->fd, pages(4), PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(p);
	fill_pages(p, 4);
	munmap(p, pages(4));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	p = mmap(NULL, pages(4), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);

	/* map_files: open needs CAP_SYS_ADMIN; mapping there must fail. */
	ASSERT_EQ(0, maps_find(p, &e));
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 e.start, e.end);
	mfd = open(path, O_RDWR);
	if (mfd < 0) {
		TH_LOG("open(%s, O_RDWR): %s", path, strerror(errno));
	} else {
		EXPECT_MMAP_ERRNO(EPERM, mmap(NULL, pages(1), PROT_RW,
					      MAP_SHARED, mfd, 0));
		errno = 0;
		q = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, mfd, 0);
		EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)q);
		EXPECT_EQ(EPERM, errno);
		if (q != MAP_FAILED) {
			EXPECT_ERRNO(EACCES, mprotect(q, pages(1), PROT_RW));
			munmap(q, pages(1));
		}
		EXPECT_EQ(-1, pwrite(mfd, "written", 7, 0));
		close(mfd);
	}
	EXPECT_EQ(page_byte(0), p[0]);

	/*
	 * remap_file_pages() re-mmaps with MAP_FIXED: if it fails, the pages
	 * it covered may be gone, so look before touching.
	 */
	r = remap_file_pages(p, pages(1), 0, 2, 0);
	if (r)
		TH_LOG("remap_file_pages(): %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		char *pg = p + pages(i);

		if (maps_find(pg, &e))
			continue;
		EXPECT_TRUE(!strchr(e.perms, 'w')) TH_LOG("page %zu: %s", i, e.perms);
		EXPECT_ERRNO_AT(EACCES, mprotect(pg, pages(1), PROT_RW), "mprotect");
		EXPECT_EQ(-1, touch_pages(pg, 1, false));
		EXPECT_EQ(i == 0 && r == 0 ? page_byte(2) : page_byte(i), *pg);
	}
	munmap(p, pages(4));
}

/* 3 and 4 race the first mmap; every round uses a fresh area. */
struct racer {
	int fd;
	uint32_t seed;
	int stop;	/* __atomic: set by the main thread */
	int map_started;	/* set before the mmap() call */
	/* pin ioctls */
	unsigned long ops, bad_errno, ok_before_map;
	size_t max_end;		/* end page of successful ops with a length */
	size_t max_start;	/* first page of successful ops with len 0 */
};

static void *size_flipper(void *arg)
{
	struct racer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		size_t size = 1 + xorshift(&r->seed) % pages(16);

		set_size(r->fd, size);
	}
	return NULL;
}

/*
 * 3. CVE-2017-13216: SET_SIZE did not take the area's lock, so it could
 * change the size while the first mmap created a backing file of the old
 * size; later mappings were checked against the new size and SIGBUSed.
 */
TEST_F_TIMEOUT(ashmem_bug, set_size_races_first_mmap, 120)
{
	int round;

	for (round = 0; round < 100; round++) {
		struct racer r = { .seed = 0x1234567u + round };
		pthread_t thread;
		size_t size, n;
		char buf[4096];
		ssize_t got, total = 0;
		char *p;

		r.fd = open(ASHMEM_DEV, O_RDWR);
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, set_size(r.fd, pages(1)));
		ASSERT_EQ(0, pthread_create(&thread, NULL, size_flipper, &r));
		usleep(xorshift(&r.seed) % 200);
		p = mmap(NULL, pages(1), PROT_RW, MAP_SHARED, r.fd, 0);
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(thread, NULL));
		ASSERT_MAPPED(p);
		munmap(p, pages(1));

		size = xioctl(r.fd, ASHMEM_GET_SIZE, 0);
		n = page_align(size) / pages(1);
		EXPECT_EQ((off_t)size, lseek(r.fd, 0, SEEK_END))
			TH_LOG("round %d: backing file size differs from GET_SIZE", round);
		EXPECT_EQ((long long)size, fdinfo_num(r.fd, "size"));
		EXPECT_ERRNO(EINVAL, set_size(r.fd, pages(2)));
		EXPECT_EQ((long)size, xioctl(r.fd, ASHMEM_GET_SIZE, 0));

		/* All of PAGE_ALIGN(size) maps and every page is there. */
		EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(n + 1), PROT_RW,
					       MAP_SHARED, r.fd, 0));
		p = mmap(NULL, pages(n), PROT_RW, MAP_SHARED, r.fd, 0);
		ASSERT_MAPPED(p);
		EXPECT_EQ(-1, touch_pages(p, n, true))
			TH_LOG("round %d: size %zu, a page faulted", round, size);
		munmap(p, pages(n));
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
		size_t first = xorshift(&r->seed) % 20;
		size_t n = xorshift(&r->seed) % 20;
		int ret;

		ret = pin_pages(r->fd, cmds[xorshift(&r->seed) % 3], first, n);
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
 * 4. The pin ioctls read the size and the backing file without the lock
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
		usleep(xorshift(&sizer.seed) % 500);
		__atomic_store_n(&pinner.map_started, 1, __ATOMIC_RELEASE);
		p = mmap(NULL, pages(1), PROT_RW, MAP_SHARED, sizer.fd, 0);
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

/* 5: a reader thread with buffers that fault, a mapper thread. */
struct fault_race {
	int fd;
	int stop;	/* __atomic: set by the main thread */
	unsigned long maps, bad;
};

static void *map_loop(void *arg)
{
	struct fault_race *fr = arg;

	while (!__atomic_load_n(&fr->stop, __ATOMIC_RELAXED)) {
		void *p = mmap(NULL, pages(16), PROT_RW, MAP_SHARED, fr->fd, 0);

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
				self_map = mmap(NULL, pages(16), PROT_RW,
						MAP_SHARED, fr.fd, 0);
				if (self_map == MAP_FAILED)
					return 2;
			}
			if (self_map) {
				madvise(self_map, pages(16), MADV_DONTNEED);
				if (pread(fr.fd, self_map + pages(8), pages(4),
					  pages(1)) < 0)
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
		fprintf(stderr, "# %lu of %lu calls failed unexpectedly\n",
			bad, calls);
	return bad ? 1 : 0;
}

/*
 * 5. read(), SET_NAME and GET_NAME copied to or from user memory with the
 * area's lock held; a fault there needs mmap_lock, which a concurrent mmap
 * held while it waited for the area's lock: an ABBA deadlock.  A watchdog
 * turns a deadlock into a failure.
 */
TEST_F_TIMEOUT(ashmem_bug, uncached_user_buffer_vs_mmap_deadlock, 150)
{
	int ret = run_bounded(uncached_buffers, NULL, 100);

	ASSERT_NE(-1, ret) TH_LOG("deadlock: still running after 100 s");
	EXPECT_EQ(0, ret);
}

/*
 * 6. mmap() accepted a length beyond the area's size; the mapping then had
 * pages past the end of the backing file, which raised SIGBUS when touched.
 */
TEST_F(ashmem_bug, mmap_longer_than_area)
{
	size_t size = pages(2) + 100;
	unsigned long id;
	char buf[64], *p;
	ssize_t got, total = 0;

	ASSERT_EQ(0, set_size(self->fd, size));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(4), PROT_RW, MAP_SHARED,
				       self->fd, 0));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(4), PROT_RW, MAP_PRIVATE,
				       self->fd, 0));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(3), PROT_RW, MAP_SHARED,
				       self->fd, pages(1)));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_RW, MAP_SHARED,
				       self->fd, pages(3)));
	/* None of them created the backing file. */
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));

	p = mmap(NULL, pages(3), PROT_RW, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	EXPECT_EQ(-1, touch_pages(p, 3, true));
	memset(p, 'x', size);
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(4), PROT_RW, MAP_SHARED,
				       self->fd, 0));
	EXPECT_EQ(-1, touch_pages(p, 3, true));
	while ((got = read(self->fd, buf, sizeof(buf))) > 0) {
		EXPECT_TRUE(all_bytes(buf, 'x', got));
		total += got;
	}
	EXPECT_EQ((ssize_t)size, total);
	munmap(p, pages(3));
}

/*
 * 7. ashmem_llseek() returned the backing file's offset through an int,
 * so offsets past 2 GiB came back truncated or negative; older versions
 * had no llseek at all and lseek() after mmap failed with ESPIPE.
 */
TEST_F_TIMEOUT(ashmem_bug, lseek_after_mmap, 60)
{
	const size_t size = (size_t)3 << 30;
	const off_t past2g = ((off_t)5 << 29) + 12345;
	char buf[32], *p;

	ASSERT_EQ(0, set_size(self->fd, size));
	p = mmap(NULL, pages(1), PROT_RW, MAP_SHARED | MAP_NORESERVE,
		 self->fd, 0);
	ASSERT_MAPPED(p);
	snprintf(p, pages(1), "%s", "page zero");

	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(past2g, lseek(self->fd, past2g, SEEK_SET));
	EXPECT_EQ(past2g, lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ(past2g + 10, lseek(self->fd, 10, SEEK_CUR));
	EXPECT_EQ(past2g - 1, lseek(self->fd, past2g - 1, SEEK_SET));
	EXPECT_EQ((off_t)size, lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ((off_t)size - 1, lseek(self->fd, -1, SEEK_END));
	EXPECT_EQ((off_t)1 << 33, lseek(self->fd, (off_t)1 << 33, SEEK_SET));
	EXPECT_ERRNO(EINVAL, lseek(self->fd, -1, SEEK_SET));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ((off_t)pages(1), lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_ERRNO(ENXIO, lseek(self->fd, past2g, SEEK_DATA));
	EXPECT_EQ(past2g, lseek(self->fd, past2g, SEEK_HOLE));

	EXPECT_EQ(past2g, lseek(self->fd, past2g, SEEK_SET));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 0, sizeof(buf)));
	EXPECT_EQ(past2g + (off_t)sizeof(buf), lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_STREQ("page zero", buf);
	munmap(p, pages(1));
}

/*
 * 8. A MAP_PRIVATE mapping got the backing file's shmem vm_ops without the
 * file (or with one of the wrong size), and touching it raised SIGBUS.
 * Like Android, a private mapping is now plain anonymous memory.
 */
TEST_F(ashmem_bug, map_private_no_sigbus)
{
	size_t size = pages(3) + 1;
	char *priv, *shared, *priv2;

	ASSERT_EQ(0, set_size(self->fd, size));
	priv = mmap(NULL, pages(4), PROT_RW, MAP_PRIVATE, self->fd, 0);
	ASSERT_MAPPED(priv);
	EXPECT_EQ(-1, touch_pages(priv, 4, false));
	EXPECT_TRUE(all_bytes(priv, 0, pages(4)));
	EXPECT_EQ(-1, touch_pages(priv, 4, true));
	memset(priv, 'p', pages(4));

	shared = mmap(NULL, pages(4), PROT_RW, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(shared);
	EXPECT_EQ(-1, touch_pages(shared, 4, true));
	EXPECT_TRUE(all_bytes(shared, 0, pages(4)));
	memset(shared, 's', size);

	priv2 = mmap(NULL, pages(2), PROT_RW, MAP_PRIVATE, self->fd, pages(2));
	ASSERT_MAPPED(priv2);
	EXPECT_EQ(-1, touch_pages(priv2, 2, true));
	EXPECT_TRUE(all_bytes(priv2, 0, pages(2)));
	EXPECT_TRUE(all_bytes(priv, 'p', pages(4)));
	EXPECT_TRUE(all_bytes(shared, 's', size));
	munmap(priv2, pages(2));
	munmap(shared, pages(4));
	munmap(priv, pages(4));
}

/*
 * 9. GET_NAME copied the whole ASHMEM_NAME_LEN buffer out, so the bytes
 * after the NUL leaked whatever the kernel buffer held before (an older,
 * longer name, or stack contents).
 */
TEST_F(ashmem_bug, get_name_no_leak)
{
	static const char *const names[] = { "a", "short", "" };
	char buf[ASHMEM_NAME_LEN * 2], longname[ASHMEM_NAME_LEN + 1];
	unsigned int i;

	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, buf));
	EXPECT_STREQ(ASHMEM_NAME_DEF, buf);
	EXPECT_TRUE(all_bytes(buf + sizeof(ASHMEM_NAME_DEF), FILL,
			      sizeof(buf) - sizeof(ASHMEM_NAME_DEF)));

	memset(longname, 'L', ASHMEM_NAME_LEN - 1);
	longname[ASHMEM_NAME_LEN - 1] = '\0';
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, longname));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, buf));
	EXPECT_STREQ(longname, buf);
	EXPECT_TRUE(all_bytes(buf + ASHMEM_NAME_LEN, FILL,
			      sizeof(buf) - ASHMEM_NAME_LEN));

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		size_t len = strlen(names[i]) + 1;
		const char *expect = names[i];

		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, names[i]));
		memset(buf, FILL, sizeof(buf));
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, buf));
		/* An empty name is no name. */
		if (!*expect) {
			expect = ASHMEM_NAME_DEF;
			len = sizeof(ASHMEM_NAME_DEF);
		}
		EXPECT_STREQ(expect, buf);
		EXPECT_TRUE(all_bytes(buf + len, FILL, sizeof(buf) - len))
			TH_LOG("bytes after \"%s\" were written", expect);
	}
}

/*
 * 10 and the same for UNPIN: fault injection makes the allocation of a
 * range fail.  With CONFIG_FAILSLAB the task's fail-nth makes its n-th
 * candidate allocation fail; failslab/ignore-gfp-wait=N makes GFP_KERNEL
 * allocations candidates.  If the ashmem_range cache is not merged with
 * another, failslab's cache filter confines failures to it and every n is
 * tried; otherwise only n = 1, the first candidate of the ioctl, which is
 * the range (a later one could be kmemleak's own metadata).
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

FIXTURE_VARIANT_ADD(ashmem_failslab, resident) {
	.purged = false,
};

FIXTURE_VARIANT_ADD(ashmem_failslab, purged) {
	.purged = true,
};

/* The first line of a small file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	if (read_small(path, buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

FIXTURE_SETUP(ashmem_failslab)
{
	char buf[8];

	self->nth = -1;
	if (!is_root())
		SKIP(return, "fault injection needs root");
	if (!debugfs_has(FAILSLAB) || access(FAILSLAB "/ignore-gfp-wait", W_OK))
		SKIP(return, "no " FAILSLAB " (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)");
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (self->nth < 0)
		SKIP(return, "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)");
	if (access(ASHMEM_DEV, F_OK))
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");

	ASSERT_EQ(0, read_line(FAILSLAB "/ignore-gfp-wait", self->gfp_wait,
			       sizeof(self->gfp_wait)));
	ASSERT_EQ(0, read_line(FAILSLAB "/verbose", self->verbose,
			       sizeof(self->verbose)));
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
 * Runs the ioctl with the task's @n-th candidate allocation failing.
 * Returns the ioctl's result; *injected says whether a failure happened.
 */
static int ioctl_failing_nth(int nth, int n, int fd, unsigned long cmd,
			     struct ashmem_pin *pin, int *err, bool *injected)
{
	char buf[16];
	int len, ret;

	len = snprintf(buf, sizeof(buf), "%d", n);
	if (pwrite(nth, buf, len, 0) != len)
		return -2;
	ret = ioctl(fd, cmd, pin);
	*err = errno;
	memset(buf, 0, sizeof(buf));
	if (pread(nth, buf, sizeof(buf) - 1, 0) <= 0)
		return -2;
	*injected = atoi(buf) == 0;
	if (pwrite(nth, "0", 1, 0) != 1)
		return -2;
	return ret;
}

/* A mapped 8-page area whose pages are all unpinned, maybe purged. */
static int failslab_area(bool purged, char **map)
{
	int fd = open(ASHMEM_DEV, O_RDWR);
	char *p;

	if (fd < 0)
		return -1;
	p = area_map(fd, pages(8), PROT_RW, MAP_SHARED);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	fill_pages(p, 8);
	*map = p;
	if (pin_op(fd, ASHMEM_UNPIN, 0, 0) ||
	    (purged && ioctl(fd, ASHMEM_PURGE_ALL_CACHES) < 0)) {
		munmap(p, pages(8));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * 10. PIN of the middle of an unpinned range splits it, which allocates a
 * range for the second half.  Android trimmed the first half before it
 * allocated, so on failure the second half was silently lost (pinned and
 * never purged, the accounting off).  Must fail cleanly or succeed fully.
 */
TEST_F(ashmem_failslab, pin_split_alloc_failure)
{
	int expect_pin = variant->purged ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
	int n, enomem = 0, max_n = self->filtered ? 16 : 1;
	const char *state = variant->purged ? "purged" : "unpinned";

	for (n = 1; n <= max_n; n++) {
		struct ashmem_pin pin = { pages(3), pages(2) };
		bool injected = false;
		int fd, ret, err = 0;
		char *p;
		size_t i;

		fd = failslab_area(variant->purged, &p);
		ASSERT_LE(0, fd);
		ret = ioctl_failing_nth(self->nth, n, fd, ASHMEM_PIN, &pin,
					&err, &injected);
		ASSERT_NE(-2, ret) TH_LOG("fail-nth does not work");
		TH_LOG("n=%d: PIN returned %d (errno %d), failure %sinjected",
		       n, ret, ret < 0 ? err : 0, injected ? "" : "not ");

		if (ret < 0) {
			/* Failed: nothing changed, all eight pages as before. */
			EXPECT_EQ(ENOMEM, err);
			enomem += err == ENOMEM;
			for (i = 0; i < 8; i++)
				EXPECT_EQ(ASHMEM_IS_UNPINNED,
					  pin_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1))
					TH_LOG("n=%d: page %zu no longer %s", n, i, state);
			if (variant->purged)
				EXPECT_PAGE_COUNTS(fd, 0, 0, 8);
			else
				EXPECT_PAGE_COUNTS(fd, 0, 8, 0);
			/* And the PIN works once memory is back. */
			EXPECT_EQ(expect_pin, pin_pages(fd, ASHMEM_PIN, 3, 2));
		} else {
			EXPECT_EQ(expect_pin, ret);
		}

		/* Either way: the middle pinned, both halves as they were. */
		EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(fd, ASHMEM_GET_PIN_STATUS, 3, 2));
		for (i = 0; i < 8; i++) {
			if (i == 3 || i == 4)
				continue;
			EXPECT_EQ(ASHMEM_IS_UNPINNED,
				  pin_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1))
				TH_LOG("n=%d: page %zu lost after the split", n, i);
		}
		if (variant->purged)
			EXPECT_PAGE_COUNTS(fd, 2, 0, 6);
		else
			EXPECT_PAGE_COUNTS(fd, 2, 6, 0);
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
		int fd, ret, err = 0;
		size_t i;
		char *p;

		fd = open(ASHMEM_DEV, O_RDWR);
		ASSERT_LE(0, fd);
		p = area_map(fd, pages(8), PROT_RW, MAP_SHARED);
		ASSERT_MAPPED(p);
		fill_pages(p, 8);
		ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 2, 2));
		if (variant->purged)
			ASSERT_LE(0, ioctl(fd, ASHMEM_PURGE_ALL_CACHES));

		ret = ioctl_failing_nth(self->nth, n, fd, ASHMEM_UNPIN, &pin,
					&err, &injected);
		ASSERT_NE(-2, ret) TH_LOG("fail-nth does not work");
		TH_LOG("n=%d: UNPIN returned %d (errno %d), failure %sinjected",
		       n, ret, ret < 0 ? err : 0, injected ? "" : "not ");
		if (ret < 0) {
			EXPECT_EQ(ENOMEM, err);
			enomem += err == ENOMEM;
			for (i = 0; i < 8; i++)
				EXPECT_EQ(i == 2 || i == 3 ? ASHMEM_IS_UNPINNED :
							     ASHMEM_IS_PINNED,
					  pin_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1))
					TH_LOG("n=%d: page %zu changed", n, i);
			if (variant->purged)
				EXPECT_PAGE_COUNTS(fd, 6, 0, 2);
			else
				EXPECT_PAGE_COUNTS(fd, 6, 2, 0);
			EXPECT_EQ(0, pin_op(fd, ASHMEM_UNPIN, 0, pages(8)));
		} else {
			EXPECT_EQ(0, ret);
		}
		for (i = 0; i < 8; i++)
			EXPECT_EQ(ASHMEM_IS_UNPINNED,
				  pin_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1));
		if (variant->purged)
			EXPECT_PAGE_COUNTS(fd, 0, 6, 2);
		else
			EXPECT_PAGE_COUNTS(fd, 0, 8, 0);
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
		snprintf(path, sizeof(path), "/sys/kernel/debug/shrinker/%s/count",
			 d->d_name);
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

/*
 * 11. PURGE_ALL_CACHES returned the shrinker's count of the pages *before*
 * purging but the count was not lowered for every purged range, so the
 * shrinker kept reporting freeable pages that no longer existed.
 * The count is read from /sys/kernel/debug/shrinker/ashmem-N/count.
 */
TEST_F(ashmem_bug, purge_accounting)
{
	const size_t big = 1024, half = big / 2;
	long long count;
	cpu_set_t cpu0;
	int fd2;
	char *p;

	if (!is_root())
		SKIP(return, "needs root (CAP_SYS_ADMIN)");
	debugfs_has("/sys/kernel/debug/shrinker");
	/* Every count update on one CPU: the same history each run. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	ASSERT_LE(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));

	p = area_map(self->fd, pages(16), PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(p);
	fill_pages(p, 16);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 3));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 8, 2));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 12, 0));
	EXPECT_PAGE_COUNTS(self->fd, 7, 9, 0);
	TH_LOG("shrinker count with 9 pages unpinned: %lld", shrinker_count());

	EXPECT_EQ(9, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_PAGE_COUNTS(self->fd, 7, 0, 9);
	count = shrinker_count();
	if (count < 0)
		TH_LOG("no /sys/kernel/debug/shrinker (CONFIG_SHRINKER_DEBUG): count not checked");
	else
		EXPECT_EQ(0, count);

	/* Purged pages stay out of the count when unpinned again... */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 0));
	EXPECT_PAGE_COUNTS(self->fd, 0, 7, 9);
	EXPECT_EQ(7, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	/* ...and pinned ones leave it. */
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_op(self->fd, ASHMEM_PIN, 0, 0));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 2, 4));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 2));
	EXPECT_EQ(2, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	count = shrinker_count();
	if (count >= 0)
		EXPECT_EQ(0, count);

	/*
	 * Big steps and a small rest: unpin 512 pages, pin back 505, purge
	 * the last 7.  A count kept in per-cpu batches must still reach 0.
	 */
	fd2 = open(ASHMEM_DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, set_size(fd2, pages(big)));
	ASSERT_MAPPED(mmap(NULL, pages(1), PROT_READ, MAP_SHARED, fd2, 0));
	ASSERT_EQ(0, pin_pages(fd2, ASHMEM_UNPIN, 0, half));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd2, ASHMEM_PIN, 0, half - 7));
	EXPECT_EQ(7, xioctl(fd2, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_EQ(0, xioctl(fd2, ASHMEM_PURGE_ALL_CACHES, 0));
	EXPECT_PAGE_COUNTS(fd2, big - 7, 0, 7);
	count = shrinker_count();
	if (count >= 0)
		EXPECT_EQ(0, count) TH_LOG("nothing is unpinned, the shrinker counts %lld", count);

	/* Closing drops unpinned pages from the count. */
	ASSERT_EQ(0, pin_pages(fd2, ASHMEM_UNPIN, 0, half + 3));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 8, 4));
	close(fd2);
	munmap(p, pages(16));
	close(self->fd);
	self->fd = open(ASHMEM_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	count = shrinker_count();
	if (count >= 0)
		EXPECT_EQ(0, count) TH_LOG("all areas closed, the shrinker counts %lld", count);
}

/*
 * 12. The unpinned list was kept in the wrong order (or a PIN removed the
 * wrong entry), so after pinning page 2 again the purge still punched
 * page 2 and left page 0, which was the one unpinned.
 */
TEST_F(ashmem_bug, range_order)
{
	char *p;

	if (!is_root())
		SKIP(return, "needs root (CAP_SYS_ADMIN)");
	p = area_map(self->fd, pages(4), PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(p);
	fill_pages(p, 4);
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));

	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 2, 1));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 1));
	EXPECT_EQ(1, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));

	EXPECT_TRUE(all_bytes(p + pages(2), page_byte(2), pages(1)))
		TH_LOG("page 2 was purged although pinned");
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(self->fd, ASHMEM_GET_PIN_STATUS, 2, 1));
	EXPECT_TRUE(all_bytes(p, 0, pages(1))) TH_LOG("page 0 not purged");
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_pages(self->fd, ASHMEM_GET_PIN_STATUS, 0, 1));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	EXPECT_TRUE(all_bytes(p + pages(1), page_byte(1), pages(1)));
	EXPECT_TRUE(all_bytes(p + pages(3), page_byte(3), pages(1)));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
	munmap(p, pages(4));
}

/* 13: workers, a purger and a memory hog, all bounded in time. */
struct svi {
	struct timespec end;
	int stop;	/* __atomic: set by the main thread */
	unsigned long ops[4], violations, was_purged, purge_calls;
	pthread_mutex_t lock;
};

static bool svi_over(struct svi *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return __atomic_load_n(&s->stop, __ATOMIC_RELAXED) || now.tv_sec > s->end.tv_sec ||
	       (now.tv_sec == s->end.tv_sec && now.tv_nsec >= s->end.tv_nsec);
}

static void svi_violation(struct svi *s, const char *what, size_t page)
{
	pthread_mutex_lock(&s->lock);
	if (s->violations++ < 10)
		fprintf(stderr, "# violation: %s (page %zu)\n", what, page);
	pthread_mutex_unlock(&s->lock);
}

static void svi_count(struct svi *s, int op)
{
	__atomic_add_fetch(&s->ops[op], 1, __ATOMIC_RELAXED);
}

static int svi_byte(size_t page, uint32_t gen)
{
	return 1 + (page * 31 + gen) % 255;
}

static void *svi_worker(void *arg)
{
	struct svi *s = arg;
	uint32_t seed = (uint32_t)(uintptr_t)&seed ^ (uint32_t)time(NULL);

	while (!svi_over(s)) {
		size_t n = 1 + xorshift(&seed) % 32, i, a, b;
		bool unpinned[32] = {};
		uint32_t gen = xorshift(&seed);
		int fd, k, r;
		char *p;

		fd = open(ASHMEM_DEV, O_RDWR);
		if (fd < 0) {
			svi_violation(s, "open failed", 0);
			break;
		}
		p = area_map(fd, pages(n), PROT_RW, MAP_SHARED);
		if (p == MAP_FAILED) {
			svi_violation(s, "mmap failed", 0);
			close(fd);
			break;
		}
		for (i = 0; i < n; i++)
			memset(p + pages(i), svi_byte(i, gen), pages(1));
		for (k = 0; k < 24 && !svi_over(s); k++) {
			a = xorshift(&seed) % n;
			b = a + xorshift(&seed) % (n - a);
			switch (xorshift(&seed) % 4) {
			case 0:
				if (pin_pages(fd, ASHMEM_UNPIN, a, b - a + 1))
					svi_violation(s, "UNPIN failed", a);
				for (i = a; i <= b; i++)
					unpinned[i] = true;
				svi_count(s, 0);
				break;
			case 1:
				r = pin_pages(fd, ASHMEM_PIN, a, b - a + 1);
				if (r < 0)
					svi_violation(s, "PIN failed", a);
				if (r == ASHMEM_WAS_PURGED)
					__atomic_add_fetch(&s->was_purged, 1,
							   __ATOMIC_RELAXED);
				for (i = a; i <= b; i++) {
					char *pg = p + pages(i);
					int c = svi_byte(i, gen);

					if (all_bytes(pg, c, pages(1)))
						continue;
					if (!unpinned[i] || r != ASHMEM_WAS_PURGED ||
					    !all_bytes(pg, 0, pages(1)))
						svi_violation(s, "PIN: data changed", i);
					memset(pg, c, pages(1));
				}
				for (i = a; i <= b; i++)
					unpinned[i] = false;
				svi_count(s, 1);
				break;
			case 2:
				r = pin_pages(fd, ASHMEM_GET_PIN_STATUS, a, b - a + 1);
				for (i = a; i <= b && !unpinned[i]; i++)
					;
				if (r != (i <= b ? ASHMEM_IS_UNPINNED :
						   ASHMEM_IS_PINNED))
					svi_violation(s, "GET_PIN_STATUS wrong", a);
				svi_count(s, 2);
				break;
			default:
				for (i = 0; i < n; i++)
					if (!unpinned[i] &&
					    !all_bytes(p + pages(i), svi_byte(i, gen),
						       pages(1)))
						svi_violation(s, "pinned page changed", i);
				svi_count(s, 3);
				break;
			}
		}
		/* Sometimes the area goes first, sometimes the mapping. */
		if (xorshift(&seed) & 1) {
			close(fd);
			for (i = 0; i < n; i++)
				if (!unpinned[i] &&
				    !all_bytes(p + pages(i), svi_byte(i, gen), pages(1)))
					svi_violation(s, "pinned page changed after close", i);
			munmap(p, pages(n));
		} else {
			munmap(p, pages(n));
			close(fd);
		}
	}
	return NULL;
}

static void *svi_purger(void *arg)
{
	struct svi *s = arg;
	int fd = open(ASHMEM_DEV, O_RDONLY);
	unsigned long k = 0;

	while (fd >= 0 && is_root() && !svi_over(s)) {
		if (ioctl(fd, ASHMEM_PURGE_ALL_CACHES) < 0)
			svi_violation(s, "PURGE_ALL_CACHES failed", 0);
		/* The shrinker itself, without memory pressure. */
		if (++k % 64 == 0)
			write_file("/proc/sys/vm/drop_caches", "2");
		s->purge_calls++;
		usleep(1000 + k % 4000);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int shrinker_race(void *arg)
{
	int seconds = *(int *)arg;
	pthread_t workers[3], purger;
	struct svi *s;
	pid_t hog;
	int i;

	s = calloc(1, sizeof(*s));
	if (!s)
		return 2;
	pthread_mutex_init(&s->lock, NULL);
	hog = start_memory_hog();
	if (hog < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &s->end);
	s->end.tv_sec += seconds;
	for (i = 0; i < 3; i++)
		if (pthread_create(&workers[i], NULL, svi_worker, s))
			return 2;
	if (pthread_create(&purger, NULL, svi_purger, s))
		return 2;
	for (i = 0; i < 3; i++)
		pthread_join(workers[i], NULL);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	pthread_join(purger, NULL);
	stop_child(hog);
	fprintf(stderr,
		"# unpin %lu, pin %lu (%lu WAS_PURGED), status %lu, verify %lu, purge rounds %lu, violations %lu\n",
		s->ops[0], s->ops[1], s->was_purged, s->ops[2], s->ops[3],
		s->purge_calls, s->violations);
	return s->violations || !s->ops[1] ? 1 : 0;
}

/*
 * 13. The shrinker took every area's mutex while reclaim could be entered
 * from an ioctl holding one (lockdep splat, deadlock), and walked ranges of
 * areas being released (use-after-free).  Pin, unpin, mmap and close race
 * with reclaim here; lockdep and KASAN in the debug kernel do the rest.
 */
TEST_F_TIMEOUT(ashmem_bug, shrinker_vs_ioctls, 180)
{
	int seconds = 20, ret;

	ret = run_bounded(shrinker_race, &seconds, 120);
	ASSERT_NE(-1, ret) TH_LOG("deadlock: still running after 120 s");
	EXPECT_EQ(0, ret);
}

/* Bad input */

FIXTURE(ashmem_area) {
	int fd;
};

FIXTURE_SETUP(ashmem_area)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem_area)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The backing file is reachable as /proc/PID/map_files/<range> by a
 * CAP_SYS_ADMIN process; there it must not change the area: no write, no
 * hole punching, no truncation (which would SIGBUS every mapper).  Opening
 * it for writing may be refused outright.
 */
TEST_F(ashmem_area, map_files_cannot_change_area)
{
	struct maps_entry e;
	char path[128], *p;
	int mfd;

	p = area_map(self->fd, pages(4), PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(p);
	fill_pages(p, 4);
	ASSERT_EQ(0, maps_find(p, &e));
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 e.start, e.end);
	if (access(path, F_OK))
		SKIP(return, "no %s (CONFIG_CHECKPOINT_RESTORE)", path);

	EXPECT_EQ(-1, truncate(path, pages(1)));
	mfd = open(path, O_RDWR | O_TRUNC);
	if (mfd >= 0)
		close(mfd);
	mfd = open(path, O_RDWR);
	if (mfd < 0) {
		TH_LOG("open(O_RDWR) refused: %s", strerror(errno));
	} else {
		EXPECT_EQ(-1, write(mfd, "w", 1));
		EXPECT_EQ(-1, fallocate(mfd, FALLOC_FL_PUNCH_HOLE |
					FALLOC_FL_KEEP_SIZE, 0, pages(2)));
		EXPECT_EQ(-1, ftruncate(mfd, pages(1)))
			TH_LOG("the backing file was truncated through map_files");
		EXPECT_EQ(-1, ftruncate(mfd, pages(64)));
		close(mfd);
	}
	mfd = open(path, O_RDONLY);
	if (mfd >= 0) {
		EXPECT_EQ(-1, ftruncate(mfd, pages(1)));
		EXPECT_MMAP_ERRNO(EPERM, mmap(NULL, pages(1), PROT_READ,
					      MAP_SHARED, mfd, 0));
		close(mfd);
	}

	EXPECT_EQ((off_t)pages(4), lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ(-1, touch_pages(p, 4, false));
	if (lseek(self->fd, 0, SEEK_END) == (off_t)pages(4)) {
		size_t i;

		for (i = 0; i < 4; i++)
			EXPECT_TRUE(all_bytes(p + pages(i), page_byte(i), pages(1)))
				TH_LOG("page %zu changed", i);
	}
	munmap(p, pages(4));
}

/* Every ioctl in every state of an area. */
enum area_state { ST_NEW, ST_SIZED, ST_MAPPED, ST_UNMAPPED };

#define STATE_SIZE	(pages(3) + 123)

FIXTURE(ashmem_state) {
	int fd;
	char *map;
	bool mapped_once;
	size_t size;
};

FIXTURE_VARIANT(ashmem_state) {
	enum area_state state;
};

FIXTURE_VARIANT_ADD(ashmem_state, new_area) {
	.state = ST_NEW,
};

FIXTURE_VARIANT_ADD(ashmem_state, sized) {
	.state = ST_SIZED,
};

FIXTURE_VARIANT_ADD(ashmem_state, mapped) {
	.state = ST_MAPPED,
};

FIXTURE_VARIANT_ADD(ashmem_state, mapping_gone) {
	.state = ST_UNMAPPED,
};

FIXTURE_SETUP(ashmem_state)
{
	self->map = NULL;
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
	self->size = variant->state == ST_NEW ? 0 : STATE_SIZE;
	self->mapped_once = variant->state >= ST_MAPPED;
	if (variant->state >= ST_SIZED)
		ASSERT_EQ(0, set_size(self->fd, STATE_SIZE));
	if (variant->state >= ST_MAPPED) {
		self->map = mmap(NULL, pages(4), PROT_RW, MAP_SHARED, self->fd, 0);
		ASSERT_MAPPED(self->map);
		snprintf(self->map, pages(1), "%s", "data");
	}
	if (variant->state == ST_UNMAPPED) {
		munmap(self->map, pages(4));
		self->map = NULL;
	}
}

FIXTURE_TEARDOWN(ashmem_state)
{
	if (self->map)
		munmap(self->map, pages(4));
	if (self->fd >= 0)
		close(self->fd);
}

struct bad_ptr {
	const char *what;
	unsigned long addr;
};

static int bad_pointers(struct bad_ptr *b)
{
	int n = 0;

	b[n++] = (struct bad_ptr){ "NULL", 0 };
	b[n++] = (struct bad_ptr){ "unmapped", (unsigned long)unmapped_addr() };
	b[n++] = (struct bad_ptr){ "kernel", kernel_addr() };
	b[n++] = (struct bad_ptr){ "last byte", ~0UL };
	if (LP64)
		b[n++] = (struct bad_ptr){ "non-canonical",
					   (unsigned long)NON_CANONICAL_64 };
	return n;
}

TEST_F(ashmem_state, bad_pointers_efault)
{
	int gfi_err = self->mapped_once ? EFAULT : EINVAL;
	char name[ASHMEM_NAME_LEN];
	struct bad_ptr b[8];
	int i, n = bad_pointers(b);

	for (i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "SET_NAME(%s)", b[i].what);
		EXPECT_ERRNO_AT(EFAULT, xioctl(self->fd, ASHMEM_SET_NAME, b[i].addr), what);
		snprintf(what, sizeof(what), "GET_NAME(%s)", b[i].what);
		EXPECT_ERRNO_AT(EFAULT, xioctl(self->fd, ASHMEM_GET_NAME, b[i].addr), what);
		snprintf(what, sizeof(what), "PIN(%s)", b[i].what);
		EXPECT_ERRNO_AT(EFAULT, xioctl(self->fd, ASHMEM_PIN, b[i].addr), what);
		snprintf(what, sizeof(what), "UNPIN(%s)", b[i].what);
		EXPECT_ERRNO_AT(EFAULT, xioctl(self->fd, ASHMEM_UNPIN, b[i].addr), what);
		snprintf(what, sizeof(what), "GET_PIN_STATUS(%s)", b[i].what);
		EXPECT_ERRNO_AT(EFAULT, xioctl(self->fd, ASHMEM_GET_PIN_STATUS,
					       b[i].addr), what);
		/* Before the first mmap there is no file id to store. */
		snprintf(what, sizeof(what), "GET_FILE_ID(%s)", b[i].what);
		EXPECT_ERRNO_AT(gfi_err, xioctl(self->fd, ASHMEM_GET_FILE_ID,
						b[i].addr), what);
	}

	/* Nothing changed. */
	memset(name, FILL, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(ASHMEM_NAME_DEF, name);
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	if (self->mapped_once)
		EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
}

/* Input ioctls may read from read-only memory; output ioctls must fail. */
TEST_F(ashmem_state, read_only_pointers)
{
	struct ashmem_pin *pin;
	unsigned long id;
	char name[ASHMEM_NAME_LEN];
	char *ro;

	ro = mmap(NULL, pages(1), PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(ro);
	memset(ro, FILL, pages(1));
	snprintf(ro, pages(1), "%s", "ro-name");
	pin = (struct ashmem_pin *)(ro + 512);
	pin->offset = 0;
	pin->len = pages(1);
	ASSERT_EQ(0, mprotect(ro, pages(1), PROT_READ));

	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME, ro + 1024));
	EXPECT_ERRNO(self->mapped_once ? EFAULT : EINVAL,
		     ioctl(self->fd, ASHMEM_GET_FILE_ID, ro + 1024));
	EXPECT_TRUE(all_bytes(ro + 1024, FILL, pages(1) - 1024));

	if (self->mapped_once) {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, ro));
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_UNPIN, pin));
		EXPECT_EQ(ASHMEM_IS_UNPINNED, ioctl(self->fd, ASHMEM_GET_PIN_STATUS, pin));
		EXPECT_EQ(ASHMEM_NOT_PURGED, ioctl(self->fd, ASHMEM_PIN, pin));
		EXPECT_EQ(ASHMEM_IS_PINNED, ioctl(self->fd, ASHMEM_GET_PIN_STATUS, pin));
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	} else {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, ro));
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_UNPIN, pin));
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_PIN_STATUS, pin));
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_PIN, pin));
	}
	memset(name, FILL, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(self->mapped_once ? ASHMEM_NAME_DEF : "ro-name", name);
	munmap(ro, pages(1));
}

/* Arguments that end in an unmapped page. */
TEST_F(ashmem_state, pointers_running_into_a_hole)
{
	char *hole = page_before_hole();
	struct ashmem_pin *pin;

	ASSERT_TRUE(!!hole);
	/* GET_NAME writes only the name and its NUL: 11 bytes fit. */
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, hole - sizeof(ASHMEM_NAME_DEF)));
	EXPECT_STREQ(ASHMEM_NAME_DEF, hole - sizeof(ASHMEM_NAME_DEF));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME,
				   hole - sizeof(ASHMEM_NAME_DEF) + 1));

	/* A pin argument whose len is in the hole. */
	pin = (struct ashmem_pin *)(hole - sizeof(pin->offset));
	pin->offset = 0;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_PIN, pin));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_UNPIN, pin));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_PIN_STATUS, pin));

	/* A file id that would straddle the hole. */
	EXPECT_ERRNO(self->mapped_once ? EFAULT : EINVAL,
		     ioctl(self->fd, ASHMEM_GET_FILE_ID, hole - sizeof(long) / 2));

	/* A name whose NUL would be in the hole; one that just fits. */
	memcpy(hole - 3, "abc", 3);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
	memcpy(hole - 3, "ab", 3);
	if (self->mapped_once)
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
	else
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
	munmap(hole - pages(1), pages(1));
}

TEST_F(ashmem_state, every_ioctl_with_valid_arguments)
{
	int pin_err = self->mapped_once ? 0 : EINVAL;
	char name[ASHMEM_NAME_LEN], expect_name[16];
	unsigned long id;
	long r;

	/* Getters */
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(ASHMEM_NAME_DEF, name);
	EXPECT_EQ((long long)self->size, fdinfo_num(self->fd, "size"));

	/* Name and size are fixed by the first mmap. */
	if (self->mapped_once) {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "n1"));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(2)));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, self->size));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, 0));
		snprintf(expect_name, sizeof(expect_name), "%s", ASHMEM_NAME_DEF);
	} else {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "n1"));
		EXPECT_EQ(0, set_size(self->fd, pages(2)));
		EXPECT_EQ((long)pages(2), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
		EXPECT_EQ(0, set_size(self->fd, self->size));
		snprintf(expect_name, sizeof(expect_name), "%s", "n1");
	}
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(expect_name, name);

	/* The mask only shrinks, in every state. */
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_RWX));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_RW));
	EXPECT_EQ(PROT_RW, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_RWX));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ | 0x8));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, ~0UL));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ | PROT_GROWSDOWN));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(0, set_prot_mask(self->fd, 0));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_PROT_MASK));

	/* Pin ioctls need the first mmap. */
	if (pin_err) {
		EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
		EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_GET_PIN_STATUS, 0, 1));
		EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
		EXPECT_ERRNO(EINVAL, pin_op(self->fd, ASHMEM_PIN, 0, 0));
	} else {
		EXPECT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
		EXPECT_EQ(ASHMEM_IS_UNPINNED,
			  pin_pages(self->fd, ASHMEM_GET_PIN_STATUS, 0, 1));
		EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
		EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0, 0));
		EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
	}

	/* File id */
	memset(&id, FILL, sizeof(id));
	if (self->mapped_once) {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
		EXPECT_EQ((long long)id, fdinfo_num(self->fd, "inode"));
	} else {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
		EXPECT_TRUE(all_bytes(&id, FILL, sizeof(id)));
		EXPECT_EQ(-1, fdinfo_num(self->fd, "inode"));
	}

	r = xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0);
	if (is_root()) {
		EXPECT_LE(0, r);
	} else {
		EXPECT_EQ(-1, r);
		EXPECT_EQ(EPERM, errno);
	}
}

/* Value ioctls and ioctls without argument ignore whatever is passed. */
TEST_F(ashmem_state, argument_ignored_where_there_is_none)
{
	struct bad_ptr b[8];
	int i, n = bad_pointers(b);

	for (i = 0; i < n; i++) {
		EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, b[i].addr))
			TH_LOG("GET_SIZE(%s)", b[i].what);
		EXPECT_EQ(PROT_RWX, xioctl(self->fd, ASHMEM_GET_PROT_MASK, b[i].addr))
			TH_LOG("GET_PROT_MASK(%s)", b[i].what);
		if (is_root())
			EXPECT_LE(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, b[i].addr))
				TH_LOG("PURGE_ALL_CACHES(%s)", b[i].what);
	}
}

TEST_F(ashmem_state, unknown_ioctls_enotty)
{
	const unsigned long cmds[] = {
		_IO(__ASHMEMIOC, 0),
		_IO(__ASHMEMIOC, 12),
		_IO(__ASHMEMIOC, 0xff),
		_IOR(__ASHMEMIOC, 1, char[ASHMEM_NAME_LEN]),	/* SET_NAME, wrong way */
		_IOW(__ASHMEMIOC, 2, char[ASHMEM_NAME_LEN]),	/* GET_NAME, wrong way */
		_IO(__ASHMEMIOC, 1),
		_IO(__ASHMEMIOC, 7),				/* PIN without size */
		_IOW(__ASHMEMIOC, 9, struct ashmem_pin),	/* not Android's */
		_IOR(__ASHMEMIOC, 4, int),
		_IOWR(__ASHMEMIOC, 8, struct ashmem_pin),
		_IO(0x78, 4),
		_IO('W', 7),
		0,
		0xffffffffUL,
	};
	const unsigned long lp64_cmds[] = {
		/* The 32-bit numbers mean nothing to a 64-bit process. */
		_IOW(__ASHMEMIOC, 3, uint32_t),
		_IOW(__ASHMEMIOC, 5, uint32_t),
		_IOR(__ASHMEMIOC, 11, uint32_t),
	};
	char buf[ASHMEM_NAME_LEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		char what[32];

		snprintf(what, sizeof(what), "cmd %#lx", cmds[i]);
		memset(buf, FILL, sizeof(buf));
		EXPECT_ERRNO_AT(ENOTTY, xioctl(self->fd, cmds[i], (unsigned long)buf), what);
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf))) TH_LOG("%s wrote", what);
		EXPECT_ERRNO_AT(ENOTTY, xioctl(self->fd, cmds[i], 0), what);
	}
	for (i = 0; LP64 && i < ARRAY_SIZE(lp64_cmds); i++) {
		char what[32];

		snprintf(what, sizeof(what), "cmd %#lx", lp64_cmds[i]);
		memset(buf, FILL, sizeof(buf));
		EXPECT_ERRNO_AT(ENOTTY, xioctl(self->fd, lp64_cmds[i],
					       (unsigned long)buf), what);
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf))) TH_LOG("%s wrote", what);
	}
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
}

TEST_F(ashmem_state, read_write_and_lseek)
{
	static const int whences[] = { SEEK_SET, SEEK_CUR, SEEK_END,
				       SEEK_DATA, SEEK_HOLE };
	char buf[64];
	unsigned int i;

	memset(buf, FILL, sizeof(buf));
	/* No write in any state: there is no write method. */
	EXPECT_ERRNO(EINVAL, write(self->fd, "x", 1));
	EXPECT_ERRNO(EINVAL, pwrite(self->fd, "x", 1, 0));

	switch (self->mapped_once ? ST_MAPPED : self->size ? ST_SIZED : ST_NEW) {
	case ST_NEW:
		EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf)));
		for (i = 0; i < 5; i++)
			EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, whences[i]));
		break;
	case ST_SIZED:
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, pread(self->fd, buf, sizeof(buf), 0));
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf)));
		for (i = 0; i < 5; i++)
			EXPECT_ERRNO(EBADF, lseek(self->fd, 0, whences[i]));
		break;
	default:
		EXPECT_EQ((ssize_t)sizeof(buf), read(self->fd, buf, sizeof(buf)));
		EXPECT_STREQ("data", buf);
		EXPECT_TRUE(all_bytes(buf + 5, 0, sizeof(buf) - 5));
		EXPECT_EQ((off_t)sizeof(buf), lseek(self->fd, 0, SEEK_CUR));
		EXPECT_EQ((off_t)self->size, lseek(self->fd, 0, SEEK_END));
		memset(buf, FILL, sizeof(buf));
		EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
		EXPECT_EQ(100, lseek(self->fd, -(off_t)self->size + 100, SEEK_END));
		EXPECT_EQ(0, lseek(self->fd, 0, SEEK_DATA));
		EXPECT_EQ((off_t)pages(1), lseek(self->fd, 0, SEEK_HOLE));
		EXPECT_ERRNO(ENXIO, lseek(self->fd, pages(1), SEEK_DATA));
		EXPECT_ERRNO(ENXIO, lseek(self->fd, self->size, SEEK_DATA));
		EXPECT_ERRNO(ENXIO, lseek(self->fd, self->size, SEEK_HOLE));
		EXPECT_ERRNO(EINVAL, lseek(self->fd, -1, SEEK_SET));
		EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, 5));
		memset(buf, FILL, sizeof(buf));
		EXPECT_EQ(10, pread(self->fd, buf, 10, self->size - 10));
		EXPECT_TRUE(all_bytes(buf, 0, 10));
		EXPECT_TRUE(all_bytes(buf + 10, FILL, sizeof(buf) - 10));
		EXPECT_EQ(0, pread(self->fd, buf, 10, self->size));
		EXPECT_EQ(0, pread(self->fd, buf, 10, (off_t)1 << 40));
		EXPECT_ERRNO(EINVAL, pread(self->fd, buf, 10, -1));
		break;
	}
}

TEST_F(ashmem_state, mmap)
{
	char *p;

	if (!self->size) {
		EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_RW,
					       MAP_SHARED, self->fd, 0));
		EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_RW,
					       MAP_PRIVATE, self->fd, 0));
		return;
	}
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(5), PROT_RW, MAP_SHARED,
				       self->fd, 0));
	p = mmap(NULL, pages(4), PROT_RW, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	EXPECT_EQ(-1, touch_pages(p, 4, true));
	EXPECT_STREQ(self->mapped_once ? "data" : "", p);
	munmap(p, pages(4));
	p = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, self->fd, pages(3));
	ASSERT_MAPPED(p);
	munmap(p, pages(1));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &(unsigned long){ 0 }));
}

/* SET_SIZE edges, on a new area. */
FIXTURE(ashmem_size) {
	int fd;
};

FIXTURE_VARIANT(ashmem_size) {
	unsigned long long size;
	bool lp64_only;		/* not a size_t value in a 32-bit process */
	bool valid;		/* SET_SIZE succeeds (64-bit view) */
	bool valid32;		/* SET_SIZE succeeds in a 32-bit process */
};

FIXTURE_VARIANT_ADD(ashmem_size, zero) {
	.size = 0, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, one) {
	.size = 1, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, page_minus_one) {
	.size = 4095, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, page_plus_one) {
	.size = 4097, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, int_max_plus_one) {
	.size = 0x80000000ULL, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, u32_max) {
	/* 2^32 - 1: SIZE_MAX in a 32-bit process, still fine. */
	.size = 0xffffffffULL, .valid = true, .valid32 = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, u32_max_plus_one) {
	.size = 0x100000000ULL, .lp64_only = true, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, max_lfs_filesize) {
	.size = 0x7fffffffffffffffULL, .lp64_only = true, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, max_lfs_filesize_plus_one) {
	.size = 0x8000000000000000ULL, .lp64_only = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, page_align_overflows) {
	.size = 0xfffffffffffff001ULL, .lp64_only = true,
};

FIXTURE_VARIANT_ADD(ashmem_size, size_max) {
	.size = 0xffffffffffffffffULL, .lp64_only = true,
};

FIXTURE_SETUP(ashmem_size)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem_size)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ashmem_size, set_size_then_use)
{
	unsigned long long aligned, npages;
	bool valid = LP64 ? variant->valid : variant->valid32;
	size_t size = (size_t)variant->size;
	long got;
	char *p;

	if (!LP64 && variant->lp64_only)
		SKIP(return, "not a size_t value in a 32-bit process");
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	if (!valid) {
		EXPECT_ERRNO(EINVAL, set_size(self->fd, size));
		EXPECT_EQ((long)pages(1), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
		return;
	}
	ASSERT_EQ(0, set_size(self->fd, size));
	/*
	 * ioctl(2) returns an int: GET_SIZE gives the low 32 bits, and those
	 * in 0xfffff001..0xffffffff look like an error (Android's ABI).
	 */
	errno = 0;
	got = xioctl(self->fd, ASHMEM_GET_SIZE, 0);
	if ((uint32_t)variant->size >= 0xfffff001U)
		TH_LOG("GET_SIZE: %ld (errno %d): the size does not fit", got, errno);
	else
		EXPECT_EQ((uint32_t)variant->size, (uint32_t)got);
	EXPECT_EQ((long long)variant->size, fdinfo_num(self->fd, "size"));
	if (!size) {
		EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_RW,
					       MAP_SHARED, self->fd, 0));
		return;
	}

	aligned = (variant->size + pages(1) - 1) & ~(unsigned long long)(pages(1) - 1);
	npages = aligned / pages(1);
	/* The last page maps, one more does not; nothing is reserved. */
	p = mmap(NULL, pages(1), PROT_RW, MAP_SHARED | MAP_NORESERVE,
		 self->fd, (off_t)(aligned - pages(1)));
	ASSERT_MAPPED(p);
	EXPECT_EQ(-1, touch_pages(p, 1, true));
	munmap(p, pages(1));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(2), PROT_RW,
				       MAP_SHARED | MAP_NORESERVE, self->fd,
				       (off_t)(aligned - pages(1))));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_RW,
				       MAP_SHARED | MAP_NORESERVE, self->fd,
				       (off_t)aligned));
	EXPECT_EQ((off_t)variant->size, lseek(self->fd, 0, SEEK_END));
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(1)));

	/* Pin ranges: len 0 reaches the end, even past 4 GiB. */
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0, 0));
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, 0, 0));
	EXPECT_EQ((long long)npages, fdinfo_num(self->fd, "unpinned"));
	if (npages < 0x100000)
		EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_PIN, npages, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0,
					     pages(1)));
	if (is_root()) {
		long purged = xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0);

		/* The same int return: only the low 32 bits of the count. */
		EXPECT_EQ((int)npages, (int)purged);
		EXPECT_EQ((long long)npages, fdinfo_num(self->fd, "purged"));
		EXPECT_EQ(ASHMEM_WAS_PURGED, pin_op(self->fd, ASHMEM_PIN, 0, 0));
	} else {
		EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, 0, 0));
	}
	EXPECT_EQ((long long)npages, fdinfo_num(self->fd, "pinned"));
}

/* PIN, UNPIN and GET_PIN_STATUS edges, on a mapped area of 4 pages + 1. */
FIXTURE(ashmem_pin_edge) {
	int fd;
	char *map;
};

FIXTURE_VARIANT(ashmem_pin_edge) {
	/* in pages, or raw bytes if raw is set */
	uint32_t offset, len;
	bool raw;
	bool valid;
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, whole_len_0) {
	.offset = 0, .len = 0, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, whole_exact) {
	.offset = 0, .len = 5, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, last_partial_page) {
	.offset = 4, .len = 1, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, last_page_len_0) {
	.offset = 4, .len = 0, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, end_len_0) {
	.offset = 5, .len = 0,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, one_page_past_end) {
	.offset = 0, .len = 6,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, crossing_end) {
	.offset = 4, .len = 2,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, starting_at_end) {
	.offset = 5, .len = 1,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, unaligned_offset) {
	.offset = 1, .len = 4096, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, unaligned_len) {
	.offset = 0, .len = 4097, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, unaligned_len_below_page) {
	.offset = 4096, .len = 1, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, offset_u32_max) {
	.offset = 0xffffffff, .len = 0, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, len_u32_max) {
	.offset = 0, .len = 0xffffffff, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, last_u32_page) {
	.offset = 0xfffff000, .len = 0, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, len_to_u32_end) {
	.offset = 0, .len = 0xfffff000, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, sum_overflows_u32) {
	.offset = 0xfffff000, .len = 0x1000, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_edge, sum_overflows_u32_2) {
	.offset = 0x1000, .len = 0xfffff000, .raw = true,
};

FIXTURE_SETUP(ashmem_pin_edge)
{
	self->map = MAP_FAILED;
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
	if (pages(1) != 4096)
		SKIP(return, "the edges assume 4 KiB pages");
	self->map = area_map(self->fd, pages(4) + 1, PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(self->map);
}

FIXTURE_TEARDOWN(ashmem_pin_edge)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, pages(5));
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ashmem_pin_edge, pin_unpin_status)
{
	uint32_t off = variant->raw ? variant->offset : pages(variant->offset);
	uint32_t len = variant->raw ? variant->len : pages(variant->len);
	long long covered;

	if (!variant->valid) {
		EXPECT_ERRNO(EINVAL, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
		EXPECT_ERRNO(EINVAL, pin_op(self->fd, ASHMEM_UNPIN, off, len));
		EXPECT_ERRNO(EINVAL, pin_op(self->fd, ASHMEM_PIN, off, len));
		EXPECT_PAGE_COUNTS(self->fd, 5, 0, 0);
		return;
	}
	covered = len ? len / pages(1) : 5 - off / pages(1);
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, off, len));
	EXPECT_PAGE_COUNTS(self->fd, 5 - covered, covered, 0);
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, off, len));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
	EXPECT_PAGE_COUNTS(self->fd, 5, 0, 0);
}

/* mmap edges, on an area of 4 pages + 1. */
FIXTURE(ashmem_mmap_edge) {
	int fd;
};

FIXTURE_VARIANT(ashmem_mmap_edge) {
	size_t len;		/* pages, or bytes if raw */
	unsigned long long offset;
	bool raw;
	int err;
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, whole) {
	.len = 5, .offset = 0,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, last_page) {
	.len = 1, .offset = 4,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, unaligned_length_rounds_up) {
	.len = 4097, .offset = 0, .raw = true,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, length_zero) {
	.len = 0, .offset = 0, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, one_page_too_long) {
	.len = 6, .offset = 0, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, crossing_end) {
	.len = 2, .offset = 4, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, at_end) {
	.len = 1, .offset = 5, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, unaligned_offset) {
	.len = 4096, .offset = 1, .raw = true, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, offset_past_4g) {
	.len = 4096, .offset = 0x100000000ULL, .raw = true, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, offset_huge) {
	.len = 4096, .offset = 0x7ffffffffffff000ULL, .raw = true, .err = EINVAL,
};

FIXTURE_SETUP(ashmem_mmap_edge)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
	if (pages(1) != 4096)
		SKIP(return, "the edges assume 4 KiB pages");
	ASSERT_EQ(0, set_size(self->fd, pages(4) + 1));
}

FIXTURE_TEARDOWN(ashmem_mmap_edge)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ashmem_mmap_edge, shared_and_private)
{
	size_t len = variant->raw ? variant->len : pages(variant->len);
	off_t off = variant->raw ? (off_t)variant->offset :
				   (off_t)pages(variant->offset);
	static const int types[] = { MAP_PRIVATE, MAP_SHARED };
	unsigned long id;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char *p;

		errno = 0;
		p = mmap(NULL, len, PROT_RW, types[i], self->fd, off);
		if (variant->err) {
			EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)p);
			EXPECT_EQ(variant->err, errno);
			if (p != MAP_FAILED)
				munmap(p, len);
			continue;
		}
		ASSERT_MAPPED(p);
		EXPECT_EQ(-1, touch_pages(p, page_align(len) / pages(1), true));
		munmap(p, len);
	}
	/* A refused mmap does not create the backing file. */
	if (variant->err)
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	else
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
}

/* Descriptors opened O_RDONLY and O_WRONLY. */
FIXTURE(ashmem_mode) {
	int fd;
};

FIXTURE_VARIANT(ashmem_mode) {
	int flags;
};

FIXTURE_VARIANT_ADD(ashmem_mode, rdonly) {
	.flags = O_RDONLY,
};

FIXTURE_VARIANT_ADD(ashmem_mode, wronly) {
	.flags = O_WRONLY,
};

FIXTURE_SETUP(ashmem_mode)
{
	self->fd = open(ASHMEM_DEV, variant->flags);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, ASHMEM_DEV " is missing (CONFIG_ASHMEM)");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem_mode)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The driver does not look at the open mode: every ioctl works. */
TEST_F(ashmem_mode, ioctls_work)
{
	char name[ASHMEM_NAME_LEN];
	unsigned long id;

	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "mode"));
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ("mode", name);
	EXPECT_EQ(0, set_size(self->fd, pages(2)));
	EXPECT_EQ((long)pages(2), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_RW));
	EXPECT_EQ(PROT_RW, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO(__ASHMEMIOC, 12)));
	if (is_root())
		EXPECT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
}

TEST_F(ashmem_mode, read_write_lseek)
{
	char buf[16];

	memset(buf, FILL, sizeof(buf));
	if (variant->flags == O_WRONLY) {
		/* The VFS refuses before the driver sees anything. */
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EINVAL, write(self->fd, "x", 1));
		EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, SEEK_SET));
		ASSERT_EQ(0, set_size(self->fd, pages(1)));
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, lseek(self->fd, 0, SEEK_SET));
	} else {
		EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, write(self->fd, "x", 1));
		EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, SEEK_SET));
		ASSERT_EQ(0, set_size(self->fd, pages(1)));
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, lseek(self->fd, 0, SEEK_END));
	}
	EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf)));
}

TEST_F(ashmem_mode, mmap)
{
	struct maps_entry e, e2;
	unsigned long id;
	char buf[64];
	char *p, *q, *priv;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "mode"));
	ASSERT_EQ(0, set_size(self->fd, pages(2)));
	if (variant->flags == O_WRONLY) {
		/* Every mapping needs read access to the file. */
		EXPECT_MMAP_ERRNO(EACCES, mmap(NULL, pages(2), PROT_READ,
					       MAP_SHARED, self->fd, 0));
		EXPECT_MMAP_ERRNO(EACCES, mmap(NULL, pages(2), PROT_RW,
					       MAP_SHARED, self->fd, 0));
		EXPECT_MMAP_ERRNO(EACCES, mmap(NULL, pages(2), PROT_WRITE,
					       MAP_PRIVATE, self->fd, 0));
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
		return;
	}

	/* O_RDONLY: no writable shared mapping, and no backing file made. */
	EXPECT_MMAP_ERRNO(EACCES, mmap(NULL, pages(2), PROT_RW, MAP_SHARED,
				       self->fd, 0));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));

	/* A read-only shared mapping maps the shared backing file. */
	p = mmap(NULL, pages(2), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("r--s", e.perms);
	EXPECT_EQ((unsigned long long)id, e.inode);
	EXPECT_STREQ("/dev/ashmem/mode (deleted)", e.path);
	EXPECT_ERRNO(EACCES, mprotect(p, pages(2), PROT_RW));
	q = mmap(NULL, pages(2), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(q);
	ASSERT_EQ(0, maps_find(q, &e2));
	EXPECT_EQ(e.inode, e2.inode);
	EXPECT_EQ(-1, touch_pages(p, 2, false));
	EXPECT_TRUE(all_bytes(p, 0, pages(2)));

	/* A private writable mapping is the process's own memory. */
	priv = mmap(NULL, pages(2), PROT_RW, MAP_PRIVATE, self->fd, 0);
	ASSERT_MAPPED(priv);
	memset(priv, 'w', pages(2));
	EXPECT_TRUE(all_bytes(p, 0, pages(2)));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), pread(self->fd, buf, sizeof(buf), 0));
	EXPECT_TRUE(all_bytes(buf, 0, sizeof(buf)));

	/* Pinning works on a read-only descriptor. */
	EXPECT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_pages(self->fd, ASHMEM_GET_PIN_STATUS, 0, 2));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 1));
	munmap(priv, pages(2));
	munmap(q, pages(2));
	munmap(p, pages(2));
}

TEST_HARNESS_MAIN
