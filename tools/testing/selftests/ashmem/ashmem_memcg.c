// SPDX-License-Identifier: GPL-2.0
/*
 * Unpinned ashmem in memory cgroups (cgroup v2).  A page is charged to the
 * cgroup of the task that touches it first, whoever created or mapped the
 * area.  A cgroup's own reclaim (it hits memory.max, or memory.reclaim is
 * written) purges the unpinned pages charged to that cgroup and no other
 * cgroup's, whoever unpins them; global reclaim and PURGE_ALL_CACHES purge
 * every cgroup's; the ranges of a removed cgroup go to its parent.
 *
 * Needs root and CONFIG_MEMCG; mounts cgroup2 on /sys/fs/cgroup, in a mount
 * namespace of its own, if nothing is mounted there.  The cgroups are made
 * under the root of the hierarchy, whatever cgroup the test runs in.  The
 * limits assume no swap (with swap, reclaim can swap out the anonymous
 * memory instead of purging): with swap on, the tests that rely on a limit
 * skip.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define MIB		((size_t)1 << 20)

/* Limit, area and anonymous memory of the memory.max tests. */
#define LIMIT		"64M"
#define AREA_MB		48
#define ANON_MB		48

/*
 * Whether a cgroup's reclaim counts a purge as progress: with ashmem's mm
 * patches (shmem_set_file() is one of them), or before Linux 6.4, which
 * counted what any shrinker freed as progress of every reclaim.  A stock
 * 6.4 or later with the out-of-tree module counts it for global reclaim
 * only.
 */
static bool kernel_counts_purges(void)
{
	struct utsname u;
	int major, minor;

	if (kernel_symbol("shmem_set_file") == 1)
		return true;
	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major < 6 || (major == 6 && minor < 4));
}

