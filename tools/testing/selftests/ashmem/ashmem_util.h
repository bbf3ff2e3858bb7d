/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code shared by the ashmem selftests, ashmem_fuzz, ashmem_stress and
 * ashmem_bench (ashmem_util.c).  send_fd() and recv_fd() are inline, for
 * samples/ashmem to use as well; the parts under __KSELFTEST_H and
 * __KSELFTEST_HARNESS_H are for programs built on kselftest.h and on
 * kselftest_harness.h.
 */
#ifndef ASHMEM_UTIL_H
#define ASHMEM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#define ASHMEM_DEV	"/dev/ashmem"
#define NO_DEVICE	ASHMEM_DEV " is missing (CONFIG_ASHMEM)"
#define PROT_RW		(PROT_READ | PROT_WRITE)
#define PROT_RWX	(PROT_READ | PROT_WRITE | PROT_EXEC)
#define FILL		0xcc	/* output buffers, before the kernel writes */

/* @n pages in bytes, and @size rounded up to whole pages. */
size_t pages(size_t n);
size_t page_align(size_t size);

/* ioctl() without glibc's int return value, for results past 2 GiB. */
long xioctl(int fd, unsigned long cmd, unsigned long arg);
int set_size(int fd, size_t size);
int set_prot_mask(int fd, unsigned long mask);
/* ASHMEM_PIN, _UNPIN or _GET_PIN_STATUS on bytes, or on pages. */
int pin_op(int fd, unsigned long cmd, uint32_t offset, uint32_t len);
int pin_pages(int fd, unsigned long cmd, size_t first, size_t n);
/* SET_SIZE then mmap() the whole area; MAP_FAILED on either error. */
void *area_map(int fd, size_t size, int prot, int flags);
/* A new area of @size bytes, mapped shared at *@map, filled by fill_pages(). */
int area_filled(size_t size, char **map);

/* Page @i of an area filled by fill_pages() holds page_byte(@i). */
bool all_bytes(const void *buf, int c, size_t len);
int page_byte(size_t i);
void fill_pages(char *p, size_t n);
/*
 * Reads, and if @write writes back, a byte of each of @n pages: the first
 * page that raised SIGBUS or SIGSEGV, or -1, so that a fault is a result.
 */
long touch_pages(char *p, size_t n, bool write);

/* Addresses the kernel must refuse: nothing mapped, kernel memory. */
void *unmapped_addr(void);
unsigned long kernel_addr(void);
/* The end of a writable page (filled with FILL) before an unmapped one. */
char *page_before_hole(void);
/* True if the device node's file system forbids PROT_EXEC mappings. */
bool dev_noexec(void);

/* The number on the "@key:" or "@key " line of @buf, or -1. */
long long key_value(const char *buf, const char *key);
/* The rest of that line in @val (0), or -1 if there is none. */
int key_string(const char *buf, const char *key, char *val, size_t len);
/* A small file read whole and NUL-terminated, or written in one write(). */
int read_small(const char *path, char *buf, size_t len);
int write_str(const char *path, const char *val);
/* write_str() for best-effort writes: a failure is only logged. */
void write_file(const char *path, const char *val);
long meminfo_kb(const char *key);
/* Whether a swap area is on (/proc/swaps lists one). */
bool swap_on(void);
/* A counter of /proc/vmstat ("oom_kill"...), or -1. */
long long vm_event(const char *key);
/* Mounts @fstype on @dir, in a mount namespace of our own: 0 or -1. */
int mount_private(const char *fstype, const char *dir);
/* mount_private(), if @probe is missing; whether @probe is there then. */
bool mount_if_missing(const char *probe, const char *fstype, const char *dir);

