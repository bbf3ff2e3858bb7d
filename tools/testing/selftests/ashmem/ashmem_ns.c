// SPDX-License-Identifier: GPL-2.0
/*
 * ashmem in the namespaces Android containers (Waydroid, redroid) run in:
 * user, PID, network, IPC, UTS and cgroup.  Root of a user namespace is not
 * root of the machine: PURGE_ALL_CACHES, which purges every area, needs
 * CAP_SYS_ADMIN in the initial user namespace.  Areas cross namespace
 * boundaries as file descriptors (SCM_RIGHTS) and answer the same on both
 * sides.  A cgroup namespace changes how a process sees cgroup paths, not
 * the cgroup its areas belong to.
 *
 * Needs root, to make the namespaces as a container runtime does; skips
 * where the kernel has no user namespaces (CONFIG_USER_NS) or no memory
 * cgroups.  The checks made in the namespaces run in child processes,
 * which print each failure and exit with their number.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define MIB		((size_t)1 << 20)
#define AREA_PAGES	4

/* The namespaces of a container, besides its user namespace. */
#define CONTAINER_NS	(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |	\
			 CLONE_NEWUTS | CLONE_NEWCGROUP)

/* The exit status of a child that could not make its namespaces. */
#define NO_NAMESPACES	100

static int child_failures;

/* The end of a child that made CHILD_CHECK()s: the number that failed. */
static void __noreturn child_exit(void)
{
	fflush(stdout);
	_exit(child_failures);
}

/* A check in a child process: a failure is printed and counted. */
#define CHILD_CHECK(cond, fmt, ...) do {				\
	if (!(cond)) {							\
		printf("# %s:%d: %s: " fmt "\n", __FILE__, __LINE__,	\
		       #cond, ##__VA_ARGS__);				\
		child_failures++;					\
	}								\
} while (0)

/* A call that must return -1 with errno @err, both checked apart. */
#define CHILD_CHECK_ERRNO(err, call) do {				\
	long __r;							\
	int __e;							\
	errno = 0;							\
	__r = (long)(call);						\
	__e = errno;							\
	CHILD_CHECK(__r == -1, "returned %ld", __r);			\
	CHILD_CHECK(__e == (err), "errno %d (%s)", __e, strerror(__e));	\
} while (0)

/* GET_NAME and GET_SIZE of @fd, in a child: @name and @size. */
static void child_check_area(int fd, const char *name, size_t size)
{
	char buf[ASHMEM_NAME_LEN];
	int ret;

	memset(buf, FILL, sizeof(buf));
	ret = ioctl(fd, ASHMEM_GET_NAME, buf);
	CHILD_CHECK(ret == 0, "GET_NAME returned %d (%s)", ret, strerror(errno));
	buf[sizeof(buf) - 1] = '\0';
	CHILD_CHECK(!strcmp(buf, name), "name \"%s\"", buf);
	CHILD_CHECK(xioctl(fd, ASHMEM_GET_SIZE, 0) == (long)size, "size %ld",
		    xioctl(fd, ASHMEM_GET_SIZE, 0));
}

/* A new area named @name of @n pages, mapped shared and filled: fd or -1. */
static int named_area(const char *name, size_t n, char **map)
{
	int fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, ASHMEM_SET_NAME, name)) {
		close(fd);
		return -1;
	}
	*map = area_map(fd, pages(n), PROT_RW, MAP_SHARED);
	if (*map == MAP_FAILED) {
		close(fd);
		return -1;
	}
	fill_pages(*map, n);
	return fd;
}

FIXTURE(ns) {
	char top[64];	/* /sys/fs/cgroup/ashmem_ns.PID, if made */
};

FIXTURE_SETUP(ns)
{
	int err;

	if (!root_and_ashmem(_metadata))
		return;
	err = unshare_errno(CLONE_NEWUSER | CONTAINER_NS);
	if (err == EINVAL)
		SKIP(return, "no user, PID, network, IPC, UTS or cgroup namespaces");
	ASSERT_EQ(0, err) TH_LOG("unshare of a container's namespaces: %s",
				 strerror(err));
}

FIXTURE_TEARDOWN(ns)
{
	char path[PATH_MAX];

	if (!self->top[0])
		return;
	snprintf(path, sizeof(path), "%s/a", self->top);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/b", self->top);
	rmdir(path);
	rmdir(self->top);
}

/*
 * Root of its own user namespace (it may rename its UTS namespace) is
 * refused PURGE_ALL_CACHES, which purges nothing then; real root is not.
 */