/* An area made from inside @cg, so that it belongs to @cg; unpinned. */
static int area_in(const char *cg, const char *home, size_t size, char **map)
{
	int fd;

	if (cg_enter(cg))
		return -1;
	fd = area_filled(size, map);
	if (cg_enter(home) || fd < 0 ||
	    pin_pages(fd, ASHMEM_UNPIN, 0, size / pages(1))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * The pressure child: in @cg, fill an area of AREA_MB, unpin it if @unpin,
 * then fill ANON_MB of anonymous memory.  Exits 0 if PIN then says the
 * area was purged, 1 if not, 2 if something else failed; the OOM killer
 * kills it instead if nothing could be purged.
 */
static void __noreturn pressure_child(const char *cg, bool unpin)
{
	size_t area = AREA_MB * MIB, anon = ANON_MB * MIB;
	long long purged;
	char *map, *mem;
	int fd, ret;

	if (cg_enter(cg))
		_exit(2);
	fd = area_filled(area, &map);
	if (fd < 0)
		_exit(2);
	if (unpin && pin_pages(fd, ASHMEM_UNPIN, 0, area / pages(1)))
		_exit(2);

	mem = mmap(NULL, anon, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(2);
	memset(mem, 0x5a, anon);

	purged = fdinfo_num(fd, "purged");
	/*
	 * The cgroup is at its limit, and the rest of the area is all it
	 * could still reclaim: with it pinned, the next page the child
	 * touches (one of its C library's, copied on write) would find
	 * nothing to reclaim.  Its anonymous memory goes first.
	 */
	munmap(mem, anon);
	ret = pin_pages(fd, ASHMEM_PIN, 0, area / pages(1));
	printf("# child in %s: %zu MiB anonymous touched; ", cg, anon / MIB);
	printf("area pages purged: %lld; PIN returned %d\n", purged, ret);
	fflush(stdout);
	if (ret == ASHMEM_WAS_PURGED)
		_exit(0);
	_exit(ret == ASHMEM_NOT_PURGED ? 1 : 2);
}

static int run_pressure(const char *cg, bool unpin)
{
	int status = -1;
	pid_t pid = fork_child();

	if (pid == 0)
		pressure_child(cg, unpin);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void log_events(struct __test_metadata *_metadata, const char *cg)
{
	TH_LOG("%s memory.events: max %ld, oom %ld, oom_kill %ld", cg,
	       cg_event(cg, "max"), cg_event(cg, "oom"), cg_event(cg, "oom_kill"));
}

FIXTURE(memcg) {
	char top[64];		/* /sys/fs/cgroup/ashmem_memcg.PID */
	char home[PATH_MAX];	/* the cgroup the test started in */
};

/* The cgroups the tests make under top; the teardown removes them. */
static const char * const cg_names[] = { "a", "b", "c" };

FIXTURE_SETUP(memcg)
{
	char path[PATH_MAX];

	if (!root_and_ashmem(_metadata))
		return;
	if (!cgroup2_memory())
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG)");

	ASSERT_EQ(0, cg_self(self->home, sizeof(self->home)));
	snprintf(self->top, sizeof(self->top), "%s/ashmem_memcg.%d", CG_ROOT,
		 getpid());
	ASSERT_EQ(0, write_str(CG_ROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(self->top, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->top);
	ASSERT_EQ(0, write_str(path, "+memory"));
}

FIXTURE_TEARDOWN(memcg)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cg_names); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->top, cg_names[i]);
		rmdir(path);
	}
	if (self->top[0])
		rmdir(self->top);
}

/*
 * pressure_child() in cgroup @a, made under @top with memory.max LIMIT: its
 * wait status, or -1 if swap is on and the test skipped.
 */
static int limited_pressure(struct __test_metadata *_metadata, const char *top,
			    char *a, bool unpin)
{
	int status;

	if (swap_on())
		SKIP(return -1, "swap is on: reclaim need not purge, nor the limit kill");
	ASSERT_EQ(0, cg_make(top, "a", LIMIT, a));
	status = run_pressure(a, unpin);
	log_events(_metadata, a);
	return status;
}

/* The cgroup's own limit purges its unpinned area; no OOM kill. */
TEST_F(memcg, limit_purges_unpinned)
{
	char a[PATH_MAX];
	int status = limited_pressure(_metadata, self->top, a, true);

	if (status == -1)
		return;
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("child killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("PIN did not say WAS_PURGED");
	EXPECT_EQ(0, cg_event(a, "oom_kill"));
	/* The limit was hit: the purge came from the cgroup's reclaim. */
	EXPECT_LT(0, cg_event(a, "max"));
}

/* The control: the same with the area pinned ends in an OOM kill. */
TEST_F(memcg, limit_kills_when_pinned)
{
	char a[PATH_MAX];
	int status = limited_pressure(_metadata, self->top, a, false);

	if (status == -1)
		return;
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("child status %#x: survived with its area pinned", status);
	EXPECT_LE(1, cg_event(a, "oom_kill"));
}

/* Pressure in a cgroup leaves a sibling's unpinned area alone. */
TEST_F(memcg, sibling_not_purged)
{
	const size_t n = 16 * MIB / pages(1);
	char a[PATH_MAX], b[PATH_MAX], *map;
	int fd, status;
	size_t i;

	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	fd = area_in(b, self->home, pages(n), &map);
	ASSERT_LE(0, fd);
	status = limited_pressure(_metadata, self->top, a, true);
	if (status == -1)
		return;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("a's own area was not purged");

	TH_LOG("b's area: %lld pages unpinned, %lld purged",
	       fdinfo_num(fd, "unpinned"), fdinfo_num(fd, "purged"));
	EXPECT_EQ(0, fdinfo_num(fd, "purged"));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 0, n));
	for (i = 0; i < n; i++)
		if (!all_bytes(map + pages(i), page_byte(i), pages(1)))
			break;
	EXPECT_EQ(n, i) TH_LOG("b's page %zu lost its data", i);
	close(fd);
}

