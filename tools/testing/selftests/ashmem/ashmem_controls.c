// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time controls of ashmem, one device each:
 * /dev/ashmem_unpinning_enable (default 1) lets memory pressure purge
 * unpinned pages, /dev/ashmem_ignore_unset_prot_read and _exec (default 0)
 * make ASHMEM_SET_PROT_MASK keep PROT_READ and PROT_EXEC.  Anyone may read
 * them, only CAP_SYS_ADMIN in the initial user namespace may write them.
 *
 * Needs root.  The controls are global: every test puts the defaults back.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define UNPINNING	"/dev/ashmem_unpinning_enable"
#define PROT_READ_CTL	"/dev/ashmem_ignore_unset_prot_read"
#define PROT_EXEC_CTL	"/dev/ashmem_ignore_unset_prot_exec"

#define MIB		((size_t)1 << 20)
#define AREA_MB		16
#define LIMIT		"32M"
#define HOG_MB		256	/* what the child in the cgroup tries to fill */

/* The controls and their defaults, which teardowns write back. */
static const struct {
	const char *path;
	const char *def;
} controls[] = {
	{ UNPINNING, "1\n" },
	{ PROT_READ_CTL, "0\n" },
	{ PROT_EXEC_CTL, "0\n" },
};

static void restore_defaults(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(controls); i++)
		write_file(controls[i].path, controls[i].def);
}

/* The control's value, "0\n" or "1\n", or "" if it cannot be read. */
static const char *control_value(const char *path)
{
	static char buf[16];

	if (read_small(path, buf, sizeof(buf)))
		buf[0] = '\0';
	return buf;
}

/* A write of @len bytes of @val in one write(): its return value, errno. */
static ssize_t control_write(int fd, const char *val, size_t len)
{
	return pwrite(fd, val, len, 0);
}

FIXTURE(control) {
	int fd;		/* the control, opened read-write as root */
};

FIXTURE_VARIANT(control) {
	const char *path;
	const char *def;
	const char *other;	/* the value that is not the default */
};

FIXTURE_VARIANT_ADD(control, unpinning_enable) {
	.path = UNPINNING, .def = "1\n", .other = "0\n",
};

FIXTURE_VARIANT_ADD(control, ignore_unset_prot_read) {
	.path = PROT_READ_CTL, .def = "0\n", .other = "1\n",
};

FIXTURE_VARIANT_ADD(control, ignore_unset_prot_exec) {
	.path = PROT_EXEC_CTL, .def = "0\n", .other = "1\n",
};

FIXTURE_SETUP(control)
{
	self->fd = -1;
	if (!root_and_ashmem(_metadata))
		return;
	self->fd = open(variant->path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", variant->path, strerror(errno));
	restore_defaults();
}

FIXTURE_TEARDOWN(control)
{
	restore_defaults();
	if (self->fd >= 0)
		close(self->fd);
}

/* Root reads the default and writes every spelling kstrtobool() takes. */
TEST_F(control, root_reads_and_writes)
{
	static const struct {
		const char *in, *out;
	} writes[] = {
		{ "0", "0\n" }, { "1\n", "1\n" }, { "n", "0\n" }, { "Y", "1\n" },
		{ "off", "0\n" }, { "on\n", "1\n" }, { "no\n", "0\n" },
	};
	char buf[8];
	size_t i;

	EXPECT_STREQ(variant->def, control_value(variant->path));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(2, pread(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, variant->def, 2));
	EXPECT_EQ(FILL, (unsigned char)buf[2]);
	/* Past the end, nothing more. */
	EXPECT_EQ(0, pread(self->fd, buf, sizeof(buf), 2));

	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		size_t len = strlen(writes[i].in);

		EXPECT_EQ((ssize_t)len, control_write(self->fd, writes[i].in, len))
			TH_LOG("write \"%s\": %s", writes[i].in, strerror(errno));
		EXPECT_STREQ(writes[i].out, control_value(variant->path));
	}
}

/* Anything kstrtobool() refuses, and more than 15 bytes, is EINVAL. */
TEST_F(control, bad_writes_einval)
{
	static const char * const bad[] = {
		"maybe", "", "\n", "2", "-1", "111111111111111\n",
	};
	size_t i;

	ASSERT_EQ(2, control_write(self->fd, variant->other, 2));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_ERRNO_AT(EINVAL, control_write(self->fd, bad[i],
						      strlen(bad[i])), bad[i]);
	EXPECT_STREQ(variant->other, control_value(variant->path));
	/* Up to 15 bytes are parsed, and kstrtobool() reads their start. */
	EXPECT_EQ(15, control_write(self->fd, "1              ", 15));
	EXPECT_EQ(15, control_write(self->fd, "0              ", 15));
	EXPECT_STREQ("0\n", control_value(variant->path));
}

/*
 * A task without CAP_SYS_ADMIN may read, and gets EPERM on a write even
 * through a descriptor root opened: the check is at write time.  The
 * task is nobody, or with @userns root of a new user namespace.
 */