TEST_F(ns, purge_all_caches_needs_initial_ns_admin)
{
	char *map;
	long purged;
	pid_t pid;
	int fd;

	fd = area_filled(pages(AREA_PAGES), &map);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_pages(fd, ASHMEM_UNPIN, 0, AREA_PAGES));

	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (unshare_user_ns(CLONE_NEWUTS)) {
			printf("# unshare_user_ns: %s\n", strerror(errno));
			fflush(stdout);
			_exit(NO_NAMESPACES);
		}
		CHILD_CHECK(sethostname("container", 9) == 0,
			    "sethostname: %s", strerror(errno));
		CHILD_CHECK_ERRNO(EPERM, xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0));
		child_exit();
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(0, fdinfo_num(fd, "purged")) TH_LOG("the refused purge purged");

	purged = xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0);
	EXPECT_LE(AREA_PAGES, purged) TH_LOG("PURGE_ALL_CACHES: %ld (%s)",
					     purged, strerror(errno));
	EXPECT_EQ(AREA_PAGES, fdinfo_num(fd, "purged"));
	munmap(map, pages(AREA_PAGES));
	close(fd);
}

/*
 * In a container's namespaces (pid 1 of its PID namespace): receive an
 * area made outside, check it and write page 0, pin and unpin page 1; make
 * an area, unpin its page 0 and send it out; once told, check that page 1
 * holds what the outside wrote.
 */
static void __noreturn container(int sock)
{
	char *map_out, *map_in, c;
	int fd_out, fd_in;

	CHILD_CHECK(getpid() == 1, "pid %d in the new PID namespace", getpid());
	fd_out = recv_fd(sock, &c, 1);
	CHILD_CHECK(fd_out >= 0, "recv_fd: %s", strerror(errno));
	if (fd_out < 0)
		child_exit();
	child_check_area(fd_out, "outside", pages(AREA_PAGES));
	map_out = mmap(NULL, pages(AREA_PAGES), PROT_RW, MAP_SHARED, fd_out, 0);
	CHILD_CHECK(map_out != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map_out == MAP_FAILED)
		child_exit();
	CHILD_CHECK(all_bytes(map_out + pages(1), page_byte(1), pages(1)),
		    "page 1 is not what the outside wrote");
	memset(map_out, 0x11, pages(1));
	CHILD_CHECK(pin_pages(fd_out, ASHMEM_UNPIN, 1, 1) == 0,
		    "UNPIN: %s", strerror(errno));
	CHILD_CHECK(pin_pages(fd_out, ASHMEM_GET_PIN_STATUS, 1, 1) ==
		    ASHMEM_IS_UNPINNED, "GET_PIN_STATUS of an unpinned page");
	CHILD_CHECK(pin_pages(fd_out, ASHMEM_PIN, 1, 1) == ASHMEM_NOT_PURGED,
		    "PIN: %s", strerror(errno));

	fd_in = named_area("inside", 2, &map_in);
	CHILD_CHECK(fd_in >= 0, "an area inside: %s", strerror(errno));
	if (fd_in < 0)
		child_exit();
	CHILD_CHECK(pin_pages(fd_in, ASHMEM_UNPIN, 0, 1) == 0,
		    "UNPIN: %s", strerror(errno));
	CHILD_CHECK(send_fd(sock, fd_in, "i", 1) == 0, "send_fd: %s",
		    strerror(errno));
	CHILD_CHECK(read(sock, &c, 1) == 1, "no word from the outside");
	CHILD_CHECK(all_bytes(map_in + pages(1), 0x22, pages(1)),
		    "page 1 is not what the outside wrote");
	child_exit();
}

/*
 * An area made outside and passed into a process in new user, PID,
 * network, IPC, UTS and cgroup namespaces, and one made inside and passed
 * out: both sides see the same memory, names, sizes and pins.
 */