/* Global reclaim purges the unpinned areas of every cgroup. */
TEST_F(memcg, global_pressure_purges_all)
{
	const size_t n = 32 * MIB / pages(1);
	char a[PATH_MAX], b[PATH_MAX], *map_a, *map_b;
	struct timespec start, now;
	long long oom_kills;
	int fd_a, fd_b;
	pid_t hog;

	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	fd_a = area_in(a, self->home, pages(n), &map_a);
	ASSERT_LE(0, fd_a);
	fd_b = area_in(b, self->home, pages(n), &map_b);
	ASSERT_LE(0, fd_b);

	/* The hog is in the test's own cgroup: the pressure is global. */
	oom_kills = vm_event("oom_kill");
	hog = start_memory_hog();
	ASSERT_LT(0, hog);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		usleep(100 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((fdinfo_num(fd_a, "purged") <= 0 ||
		  fdinfo_num(fd_b, "purged") <= 0) &&
		 now.tv_sec - start.tv_sec < 120);
	stop_child(hog);
	oom_kills = vm_event("oom_kill") - oom_kills;

	TH_LOG("after %lds of global pressure: a purged %lld pages, b %lld",
	       (long)(now.tv_sec - start.tv_sec), fdinfo_num(fd_a, "purged"),
	       fdinfo_num(fd_b, "purged"));
	/* Unpinned pages only go by purging: if some are left, they were there. */
	if (oom_kills) {
		EXPECT_EQ(0, fdinfo_num(fd_a, "unpinned") +
			  fdinfo_num(fd_b, "unpinned"))
			TH_LOG("%lld OOM kills while unpinned pages were resident",
			       oom_kills);
	}
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd_a, ASHMEM_PIN, 0, n));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd_b, ASHMEM_PIN, 0, n));
	close(fd_a);
	close(fd_b);
}

/* PURGE_ALL_CACHES purges every cgroup's unpinned areas. */
TEST_F(memcg, purge_all_caches_purges_all)
{
	char a[PATH_MAX], b[PATH_MAX], *map_a, *map_b;
	int fd_a, fd_b;
	long purged;

	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	fd_a = area_in(a, self->home, pages(8), &map_a);
	ASSERT_LE(0, fd_a);
	fd_b = area_in(b, self->home, pages(4), &map_b);
	ASSERT_LE(0, fd_b);

	purged = xioctl(fd_a, ASHMEM_PURGE_ALL_CACHES, 0);
	TH_LOG("PURGE_ALL_CACHES purged %ld pages", purged);
	EXPECT_LE(12, purged);
	EXPECT_EQ(8, fdinfo_num(fd_a, "purged"));
	EXPECT_EQ(4, fdinfo_num(fd_b, "purged"));
	close(fd_a);
	close(fd_b);
}

/*
 * memory.reclaim of N bytes, in a cgroup with far more unpinned ashmem than
 * that, purges about N, the least recently unpinned first, and succeeds.
 */