#define CG_ROOT		"/sys/fs/cgroup"
/* cgroup2 on CG_ROOT (mount_if_missing()), with the memory controller. */
bool cgroup2_memory(void);
/* The cgroup (v2) of the calling process, as a path under CG_ROOT: 0 or -1. */
int cg_self(char *path, size_t len);
/* Moves the calling process into the cgroup at @path. */
int cg_enter(const char *path);
/* Makes cgroup @name under @top, with memory.max @max if not NULL: 0 or -1. */
int cg_make(const char *top, const char *name, const char *max, char *path);
/* Writes @size to @cg's memory.reclaim; EAGAIN (less was reclaimed) is fine. */
int cg_reclaim(const char *cg, const char *size);
/* A counter of @cg's memory.events ("oom_kill", "max"...), or -1. */
long cg_event(const char *cg, const char *key);
/*
 * An area of @size bytes created and mapped shared at *@map from inside
 * @cg, not filled; the caller goes back to @home.  Its fd, or -1.
 */
int area_mapped_in(const char *cg, const char *home, size_t size, char **map);

/*
 * unshare(CLONE_NEWUSER | @flags), the caller's uid and gid mapped to 0 in
 * the new user namespace, as a container's root: 0 or -1 (errno).
 */
int unshare_user_ns(int flags);
/* unshare(@flags) tried in a child: 0, or the errno it failed with. */
int unshare_errno(int flags);
/*
 * 1 if the kernel proper (not a module) has the function or variable
 * @sym in /proc/kallsyms, 0 if not, -1 if that file lists nothing.
 */
int kernel_symbol(const char *sym);
/* Leaves uid 0 for nobody, which drops every capability: 0 or -1. */
int become_nobody(void);

/* fd's fdinfo, whole (0 or -1), for key_value() and key_string(). */
int fdinfo_read(int fd, char *buf, size_t len);
/* The "<key>:\t<value>" line of fd's fdinfo (0 or -1), or its number. */
int fdinfo_get(int fd, const char *key, char *val, size_t len);
long long fdinfo_num(int fd, const char *key);
/* The page counts of fd's fdinfo, from one read: -1 where missing. */
struct page_counts {
	long long pinned, unpinned, purged;
};

int page_counts(int fd, struct page_counts *c);
/* The same, of fdinfo read by fdinfo_read(). */
int page_counts_of(const char *buf, struct page_counts *c);

/* The /proc/self/maps line of the mapping that contains an address. */
struct maps_entry {
	unsigned long start, end;
	unsigned long long inode;
	char perms[8];
	char path[512];
};

int maps_find(const void *addr, struct maps_entry *e);
/* The "@key:" line of the smaps entry of the mapping at @addr: key_string(). */
int smaps_get(const void *addr, const char *key, char *val, size_t len);

/* fork() after flushing stdio; the child gets SIGKILL when its parent dies. */
pid_t fork_child(void);
/* The exit code of a child, or 128 + the signal that killed it. */
int wait_child(pid_t pid);
/* Kills a child with SIGKILL and reaps it; returns what wait_child() says. */
int stop_child(pid_t pid);
/* @fn(@arg) in a child, given @secs: its wait_child() status, -1 on timeout. */
int run_bounded(int (*fn)(void *), void *arg, int secs);
/* A child that keeps memory nearly full, so that reclaim runs the shrinkers. */
pid_t start_memory_hog(void);

/* xorshift64*: a random number, one below @n, or an index by @weights. */
uint64_t rnd(uint64_t *state);
uint64_t below(uint64_t *state, uint64_t n);
unsigned int pick_weighted(uint64_t *state, const unsigned int *weights,
			   unsigned int n);
uint64_t now_ns(void);

/* The message of send_fd() and recv_fd(): @len bytes of data and an fd. */
struct fd_msg {
	struct msghdr msg;
	struct iovec iov;
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
};

static inline struct cmsghdr *fd_msg_init(struct fd_msg *m, void *data, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->iov = (struct iovec){ .iov_base = data, .iov_len = len };
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->control.buf;
	m->msg.msg_controllen = sizeof(m->control.buf);
	return CMSG_FIRSTHDR(&m->msg);
}

/*
 * Sends @fd and @len bytes of @data over a unix socket (SCM_RIGHTS); the
 * receiver gets a new descriptor of the same open file.
 */
static inline int send_fd(int sock, int fd, const void *data, size_t len)
{
	struct fd_msg m;
	struct cmsghdr *cmsg = fd_msg_init(&m, (void *)data, len);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &m.msg, 0) == (ssize_t)len ? 0 : -1;
}