TEST_F(ns, areas_cross_container_namespaces)
{
	char *map_out, *map_in, c, name[ASHMEM_NAME_LEN];
	int fd_out, fd_in, sock[2];
	pid_t pid;

	fd_out = named_area("outside", AREA_PAGES, &map_out);
	ASSERT_LE(0, fd_out);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sock));

	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t init;

		close(sock[0]);
		if (unshare_user_ns(CONTAINER_NS)) {
			printf("# unshare_user_ns: %s\n", strerror(errno));
			fflush(stdout);
			_exit(NO_NAMESPACES);
		}
		/* The first child is pid 1 of the new PID namespace. */
		init = fork();
		if (init == 0)
			container(sock[1]);
		_exit(init < 0 ? NO_NAMESPACES : wait_child(init));
	}
	close(sock[1]);
	ASSERT_EQ(0, send_fd(sock[0], fd_out, "o", 1));
	fd_in = recv_fd(sock[0], &c, 1);
	ASSERT_LE(0, fd_in) TH_LOG("no area from the inside");

	/* What the inside did to the outside's area. */
	EXPECT_TRUE(all_bytes(map_out, 0x11, pages(1)));
	EXPECT_TRUE(all_bytes(map_out + pages(1), page_byte(1), pages(1)));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(fd_out, ASHMEM_GET_PIN_STATUS, 0,
					      AREA_PAGES));

	/* The inside's area, from here. */
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(fd_in, ASHMEM_GET_NAME, name));
	name[sizeof(name) - 1] = '\0';
	EXPECT_STREQ("inside", name);
	EXPECT_EQ((long)pages(2), xioctl(fd_in, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_pages(fd_in, ASHMEM_GET_PIN_STATUS, 0, 1));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_pages(fd_in, ASHMEM_GET_PIN_STATUS, 1, 1));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(fd_in, ASHMEM_PIN, 0, 1));
	map_in = map_fd_checked(_metadata, fd_in, pages(2), PROT_RW, MAP_SHARED, 0);
	EXPECT_TRUE(all_bytes(map_in, page_byte(0), pages(1)));
	memset(map_in + pages(1), 0x22, pages(1));
	ASSERT_EQ(1, write(sock[0], "d", 1));

	EXPECT_EQ(0, wait_child(pid)) TH_LOG("checks inside failed (see above)");
	munmap(map_in, pages(2));
	munmap(map_out, pages(AREA_PAGES));
	close(fd_in);
	close(fd_out);
	close(sock[0]);
}

/*
 * A process in a cgroup namespace rooted at its memory cgroup a makes an
 * area: the area is a's, so memory.reclaim of a sibling purges none of it
 * and memory.reclaim of a purges it all.
 */
TEST_F(ns, cgroup_ns_keeps_the_area_cgroup)
{
	const size_t n = 4 * MIB / pages(1);
	char a[PATH_MAX], b[PATH_MAX], path[PATH_MAX], c;
	int fd, sock[2];
	pid_t pid;

	if (!cgroup2_memory())
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG)");
	snprintf(self->top, sizeof(self->top), "%s/ashmem_ns.%d", CG_ROOT,
		 getpid());
	ASSERT_EQ(0, write_str(CG_ROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(self->top, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->top);
	ASSERT_EQ(0, write_str(path, "+memory"));
	ASSERT_EQ(0, cg_make(self->top, "a", NULL, a));
	ASSERT_EQ(0, cg_make(self->top, "b", NULL, b));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sock));

	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char cg[PATH_MAX], *map;
		int area;

		close(sock[0]);
		if (cg_enter(a) || unshare(CLONE_NEWCGROUP)) {
			printf("# cgroup namespace at %s: %s\n", a, strerror(errno));
			fflush(stdout);
			_exit(NO_NAMESPACES);
		}
		CHILD_CHECK(!read_small("/proc/self/cgroup", cg, sizeof(cg)) &&
			    !strcmp(cg, "0::/\n"), "/proc/self/cgroup: %s", cg);
		area = area_filled(pages(n), &map);
		CHILD_CHECK(area >= 0, "area_filled: %s", strerror(errno));
		if (area < 0)
			child_exit();
		CHILD_CHECK(pin_pages(area, ASHMEM_UNPIN, 0, n) == 0,
			    "UNPIN: %s", strerror(errno));
		CHILD_CHECK(send_fd(sock[1], area, "c", 1) == 0, "send_fd: %s",
			    strerror(errno));
		/* The area stays mapped until the reclaim is done. */
		CHILD_CHECK(read(sock[1], &c, 1) == 1, "no word from the parent");
		child_exit();
	}
	close(sock[1]);
	fd = recv_fd(sock[0], &c, 1);
	ASSERT_LE(0, fd) TH_LOG("no area from the cgroup namespace");

	ASSERT_EQ(0, cg_reclaim(b, "16M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fdinfo_num(fd, "purged")) TH_LOG("b's reclaim purged a's area");
	/* More than the area, so that nothing else of a can stand in for it. */
	ASSERT_EQ(0, cg_reclaim(a, "8M")) TH_LOG("%s", strerror(errno));
	EXPECT_EQ((long long)n, fdinfo_num(fd, "purged"));

	ASSERT_EQ(1, write(sock[0], "d", 1));
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(fd, ASHMEM_PIN, 0, n));
	close(fd);
	close(sock[0]);
}

TEST_HARNESS_MAIN