TEST_F(memcg, reclaim_purges_what_is_asked)
{
	const size_t stripe = 4 * MIB / pages(1), stripes = 16;
	const size_t n = 2 * stripes * stripe;
	char a[PATH_MAX], path[PATH_MAX + 16], *map, *page;
	size_t i, s, oldest_zero = 0, newer_purged = 0;
	long long purged;
	int fd;

	if (swap_on())
		SKIP(return, "swap is on: reclaim may swap instead of purging");
	if (!kernel_counts_purges())
		SKIP(return, "stock kernel: cgroup reclaim does not count purges");
	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_enter(a));
	fd = area_filled(pages(n), &map);
	ASSERT_EQ(0, cg_enter(self->home));
	ASSERT_LE(0, fd);
	/* Every other 4 MiB, oldest first. */
	for (s = 0; s < stripes; s++)
		ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 2 * s * stripe, stripe));

	snprintf(path, sizeof(path), "%s/memory.reclaim", a);
	EXPECT_EQ(0, write_str(path, "4M"))
		TH_LOG("memory.reclaim of 4M: %s", strerror(errno));
	purged = fdinfo_num(fd, "purged");
	TH_LOG("memory.reclaim of 4M purged %lld of %zu unpinned pages",
	       purged, stripes * stripe);
	EXPECT_LE((long long)stripe, purged);
	EXPECT_GE(2LL * stripe, purged);

	/* The oldest stripe went first; the newest are untouched. */
	page = malloc(pages(1));
	ASSERT_TRUE(!!page);
	for (s = 0; s < stripes; s++) {
		size_t zero = 0, intact = 0;

		for (i = 2 * s * stripe; i < (2 * s + 1) * stripe; i++) {
			ASSERT_EQ(pages(1), pread(fd, page, pages(1), pages(i)));
			zero += all_bytes(page, 0, pages(1));
			intact += all_bytes(page, page_byte(i), pages(1));
		}
		if (s == 0)
			oldest_zero = zero;
		else if (s >= 2 && intact != stripe)
			newer_purged++;
	}
	free(page);
	EXPECT_EQ(stripe, oldest_zero) TH_LOG("the oldest stripe kept pages");
	EXPECT_EQ(0, newer_purged) TH_LOG("newer stripes lost pages");
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, stripe));
	EXPECT_EQ(ASHMEM_NOT_PURGED,
		  pin_pages(fd, ASHMEM_PIN, 2 * (stripes - 1) * stripe, stripe));
	munmap(map, pages(n));
	close(fd);
}

/*
 * An area filled from cgroup a and mapped, while it is unpinned, by a task
 * in cgroup b (the fd passed on, as from an app to a system service): the
 * area and its pages are a's, so b's reclaim purges none of it, and a's
 * purges all of it.
 */