static int unprivileged_child(const char *path, const char *def, int fd,
			      bool userns)
{
	char buf[8];
	int rfd;

	if (userns ? unshare_user_ns(0) : become_nobody())
		return 10;
	rfd = open(path, O_RDONLY);
	if (rfd < 0)
		return 11;
	memset(buf, FILL, sizeof(buf));
	if (read(rfd, buf, sizeof(buf)) != 2 || memcmp(buf, def, 2))
		return 12;
	close(rfd);

	errno = 0;
	if (pwrite(fd, "1", 1, 0) != -1 || errno != EPERM)
		return 13;
	errno = 0;
	if (pwrite(fd, "0", 1, 0) != -1 || errno != EPERM)
		return 14;
	/* A bad value from a task that may not write is EPERM too. */
	errno = 0;
	if (pwrite(fd, "maybe", 5, 0) != -1 || errno != EPERM)
		return 15;
	return 0;
}

static void check_unprivileged(struct __test_metadata *_metadata,
			       const char *path, const char *def, int fd,
			       bool userns)
{
	pid_t pid;

	if (userns && unshare_errno(CLONE_NEWUSER))
		SKIP(return, "no user namespaces (CONFIG_USER_NS)");
	pid = fork_checked(_metadata);
	if (pid == 0)
		_exit(unprivileged_child(path, def, fd, userns));
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_STREQ(def, control_value(path));
}

TEST_F(control, nobody_reads_and_gets_eperm)
{
	check_unprivileged(_metadata, variant->path, variant->def, self->fd,
			   false);
}

TEST_F(control, userns_root_reads_and_gets_eperm)
{
	check_unprivileged(_metadata, variant->path, variant->def, self->fd,
			   true);
}

/*
 * The protection toggles: with one on, SET_PROT_MASK without its bit keeps
 * the bit where the current mask has it, and GET_PROT_MASK shows it.
 */
FIXTURE(prot) {
	int fd;
	int ctl;
};

FIXTURE_VARIANT(prot) {
	const char *path;
	unsigned long bit;
};

FIXTURE_VARIANT_ADD(prot, read) {
	.path = PROT_READ_CTL, .bit = PROT_READ,
};

FIXTURE_VARIANT_ADD(prot, exec) {
	.path = PROT_EXEC_CTL, .bit = PROT_EXEC,
};

FIXTURE_SETUP(prot)
{
	self->fd = -1;
	self->ctl = -1;
	if (!root_and_ashmem(_metadata))
		return;
	restore_defaults();
	self->ctl = open(variant->path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->ctl);
	self->fd = open_area(_metadata, O_RDWR);
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
}

FIXTURE_TEARDOWN(prot)
{
	restore_defaults();
	if (self->ctl >= 0)
		close(self->ctl);
	if (self->fd >= 0)
		close(self->fd);
}

/* Off, the default: the bit goes, and mmap() with it is refused. */
TEST_F(prot, off_drops_the_bit)
{
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_RWX & ~variant->bit));
	EXPECT_EQ(PROT_RWX & ~variant->bit, xioctl(self->fd, ASHMEM_GET_PROT_MASK, 0));
	EXPECT_ERRNO(EPERM, map_fd(self->fd, pages(1), variant->bit, MAP_SHARED, 0));
}

/* On: the bit stays, in the mask, in mmap() and in mprotect(). */
TEST_F(prot, on_keeps_the_bit)
{
	char *p;

	ASSERT_EQ(1, write(self->ctl, "1", 1));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_WRITE));
	EXPECT_EQ(PROT_WRITE | variant->bit,
		  xioctl(self->fd, ASHMEM_GET_PROT_MASK, 0));
	/* Only its own bit: the other one of READ and EXEC went. */
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_RWX));

	if (variant->bit == PROT_EXEC && dev_noexec())
		SKIP(return, "the device's file system is mounted noexec");
	p = map_fd_checked(_metadata, self->fd, pages(1), PROT_WRITE, MAP_SHARED, 0);
	EXPECT_EQ(0, mprotect(p, pages(1), PROT_WRITE | variant->bit));
	if (variant->bit == PROT_READ) {
		p[0] = 0x5a;
		EXPECT_EQ(0x5a, p[0]);
	}
	EXPECT_EQ(0, munmap(p, pages(1)));
	p = map_fd_checked(_metadata, self->fd, pages(1), variant->bit, MAP_SHARED, 0);
	EXPECT_EQ(0, munmap(p, pages(1)));
}