/* The descriptor send_fd() sent, with its data in @data; -1 on error. */
static inline int recv_fd(int sock, void *data, size_t len)
{
	struct fd_msg m;
	struct cmsghdr *cmsg;
	int fd;

	fd_msg_init(&m, data, len);
	if (recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	cmsg = CMSG_FIRSTHDR(&m.msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS || (m.msg.msg_flags & MSG_CTRUNC))
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/*
 * Waits for @n children until now_ns() reaches @until: @status[i] is what
 * wait_child() would say, or -1 for a child still running then, which is
 * killed.
 */
void wait_children(const pid_t *pids, int *status, int n, uint64_t until);

#ifdef __KSELFTEST_H
/*
 * The start of a program with one TAP result: its plan, or a skip.  Here,
 * so that it counts with the program's copy of kselftest.h's counters.
 */
static inline void ksft_start_one(void)
{
	int fd;

	ksft_print_header();
	ksft_set_plan(1);
	fd = open(ASHMEM_DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_skip("%s: %s (CONFIG_ASHMEM)\n", ASHMEM_DEV, strerror(errno));
	close(fd);
}
#endif /* __KSELFTEST_H */

#ifdef __KSELFTEST_HARNESS_H
/*
 * Checks that @call failed, returning -1 (or MAP_FAILED), then that it set
 * errno to @err; @what names the call in the message of a failure.
 */
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

#define EXPECT_ERRNO(err, call)	EXPECT_ERRNO_AT(err, call, #call)

#define ASSERT_MAPPED(p)	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)(p))

/* Checks fdinfo's page counts, which always add up to the area. */
#define EXPECT_PAGE_COUNTS(fd, pin, unpin, purge) do {			\
	struct page_counts __c;						\
	EXPECT_EQ(0, page_counts(fd, &__c));				\
	EXPECT_EQ(pin, __c.pinned);					\
	EXPECT_EQ(unpin, __c.unpinned);					\
	EXPECT_EQ(purge, __c.purged);					\
} while (0)

/*
 * The start of a fixture's set-up: a new area opened with @flags, or -1
 * and the test skipped if the kernel has no ashmem.
 */
static inline int open_area(struct __test_metadata *_metadata, int flags)
{
	int fd = open(ASHMEM_DEV, flags);

	if (fd < 0 && errno == ENOENT)
		SKIP(return -1, NO_DEVICE);
	ASSERT_LE(0, fd);
	return fd;
}

/* For tests that need root and ashmem: false if the test is skipped. */
static inline bool root_and_ashmem(struct __test_metadata *_metadata)
{
	if (geteuid() != 0)
		SKIP(return false, "needs root");
	if (access(ASHMEM_DEV, F_OK))
		SKIP(return false, NO_DEVICE);
	return true;
}
#endif /* __KSELFTEST_HARNESS_H */

/* mmap() of @fd from @off, where the kernel chooses. */
void *map_fd(int fd, size_t len, int prot, int flags, off_t off);
/* The first line of a small file, without its newline: 0 or -1. */
int read_line(const char *path, char *buf, size_t len);

/* Checked forms of the helpers above, for tests on the harness. */
#ifdef __KSELFTEST_HARNESS_H
/* map_fd() and area_map() (MAP_SHARED) that must succeed. */
static inline char *map_fd_checked(struct __test_metadata *_metadata, int fd,
				   size_t len, int prot, int flags, off_t off)
{
	char *p = map_fd(fd, len, prot, flags, off);

	ASSERT_MAPPED(p);
	return p;
}

static inline char *area_map_checked(struct __test_metadata *_metadata, int fd,
				     size_t size, int prot)
{
	char *p = area_map(fd, size, prot, MAP_SHARED);

	ASSERT_MAPPED(p);
	return p;
}

/* fork(), with stdio flushed first, that must succeed. */
static inline pid_t fork_checked(struct __test_metadata *_metadata)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	return pid;
}
#endif /* __KSELFTEST_HARNESS_H */

#endif /* ASHMEM_UTIL_H */