TEST_F(memcg, mapped_from_another_cgroup)
{
	const size_t n = 4 * MIB / pages(1);
	char a[PATH_MAX], b[PATH_MAX], *map, c;
	int fd, ready[2], done[2];
	pid_t pid;

	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	fd = area_in(a, self->home, pages(n), &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *view;

		if (cg_enter(b))
			_exit(1);
		view = mmap(NULL, pages(n), PROT_READ, MAP_SHARED, fd, 0);
		if (view == MAP_FAILED || touch_pages(view, n, false) >= 0 ||
		    write(ready[1], "r", 1) != 1)
			_exit(2);
		/* The mapping stays until the parent has reclaimed. */
		_exit(read(done[0], &c, 1) == 1 ? 0 : 3);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));

	ASSERT_EQ(0, cg_reclaim(b, "16M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fdinfo_num(fd, "purged")) TH_LOG("b's reclaim purged a's area");
	ASSERT_EQ(0, cg_reclaim(a, "4M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ((long long)n, fdinfo_num(fd, "purged"));

	ASSERT_EQ(1, write(done[1], "d", 1));
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, n));
	EXPECT_TRUE(all_bytes(map, 0, pages(n)));
	munmap(map, pages(n));
	close(fd);
}

/* Who creates an area that another cgroup fills, and who unpins it. */
enum elsewhere {
	FILLER_UNPINS,
	CREATOR_UNPINS,
	CREATOR_IN_ROOT,	/* the creator is in the test's cgroup */
};

/*
 * A browser creates discardable memory and a renderer fills it: an area
 * created and mapped in cgroup b (no limit) is filled by a child in cgroup
 * a (memory.max LIMIT), its pages then unpinned by the filler or the
 * creator, and the child allocates until a must purge them.  Returns the
 * child's wait status: 0 if PIN then said the area was purged, or -1 if
 * swap is on.
 */
static int filled_elsewhere(struct __test_metadata *_metadata,
			    const char *top, const char *home, char *a,
			    enum elsewhere who)
{
	size_t n = AREA_MB * MIB / pages(1), anon = ANON_MB * MIB;
	int fd, filled[2], go[2], status;
	char b[PATH_MAX], *map, c;
	pid_t pid;

	if (swap_on())
		SKIP(return -1, "swap is on: reclaim need not purge, nor the limit kill");
	ASSERT_EQ(0, cg_make(top, "a", LIMIT, a));
	ASSERT_EQ(0, cg_make(top, "b", NULL, b));
	fd = area_mapped_in(who == CREATOR_IN_ROOT ? home : b, home, pages(n),
			    &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(filled));
	ASSERT_EQ(0, pipe(go));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *mem;

		if (cg_enter(a))
			_exit(2);
		fill_pages(map, n);
		if (who != CREATOR_UNPINS && pin_pages(fd, ASHMEM_UNPIN, 0, n))
			_exit(2);
		if (write(filled[1], "f", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		mem = mmap(NULL, anon, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (mem == MAP_FAILED)
			_exit(2);
		memset(mem, 0x5a, anon);
		_exit(pin_pages(fd, ASHMEM_PIN, 0, n) == ASHMEM_WAS_PURGED ? 0 : 1);
	}
	ASSERT_EQ(1, read(filled[0], &c, 1));
	if (who == CREATOR_UNPINS)
		ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, n));
	ASSERT_EQ(1, write(go[1], "g", 1));
	status = wait_child(pid);
	ASSERT_LE(0, status);
	log_events(_metadata, a);
	TH_LOG("area: %lld pages purged", fdinfo_num(fd, "purged"));
	munmap(map, pages(n));
	close(fd);
	return status;
}

/* The filler's limit purges what it filled and unpinned; no OOM kill. */
TEST_F(memcg, filled_elsewhere_purged_at_limit)
{
	char a[PATH_MAX];
	int status = filled_elsewhere(_metadata, self->top, self->home, a,
				      FILLER_UNPINS);

	if (status == -1)
		return;
	EXPECT_EQ(0, status) TH_LOG("the filler was not purged for (status %#x)",
				    status);
	EXPECT_EQ(0, cg_event(a, "oom_kill"));
}

/* The same when another cgroup's task unpins the pages. */
TEST_F(memcg, unpinned_elsewhere_purged_at_limit)
{
	char a[PATH_MAX];
	int status = filled_elsewhere(_metadata, self->top, self->home, a,
				      CREATOR_UNPINS);

	if (status == -1)
		return;
	EXPECT_EQ(0, status) TH_LOG("the filler was not purged for (status %#x)",
				    status);
	EXPECT_EQ(0, cg_event(a, "oom_kill"));
}

/* The same with an area created by a process in the root cgroup. */
TEST_F(memcg, created_in_root_purged_at_limit)
{
	char a[PATH_MAX];
	int status = filled_elsewhere(_metadata, self->top, self->home, a,
				      CREATOR_IN_ROOT);

	if (status == -1)
		return;
	EXPECT_EQ(0, status) TH_LOG("the filler was not purged for (status %#x)",
				    status);
	EXPECT_EQ(0, cg_event(a, "oom_kill"));
}

/*
 * One area, half of it filled by cgroup a (no limit), half by cgroup c
 * (memory.max LIMIT), unpinned whole by its creator: when c allocates, its
 * reclaim purges its own half and leaves a's.
 */
TEST_F(memcg, charged_to_two_cgroups)
{
	size_t n = AREA_MB * MIB / pages(1), half = n / 2, anon = ANON_MB * MIB;
	char a[PATH_MAX], c[PATH_MAX], *map;
	int fd, status;
	pid_t pid;

	if (swap_on())
		SKIP(return, "swap is on: reclaim need not purge, nor the limit kill");
	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "c", LIMIT, c));
	fd = area_mapped_in(self->home, self->home, pages(n), &map);
	ASSERT_LE(0, fd);
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cg_enter(a))
			_exit(1);
		fill_pages(map, half);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cg_enter(c))
			_exit(1);
		fill_pages(map + pages(half), n - half);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, n));

	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *mem;

		if (cg_enter(c))
			_exit(2);
		mem = mmap(NULL, anon, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (mem == MAP_FAILED)
			_exit(2);
		memset(mem, 0x5a, anon);
		_exit(0);
	}
	status = wait_child(pid);
	log_events(_metadata, c);
	TH_LOG("area: %lld pages purged", fdinfo_num(fd, "purged"));
	EXPECT_EQ(0, status) TH_LOG("c's child status %#x", status);
	EXPECT_EQ(0, cg_event(c, "oom_kill"));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 0, half))
		TH_LOG("c's reclaim purged a's pages");
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, half, n - half));
	munmap(map, pages(n));
	close(fd);
}

