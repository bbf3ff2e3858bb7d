// SPDX-License-Identifier: GPL-2.0
/*
 * The ashmem trace events, read back from tracefs: every field of
 * ashmem_pin, ashmem_unpin, ashmem_purge and ashmem_shrink for a known
 * sequence of ioctls and a shrinker run (drop_caches).
 *
 * Needs root and CONFIG_TRACING; mounts tracefs, and cgroup2 for the memcg
 * field, in a mount namespace of its own where nothing is mounted.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define MAX_EVENTS	256

/* One ashmem event as printed in the trace; unused fields stay -1. */
struct event {
	char name[16];
	long long ino, first, last, ret, freed, memcg, requested;
};

/* A file of tracefs: TRACE("trace"), say. */
#define TRACE(file)	TRACEFS "/" file

static long long field(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* The ashmem events in the trace buffer, oldest first. */
static int read_events(struct event *ev, int max)
{
	char line[512];
	FILE *f = fopen(TRACEFS "/trace", "re");
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		/*
		 * "TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS": TASK is
		 * ashmem_trace itself, so look for ": ashmem_".
		 */
		char *p = strstr(line, ": ashmem_");
		size_t len;

		if (line[0] == '#' || !p)
			continue;
		p += 2;
		len = strcspn(p, ":");
		if (len >= sizeof(ev[n].name))
			continue;
		memcpy(ev[n].name, p, len);
		ev[n].name[len] = '\0';
		p += len + 1;
		ev[n].ino = field(p, "ino");
		ev[n].first = field(p, "first");
		ev[n].last = field(p, "last");
		ev[n].ret = field(p, "ret");
		ev[n].freed = field(p, "freed");
		ev[n].memcg = field(p, "memcg");
		ev[n].requested = field(p, "requested");
		n++;
	}
	fclose(f);
	return n;
}

/* On a failure: what the trace holds, and whether the events are on. */
static void dump_trace(struct __test_metadata *_metadata)
{
	char line[512];
	FILE *f;
	int n = 0;

	f = fopen(TRACEFS "/events/ashmem/enable", "re");
	if (f && fgets(line, sizeof(line), f))
		TH_LOG("events/ashmem/enable: %s", line);
	if (f)
		fclose(f);
	f = fopen(TRACEFS "/trace", "re");
	while (f && n++ < 40 && fgets(line, sizeof(line), f))
		TH_LOG("trace: %s", line);
	if (f)
		fclose(f);
}

static unsigned long file_id(int fd)
{
	unsigned long id = 0;

	return ioctl(fd, ASHMEM_GET_FILE_ID, &id) ? 0 : id;
}

FIXTURE(trace) {
	int fd;
	char *map;
	unsigned long ino;
	struct event ev[MAX_EVENTS];
};

FIXTURE_SETUP(trace)
{
	self->fd = -1;
	if (!root_and_ashmem(_metadata))
		return;
	if (!mount_if_missing(TRACE("events/ashmem"), "tracefs", TRACEFS))
		SKIP(return, "no events/ashmem in tracefs (CONFIG_TRACING)");

	self->fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->map = area_map(self->fd, pages(64), PROT_RW, MAP_SHARED);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->map);
	/* Pages 32 to 63 are never touched, so never resident. */
	fill_pages(self->map, 32);
	self->ino = file_id(self->fd);
	ASSERT_NE(0, self->ino);

	/*
	 * Clearing the buffer hides events stamped before the clear, by
	 * the clock of the CPU that cleared it; the default per-CPU clock
	 * can run behind on another CPU, which would hide real events.
	 */
	ASSERT_EQ(0, write_str(TRACE("trace_clock"), "global"));
	/*
	 * With record-cmd on, enabling an event also hooks sched_switch,
	 * which patches __schedule() while the other CPUs run it; under
	 * qemu's TCG that has ended in an int3 oops. The task names are
	 * not needed here.
	 */
	ASSERT_EQ(0, write_str(TRACE("options/record-cmd"), "0"));
	ASSERT_EQ(0, write_str(TRACE("tracing_on"), "0"));
	ASSERT_EQ(0, write_str(TRACE("trace"), ""));
	ASSERT_EQ(0, write_str(TRACE("events/ashmem/enable"), "1"));
	ASSERT_EQ(0, write_str(TRACE("tracing_on"), "1"));
}

FIXTURE_TEARDOWN(trace)
{
	write_str(TRACE("events/ashmem/enable"), "0");
	write_str(TRACE("options/record-cmd"), "1");
	if (self->fd >= 0)
		close(self->fd);
}

#define EXPECT_EVENT(e, nm, i, f, l, r) do {				\
	const struct event *__e = (e);					\
									\
	EXPECT_STREQ(nm, __e->name);					\
	EXPECT_EQ((long long)(i), __e->ino);				\
	EXPECT_EQ(f, __e->first);					\
	EXPECT_EQ(l, __e->last);					\
	EXPECT_EQ(r, __e->ret);						\
} while (0)