/* On, a bit the mask no longer has stays away and cannot come back. */
TEST_F(prot, on_does_not_restore_a_dropped_bit)
{
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_WRITE));
	ASSERT_EQ(1, write(self->ctl, "1", 1));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_WRITE));
	EXPECT_EQ(PROT_WRITE, xioctl(self->fd, ASHMEM_GET_PROT_MASK, 0));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_WRITE | variant->bit));
	/* Off again: the next SET_PROT_MASK drops the bit as before. */
	EXPECT_EQ(0, close(self->fd));
	self->fd = open_area(_metadata, O_RDWR);
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	ASSERT_EQ(1, write(self->ctl, "0", 1));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_WRITE));
	EXPECT_EQ(PROT_WRITE, xioctl(self->fd, ASHMEM_GET_PROT_MASK, 0));
}

/*
 * Unpinning off under memory pressure: a child in a memory cgroup at its
 * limit, charged for an unpinned area, fills memory until the OOM killer
 * kills it; the area is still resident and whole afterwards, and
 * PURGE_ALL_CACHES purges it.  On again, the same pressure purges it.
 */
FIXTURE(pressure) {
	int fd;
	char *map;
	char top[64];
	char cg[PATH_MAX];
	char home[PATH_MAX];
};

FIXTURE_SETUP(pressure)
{
	char path[PATH_MAX];

	self->fd = -1;
	if (!root_and_ashmem(_metadata))
		return;
	if (!cgroup2_memory())
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG)");
	if (swap_on())
		SKIP(return, "swap is on: the limit need not purge nor kill");
	restore_defaults();
	ASSERT_EQ(0, cg_self(self->home, sizeof(self->home)));
	snprintf(self->top, sizeof(self->top), "%s/ashmem_controls.%d",
		 CG_ROOT, getpid());
	ASSERT_EQ(0, write_str(CG_ROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(self->top, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->top);
	ASSERT_EQ(0, write_str(path, "+memory"));
	ASSERT_EQ(0, cg_make(self->top, "a", LIMIT, self->cg));
}

FIXTURE_TEARDOWN(pressure)
{
	restore_defaults();
	if (self->fd >= 0) {
		munmap(self->map, AREA_MB * MIB);
		close(self->fd);
	}
	if (self->cg[0])
		rmdir(self->cg);
	if (self->top[0])
		rmdir(self->top);
}

/*
 * An area filled from inside the cgroup, so that its pages are charged
 * there, then unpinned; the test goes back to its own cgroup.
 */
static void make_unpinned_area(struct __test_metadata *_metadata,
			       const char *cg, const char *home, int *fd,
			       char **map)
{
	int entered;

	if (*fd >= 0) {
		munmap(*map, AREA_MB * MIB);
		close(*fd);
	}
	entered = cg_enter(cg);
	*fd = entered ? -1 : area_filled(AREA_MB * MIB, map);
	ASSERT_EQ(0, cg_enter(home));
	ASSERT_EQ(0, entered);
	ASSERT_LE(0, *fd);
	ASSERT_EQ(0, pin_pages(*fd, ASHMEM_UNPIN, 0, AREA_MB * MIB / pages(1)));
}

/* A child in the cgroup fills memory until the OOM killer kills it. */
static void hog_until_killed(struct __test_metadata *_metadata, const char *cg)
{
	long kills = cg_event(cg, "oom_kill");
	pid_t pid = fork_checked(_metadata);

	if (pid == 0) {
		size_t i;
		char *p;

		if (cg_enter(cg))
			_exit(2);
		for (i = 0; i < HOG_MB; i++) {
			p = mmap(NULL, MIB, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
			if (p == MAP_FAILED)
				_exit(3);
			memset(p, 0x5a, MIB);
		}
		_exit(0);
	}
	EXPECT_EQ(128 + SIGKILL, wait_child(pid));
	EXPECT_LT(kills, cg_event(cg, "oom_kill"));
}

/* Whether every page of the area still holds what fill_pages() wrote. */
static bool area_intact(const char *map)
{
	size_t i, n = AREA_MB * MIB / pages(1);

	for (i = 0; i < n; i++)
		if (!all_bytes(map + pages(i), page_byte(i), pages(1)))
			return false;
	return true;
}

TEST_F(pressure, off_keeps_unpinned_pages_on_keeps_purging)
{
	size_t n = AREA_MB * MIB / pages(1);
	long purged;

	make_unpinned_area(_metadata, self->cg, self->home, &self->fd, &self->map);
	ASSERT_EQ(0, write_str(UNPINNING, "0"));
	hog_until_killed(_metadata, self->cg);
	EXPECT_EQ(0, fdinfo_num(self->fd, "purged"));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, n));
	EXPECT_TRUE(area_intact(self->map));

	/* Still off: PURGE_ALL_CACHES purges. */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, n));
	purged = xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0);
	EXPECT_LE((long)n, purged);
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, n));

	/* On again: the pressure purges a new unpinned area. */
	ASSERT_EQ(0, write_str(UNPINNING, "1"));
	make_unpinned_area(_metadata, self->cg, self->home, &self->fd, &self->map);
	hog_until_killed(_metadata, self->cg);
	EXPECT_LT(0, fdinfo_num(self->fd, "purged"));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, n));
}

TEST_HARNESS_MAIN