/* One side of an UNPIN/PIN race: waits for the start, then one ioctl. */
struct race_side {
	int fd;
	unsigned long cmd;
	size_t n;
	atomic_int *go;
	int ret;
};

static void *race_side_fn(void *arg)
{
	struct race_side *side = arg;

	while (!atomic_load(side->go))
		;
	side->ret = pin_pages(side->fd, side->cmd, 0, side->n);
	return NULL;
}

/*
 * An UNPIN of a whole area whose halves are charged to two cgroups, racing
 * with a PIN of the whole area: each ioctl changes the area at once, so
 * after both the pages are all pinned or all unpinned, never some of each.
 */
TEST_F(memcg, unpin_atomic_across_cgroups)
{
	const size_t n = 4 * MIB / pages(1), half = n / 2;
	char a[PATH_MAX], c[PATH_MAX], *map;
	struct race_side unpin, pin;
	struct page_counts counts;
	pthread_t thread[2];
	int fd, round, mixed = 0;
	atomic_int go;

	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "c", NULL, c));
	fd = area_mapped_in(self->home, self->home, pages(n), &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cg_enter(a));
	fill_pages(map, half);
	ASSERT_EQ(0, cg_enter(c));
	fill_pages(map + pages(half), n - half);
	ASSERT_EQ(0, cg_enter(self->home));

	unpin = (struct race_side){ fd, ASHMEM_UNPIN, n, &go, -1 };
	pin = (struct race_side){ fd, ASHMEM_PIN, n, &go, -1 };
	for (round = 0; round < 200 && !mixed; round++) {
		ASSERT_LE(0, pin_pages(fd, ASHMEM_PIN, 0, n));
		atomic_store(&go, 0);
		ASSERT_EQ(0, pthread_create(&thread[0], NULL, race_side_fn,
					    &unpin));
		ASSERT_EQ(0, pthread_create(&thread[1], NULL, race_side_fn,
					    &pin));
		atomic_store(&go, 1);
		pthread_join(thread[0], NULL);
		pthread_join(thread[1], NULL);
		ASSERT_EQ(0, unpin.ret);
		ASSERT_LE(0, pin.ret);
		ASSERT_EQ(0, page_counts(fd, &counts));
		if (counts.pinned != 0 && counts.pinned != (long long)n) {
			TH_LOG("round %d: %lld of %zu pages pinned", round,
			       counts.pinned, n);
			mixed++;
		}
	}
	EXPECT_EQ(0, mixed);
	munmap(map, pages(n));
	close(fd);
}

/*
 * memory.reclaim of the cgroup that filled an area purges its pages; of
 * the cgroup that created and mapped it, nothing.
 */