TEST_F(trace, pin_unpin_purge)
{
	struct event *ev = self->ev;
	int n;

	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 2, 4));
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 3, 1));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 30, 4));
	/* Unpinned, oldest first: [2, 2], [4, 5], [30, 33]: 7 pages. */
	ASSERT_EQ(7, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0));
	/* A length of 0 means to the end of the area. */
	ASSERT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 0));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 60, 0));
	ASSERT_EQ(0, write_str(TRACE("tracing_on"), "0"));

	n = read_events(ev, MAX_EVENTS);
	if (n != 8)
		dump_trace(_metadata);
	ASSERT_EQ(8, n) TH_LOG("%d ashmem events in the trace", n);
	EXPECT_EVENT(&ev[0], "ashmem_unpin", self->ino, 2, 5, 0);
	EXPECT_EVENT(&ev[1], "ashmem_pin", self->ino, 3, 3, ASHMEM_NOT_PURGED);
	EXPECT_EVENT(&ev[2], "ashmem_unpin", self->ino, 30, 33, 0);
	/* freed: the pages that were resident, of the range purged. */
	EXPECT_STREQ("ashmem_purge", ev[3].name);
	EXPECT_EQ(self->ino, ev[3].ino);
	EXPECT_EQ(2, ev[3].first);
	EXPECT_EQ(2, ev[3].last);
	EXPECT_EQ(1, ev[3].freed);
	EXPECT_STREQ("ashmem_purge", ev[4].name);
	EXPECT_EQ(4, ev[4].first);
	EXPECT_EQ(5, ev[4].last);
	EXPECT_EQ(2, ev[4].freed);
	EXPECT_STREQ("ashmem_purge", ev[5].name);
	EXPECT_EQ(30, ev[5].first);
	EXPECT_EQ(33, ev[5].last);
	EXPECT_EQ(2, ev[5].freed);
	EXPECT_EVENT(&ev[6], "ashmem_pin", self->ino, 0, 63, ASHMEM_WAS_PURGED);
	EXPECT_EVENT(&ev[7], "ashmem_unpin", self->ino, 60, 63, 0);
}

TEST_F(trace, shrinker_scan)
{
	/* A purge goes in batches of 512 KiB: 128 pages of 4K, 32 of 16K. */
	const long long batch = (512 << 10) / pages(1);
	char cg[512], path[PATH_MAX];
	long long memcg = 0, requested = 0;
	struct event *ev = self->ev;
	int i, n, scans = 0, purges = 0;
	long long freed = 0, purge_freed = 0, next = 0;
	struct stat st;

	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 0));
	/* Every shrinker, down to the last object: drop_slab(). */
	write_file("/proc/sys/vm/drop_caches", "2");
	ASSERT_EQ(0, write_str(TRACE("tracing_on"), "0"));
	EXPECT_EQ(64, fdinfo_num(self->fd, "purged"));

	n = read_events(ev, MAX_EVENTS);
	ASSERT_LE(2, n);
	for (i = 0; i < n; i++) {
		if (!strcmp(ev[i].name, "ashmem_purge")) {
			/* The batches follow each other over the range. */
			EXPECT_EQ(self->ino, ev[i].ino);
			EXPECT_EQ(next, ev[i].first);
			EXPECT_GE(63, ev[i].last);
			EXPECT_GE(batch, ev[i].freed);
			next = ev[i].last + 1;
			purge_freed += ev[i].freed;
			purges++;
		} else if (!strcmp(ev[i].name, "ashmem_shrink") &&
			   ev[i].freed > 0) {
			freed += ev[i].freed;
			requested = ev[i].requested;
			memcg = ev[i].memcg;
			scans++;
		}
	}
	TH_LOG("shrink scans that purged: %d (requested %lld, freed %lld, memcg %lld)",
	       scans, requested, freed, memcg);
	/* The range's 32 resident pages; in one batch if the range fits. */
	EXPECT_EQ(64, next);
	EXPECT_EQ(32, purge_freed);
	if (batch >= 64)
		EXPECT_EQ(1, purges);
	EXPECT_EQ(1, scans);
	EXPECT_EQ(64, freed);
	EXPECT_LT(0, requested);

	/*
	 * The memcg field is the inode of the area's cgroup directory, and 0
	 * on a kernel without memory cgroups.
	 */
	if (access("/proc/self/cgroup", F_OK)) {
		EXPECT_EQ(0, memcg);
		return;
	}
	ASSERT_TRUE(mount_if_missing(CG_ROOT "/cgroup.controllers", "cgroup2", CG_ROOT));
	ASSERT_EQ(0, read_small(CG_ROOT "/cgroup.controllers", cg, sizeof(cg)));
	if (!strstr(cg, "memory")) {
		EXPECT_EQ(0, memcg);
		return;
	}
	ASSERT_EQ(0, cg_self(path, sizeof(path))) TH_LOG("not cgroup2 only");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ((long long)st.st_ino, memcg);
}

TEST_HARNESS_MAIN