TEST_F(memcg, reclaim_follows_the_filler)
{
	const size_t n = 4 * MIB / pages(1);
	char a[PATH_MAX], b[PATH_MAX], *map;
	int fd;
	pid_t pid;

	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	fd = area_mapped_in(b, self->home, pages(n), &map);
	ASSERT_LE(0, fd);
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cg_enter(a))
			_exit(1);
		fill_pages(map, n);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, n));

	ASSERT_EQ(0, cg_reclaim(b, "16M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fdinfo_num(fd, "purged")) TH_LOG("the creator's reclaim purged");
	ASSERT_EQ(0, cg_reclaim(a, "4M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ((long long)n, fdinfo_num(fd, "purged"));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, n));
	EXPECT_TRUE(all_bytes(map, 0, pages(n)));
	munmap(map, pages(n));
	close(fd);
}

/*
 * A process at its memory.max pins every other page of its unpinned area:
 * each PIN splits a range, and the range it needs is charged to the
 * cgroup.  Reclaim for that charge purges the area's other pages; nobody
 * is killed.
 */
TEST_F(memcg, splits_at_limit_purge)
{
	size_t n = AREA_MB * MIB / pages(1), anon = ANON_MB * MIB, i;
	char a[PATH_MAX];
	int status;
	pid_t pid;

	if (swap_on())
		SKIP(return, "swap is on: reclaim need not purge, nor the limit kill");
	ASSERT_EQ(0, cg_make(self->top, "a", LIMIT, a));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *map, *mem;
		int fd;

		if (cg_enter(a))
			_exit(2);
		fd = area_filled(pages(n), &map);
		if (fd < 0 || pin_pages(fd, ASHMEM_UNPIN, 0, n))
			_exit(2);
		mem = mmap(NULL, anon, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (mem == MAP_FAILED)
			_exit(2);
		memset(mem, 0x5a, anon);
		for (i = 0; i < n; i += 2)
			if (pin_pages(fd, ASHMEM_PIN, i, 1) < 0)
				_exit(3);
		_exit(0);
	}
	status = wait_child(pid);
	log_events(_metadata, a);
	EXPECT_EQ(0, status) TH_LOG("child status %#x", status);
	EXPECT_EQ(0, cg_event(a, "oom_kill"));
	EXPECT_LT(0, cg_event(a, "max"));
}

/*
 * An area outlives its cgroup.  Its ranges go to the parent, and so
 * do ranges unpinned after the removal: the parent's own reclaim
 * (memory.reclaim) purges both.
 */
TEST_F(memcg, removed_cgroup_reparented)
{
	char c[PATH_MAX], *map;
	int fd, i;

	ASSERT_EQ(0, cg_make(self->top, "c", NULL, c));
	fd = area_in(c, self->home, pages(8), &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd, ASHMEM_PIN, 4, 4));
	ASSERT_EQ(0, rmdir(c));
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 6, 2));

	if (cg_reclaim(self->top, "1M"))
		TH_LOG("memory.reclaim: %s", strerror(errno));
	TH_LOG("after memory.reclaim of the parent: %lld pages purged",
	       fdinfo_num(fd, "purged"));
	EXPECT_EQ(6, fdinfo_num(fd, "purged"));
	EXPECT_EQ(0, fdinfo_num(fd, "unpinned"));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, 8));
	for (i = 0; i < 8; i++) {
		bool kept = i == 4 || i == 5;

		EXPECT_TRUE(all_bytes(map + pages(i), kept ? page_byte(i) : 0,
				      pages(1))) TH_LOG("page %d", i);
	}
	munmap(map, pages(8));
	close(fd);
}

/* A removed cgroup's area is purged by global reclaim. */
TEST_F(memcg, removed_cgroup_global_purge)
{
	char c[PATH_MAX], *map;
	int fd;

	ASSERT_EQ(0, cg_make(self->top, "c", NULL, c));
	fd = area_in(c, self->home, pages(16), &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rmdir(c));

	/* Every shrinker, in every cgroup: global slab reclaim. */
	ASSERT_EQ(0, write_str("/proc/sys/vm/drop_caches", "2"));
	TH_LOG("after drop_caches: %lld pages purged", fdinfo_num(fd, "purged"));
	EXPECT_EQ(16, fdinfo_num(fd, "purged"));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, 16));
	EXPECT_TRUE(all_bytes(map, 0, pages(16)));
	munmap(map, pages(16));
	close(fd);
}

TEST_HARNESS_MAIN
