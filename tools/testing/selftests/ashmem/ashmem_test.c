// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for /dev/ashmem, Android's anonymous shared memory.
 *
 * Every test opens its own area.  Output buffers are filled with 0xcc
 * before the kernel writes them, so that a short or missing write shows.
 * The same source is built 64-bit and with -m32, where SET_SIZE,
 * SET_PROT_MASK and GET_FILE_ID have their compat numbers.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define PROT_RWX	(PROT_READ | PROT_WRITE | PROT_EXEC)

/* Checks that a call returned -1, then that it set errno to @err. */
#define EXPECT_ERRNO(err, call) do {		\
	errno = 0;				\
	EXPECT_EQ(-1, (call));			\
	EXPECT_EQ(err, errno);			\
} while (0)

/* Checks that mmap() failed, then that it set errno to @err. */
#define EXPECT_MMAP_ERRNO(err, call) do {			\
	void *__p;						\
	errno = 0;						\
	__p = (call);						\
	EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)__p);	\
	EXPECT_EQ(err, errno);					\
} while (0)

#define ASSERT_MAPPED(p) ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)(p))

#define NO_DEVICE	ASHMEM_DEV " is missing (CONFIG_ASHMEM)"

/*
 * A page followed by an unmapped page; returns the end of the first
 * page, so that the caller can place a buffer right before the hole.
 */
static char *page_before_hole(void)
{
	char *p = mmap(NULL, pages(2), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + pages(1), pages(1));
	return p + pages(1);
}

static int send_fd(int sock, int fd)
{
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = {};
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* True if the device node's file system forbids PROT_EXEC mappings. */
static bool dev_noexec(void)
{
	struct statvfs st;

	return statvfs(ASHMEM_DEV, &st) == 0 && (st.f_flag & ST_NOEXEC);
}

FIXTURE(ashmem) {
	int fd;
};

FIXTURE_SETUP(ashmem)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, NO_DEVICE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Size, name and prot mask */

TEST_F(ashmem, new_area_defaults)
{
	char name[ASHMEM_NAME_LEN];

	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_SIZE));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	memset(name, 0xcc, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ("dev/ashmem", name);
}

TEST_F(ashmem, each_open_is_a_new_area)
{
	char name[ASHMEM_NAME_LEN];
	int fd2;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "first"));
	ASSERT_EQ(0, set_size(self->fd, pages(2)));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	fd2 = open(ASHMEM_DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, ioctl(fd2, ASHMEM_GET_SIZE));
	EXPECT_EQ(PROT_RWX, ioctl(fd2, ASHMEM_GET_PROT_MASK));
	memset(name, 0xcc, sizeof(name));
	EXPECT_EQ(0, ioctl(fd2, ASHMEM_GET_NAME, name));
	EXPECT_STREQ("dev/ashmem", name);
	close(fd2);
}

TEST_F(ashmem, set_name_then_get_name)
{
	char name[ASHMEM_NAME_LEN];

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "my-area"));
	memset(name, 0xcc, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ("my-area", name);

	/* Renaming is allowed until the first mmap. */
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "renamed"));
	memset(name, 0xcc, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ("renamed", name);
}

TEST_F(ashmem, name_of_255_bytes_is_kept)
{
	char in[ASHMEM_NAME_LEN], out[ASHMEM_NAME_LEN + 16];

	memset(in, 'n', ASHMEM_NAME_LEN - 1);
	in[ASHMEM_NAME_LEN - 1] = '\0';
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, in));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ(in, out);
	EXPECT_TRUE(all_bytes(out + ASHMEM_NAME_LEN, 0xcc, 16));
}

TEST_F(ashmem, longer_name_is_truncated_to_255_bytes)
{
	char in[300], out[ASHMEM_NAME_LEN];

	memset(in, 'a', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, in));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_EQ(ASHMEM_NAME_LEN - 1, strnlen(out, sizeof(out)));
	EXPECT_TRUE(all_bytes(out, 'a', ASHMEM_NAME_LEN - 1));

	/* Exactly ASHMEM_NAME_LEN bytes without a NUL among them. */
	memset(in, 'b', sizeof(in) - 1);
	in[ASHMEM_NAME_LEN] = '\0';
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, in));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_EQ(ASHMEM_NAME_LEN - 1, strnlen(out, sizeof(out)));
	EXPECT_TRUE(all_bytes(out, 'b', ASHMEM_NAME_LEN - 1));
}

TEST_F(ashmem, set_name_right_before_unmapped_page)
{
	char *end = page_before_hole(), *name, out[ASHMEM_NAME_LEN];

	ASSERT_TRUE(end != NULL);
	name = end - sizeof("short");
	snprintf(name, sizeof("short"), "%s", "short");
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, name));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("short", out);
	munmap(end - pages(1), pages(1));
}

TEST_F(ashmem, set_name_running_into_unmapped_page_efault)
{
	char *end = page_before_hole(), out[ASHMEM_NAME_LEN];

	ASSERT_TRUE(end != NULL);
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "kept"));
	/* No NUL before the hole, and fewer than ASHMEM_NAME_LEN bytes. */
	memset(end - 10, 'x', 10);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_SET_NAME, end - 10));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("kept", out);
	munmap(end - pages(1), pages(1));
}

TEST_F(ashmem, get_name_writes_only_name_and_nul)
{
	char out[ASHMEM_NAME_LEN], *end;

	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("dev/ashmem", out);
	EXPECT_TRUE(all_bytes(out + sizeof("dev/ashmem"), 0xcc,
			      sizeof(out) - sizeof("dev/ashmem")));

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "abc"));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("abc", out);
	EXPECT_TRUE(all_bytes(out + 4, 0xcc, sizeof(out) - 4));

	/* A buffer just big enough, right before an unmapped page. */
	end = page_before_hole();
	ASSERT_TRUE(end != NULL);
	memset(end - 4, 0xcc, 4);
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, end - 4));
	EXPECT_STREQ("abc", end - 4);
	munmap(end - pages(1), pages(1));
}

TEST_F(ashmem, name_bad_pointer_efault)
{
	char out[ASHMEM_NAME_LEN];
	void *bad = unmapped_addr();

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "kept"));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_SET_NAME, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_SET_NAME, bad));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME, bad));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("kept", out);
}

TEST_F(ashmem, set_name_after_mmap_einval)
{
	char out[ASHMEM_NAME_LEN];
	void *p;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "before"));
	p = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(p);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "after"));
	munmap(p, pages(1));
	/* The backing file exists from the first mmap on, mapped or not. */
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "after"));
	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
	EXPECT_STREQ("before", out);
}

TEST_F(ashmem, set_size_then_get_size)
{
	ASSERT_EQ(0, set_size(self->fd, 12345));
	EXPECT_EQ(12345, ioctl(self->fd, ASHMEM_GET_SIZE));
	ASSERT_EQ(0, set_size(self->fd, pages(3)));
	EXPECT_EQ(pages(3), ioctl(self->fd, ASHMEM_GET_SIZE));
	ASSERT_EQ(0, set_size(self->fd, 0));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_SIZE));
}

TEST_F(ashmem, set_size_after_mmap_einval)
{
	void *p = area_map(self->fd, pages(2), PROT_READ, MAP_SHARED);

	ASSERT_MAPPED(p);
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(4)));
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(2)));
	EXPECT_ERRNO(EINVAL, set_size(self->fd, 0));
	EXPECT_EQ(pages(2), ioctl(self->fd, ASHMEM_GET_SIZE));
	munmap(p, pages(2));
}

TEST_F(ashmem, set_size_too_big_einval)
{
	if (sizeof(size_t) < 8)
		SKIP(return, "a 32-bit size_t cannot exceed the limits");

	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	/* PAGE_ALIGN() of these wraps around. */
	EXPECT_ERRNO(EINVAL, set_size(self->fd, SIZE_MAX));
	EXPECT_ERRNO(EINVAL, set_size(self->fd, SIZE_MAX - pages(1) + 2));
	/* Larger than MAX_LFS_FILESIZE. */
	EXPECT_ERRNO(EINVAL, set_size(self->fd, (size_t)INT64_MAX + 1));
	EXPECT_EQ(pages(1), ioctl(self->fd, ASHMEM_GET_SIZE));
}

TEST_F(ashmem, prot_mask_can_only_remove_bits)
{
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ | PROT_WRITE));
	EXPECT_EQ(PROT_READ | PROT_WRITE, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_RWX));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_EXEC));
	EXPECT_EQ(PROT_READ | PROT_WRITE, ioctl(self->fd, ASHMEM_GET_PROT_MASK));

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ | PROT_WRITE));
	EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_NONE));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(PROT_NONE, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(ashmem, prot_mask_unknown_bit_einval)
{
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_RWX | 0x8));	/* PROT_SEM */
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ | 0x10));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, PROT_READ | PROT_GROWSDOWN));
	EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd, 0x80000000UL));
	if (sizeof(unsigned long) > 4)
		EXPECT_ERRNO(EINVAL, set_prot_mask(self->fd,
						   (unsigned long)(1ULL << 32) | PROT_READ));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(ashmem, prot_mask_belongs_to_the_area)
{
	int dupfd;
	pid_t pid;

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ | PROT_WRITE));
	dupfd = dup(self->fd);
	ASSERT_LE(0, dupfd);
	EXPECT_EQ(PROT_READ | PROT_WRITE, ioctl(dupfd, ASHMEM_GET_PROT_MASK));
	ASSERT_EQ(0, set_prot_mask(dupfd, PROT_READ));
	EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	close(dupfd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
		EXPECT_EQ(0, set_prot_mask(self->fd, PROT_NONE));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_EQ(PROT_NONE, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(ashmem, read_implies_exec_adds_exec)
{
	int persona = personality(0xffffffff);

	/* Each test runs in a process of its own: the personality dies with it. */
	ASSERT_NE(-1, persona);
	ASSERT_NE(-1, personality(persona | READ_IMPLIES_EXEC));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(PROT_READ | PROT_EXEC, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(ashmem, read_implies_exec_never_adds_a_removed_exec)
{
	int persona = personality(0xffffffff);

	ASSERT_NE(-1, persona);
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ | PROT_WRITE));
	ASSERT_NE(-1, personality(persona | READ_IMPLIES_EXEC));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(ashmem, prot_mask_after_mmap_applies_to_new_mappings)
{
	char *p = area_map(self->fd, pages(1), PROT_READ | PROT_WRITE, MAP_SHARED);

	ASSERT_MAPPED(p);
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	p[0] = 'w';	/* the existing mapping stays writable */
	EXPECT_MMAP_ERRNO(EPERM, mmap(NULL, pages(1), PROT_READ | PROT_WRITE,
				      MAP_SHARED, self->fd, 0));
	munmap(p, pages(1));
	p = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	EXPECT_EQ('w', p[0]);
	munmap(p, pages(1));
}

/* mmap */

FIXTURE(ashmem_mmap_prot) {
	int fd;
};

FIXTURE_VARIANT(ashmem_mmap_prot) {
	int mask;
	int prot;
	int flags;
	int err;
};

FIXTURE_SETUP(ashmem_mmap_prot)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, NO_DEVICE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
}

FIXTURE_TEARDOWN(ashmem_mmap_prot)
{
	if (self->fd >= 0)
		close(self->fd);
}

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_r_shared) {
	.mask = PROT_READ, .prot = PROT_READ, .flags = MAP_SHARED,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_rw_shared) {
	.mask = PROT_READ, .prot = PROT_READ | PROT_WRITE, .flags = MAP_SHARED,
	.err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_rw_private) {
	.mask = PROT_READ, .prot = PROT_READ | PROT_WRITE, .flags = MAP_PRIVATE,
	.err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rw_mask_rx_shared) {
	.mask = PROT_READ | PROT_WRITE, .prot = PROT_READ | PROT_EXEC,
	.flags = MAP_SHARED, .err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, w_mask_r_shared) {
	.mask = PROT_WRITE, .prot = PROT_READ, .flags = MAP_SHARED,
	.err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rx_mask_w_shared) {
	.mask = PROT_READ | PROT_EXEC, .prot = PROT_WRITE, .flags = MAP_SHARED,
	.err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, empty_mask_none_shared) {
	.mask = PROT_NONE, .prot = PROT_NONE, .flags = MAP_SHARED,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, empty_mask_r_private) {
	.mask = PROT_NONE, .prot = PROT_READ, .flags = MAP_PRIVATE,
	.err = EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rwx_mask_rwx_shared) {
	.mask = PROT_RWX, .prot = PROT_RWX, .flags = MAP_SHARED,
};

TEST_F(ashmem_mmap_prot, mmap_checks_prot_mask)
{
	void *p;

	if ((variant->prot & PROT_EXEC) && !variant->err && dev_noexec())
		SKIP(return, ASHMEM_DEV " is on a noexec mount");
	ASSERT_EQ(0, set_prot_mask(self->fd, variant->mask));
	errno = 0;
	p = mmap(NULL, pages(1), variant->prot, variant->flags, self->fd, 0);
	if (variant->err) {
		EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)p);
		EXPECT_EQ(variant->err, errno);
	} else {
		EXPECT_NE((uintptr_t)MAP_FAILED, (uintptr_t)p);
	}
	if (p != MAP_FAILED)
		munmap(p, pages(1));
}

TEST_F(ashmem, mmap_size_zero_einval)
{
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_READ, MAP_SHARED,
				       self->fd, 0));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_READ, MAP_PRIVATE,
				       self->fd, 0));
}

TEST_F(ashmem, mmap_longer_than_size_einval)
{
	void *p;

	ASSERT_EQ(0, set_size(self->fd, pages(1) + 1));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(3), PROT_READ, MAP_SHARED,
				       self->fd, 0));
	/* The last, partial page can be mapped. */
	p = mmap(NULL, pages(2), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	munmap(p, pages(2));
}

TEST_F(ashmem, mmap_past_end_einval)
{
	char *whole, *p;

	whole = area_map(self->fd, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(whole);
	whole[pages(1)] = 'x';
	p = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, self->fd, pages(1));
	ASSERT_MAPPED(p);
	EXPECT_EQ('x', p[0]);
	munmap(p, pages(1));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(2), PROT_READ, MAP_SHARED,
				       self->fd, pages(1)));
	EXPECT_MMAP_ERRNO(EINVAL, mmap(NULL, pages(1), PROT_READ, MAP_SHARED,
				       self->fd, pages(2)));
	munmap(whole, pages(2));
}

TEST_F(ashmem, mprotect_cannot_widen_past_mask)
{
	void *shared, *private;

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	shared = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(shared);
	EXPECT_ERRNO(EACCES, mprotect(shared, pages(1), PROT_READ | PROT_WRITE));
	EXPECT_ERRNO(EACCES, mprotect(shared, pages(1), PROT_READ | PROT_EXEC));
	EXPECT_EQ(0, mprotect(shared, pages(1), PROT_NONE));
	EXPECT_EQ(0, mprotect(shared, pages(1), PROT_READ));

	private = mmap(NULL, pages(1), PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_MAPPED(private);
	EXPECT_ERRNO(EACCES, mprotect(private, pages(1), PROT_READ | PROT_WRITE));
	munmap(private, pages(1));
	munmap(shared, pages(1));
}

TEST_F(ashmem, mprotect_within_mask_allowed)
{
	char *p;

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ | PROT_WRITE));
	p = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(p);
	ASSERT_EQ(0, mprotect(p, pages(1), PROT_READ | PROT_WRITE));
	p[0] = 'w';
	EXPECT_EQ('w', p[0]);
	munmap(p, pages(1));
}

TEST_F(ashmem, maps_show_the_area_name)
{
	struct maps_entry e;
	void *p;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "test-area"));
	p = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(p);
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("/dev/ashmem/test-area (deleted)", e.path);
	munmap(p, pages(1));
}

TEST_F(ashmem, maps_show_an_unnamed_area)
{
	struct maps_entry e;
	void *p;

	p = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(p);
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("/dev/ashmem (deleted)", e.path);
	munmap(p, pages(1));
}

TEST_F(ashmem, shared_mappings_share_memory)
{
	char *a, *b, *c;

	a = area_map(self->fd, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(a);
	b = mmap(NULL, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(b);
	c = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, self->fd, pages(1));
	ASSERT_MAPPED(c);
	snprintf(a, pages(1), "%s", "via a");
	snprintf(b + pages(1), pages(1), "%s", "via b");
	EXPECT_STREQ("via a", b);
	EXPECT_STREQ("via b", a + pages(1));
	EXPECT_STREQ("via b", c);
	munmap(c, pages(1));
	munmap(b, pages(2));
	munmap(a, pages(2));
}

TEST_F(ashmem, shared_across_fork)
{
	char *p;
	pid_t pid;

	p = area_map(self->fd, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	snprintf(p, pages(1), "%s", "parent");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *q = mmap(NULL, pages(1), PROT_READ | PROT_WRITE,
			       MAP_SHARED, self->fd, pages(1));

		EXPECT_STREQ("parent", p);
		snprintf(p, pages(1), "%s", "child");
		if (q != MAP_FAILED)
			snprintf(q, pages(1), "%s", "child's own mapping");
		_exit(q == MAP_FAILED);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_STREQ("child", p);
	EXPECT_STREQ("child's own mapping", p + pages(1));
	munmap(p, pages(2));
}

TEST_F(ashmem, shared_over_scm_rights)
{
	char name[ASHMEM_NAME_LEN], *p;
	int sv[2];
	pid_t pid;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "passed"));
	p = area_map(self->fd, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	snprintf(p, pages(1), "%s", "from the sender");
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *q;
		int fd;

		/* Use only what arrives over the socket. */
		munmap(p, pages(2));
		close(self->fd);
		close(sv[0]);
		fd = recv_fd(sv[1]);
		ASSERT_LE(0, fd);
		EXPECT_EQ(pages(2), ioctl(fd, ASHMEM_GET_SIZE));
		memset(name, 0xcc, sizeof(name));
		EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, name));
		EXPECT_STREQ("passed", name);
		q = mmap(NULL, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT_MAPPED(q);
		EXPECT_STREQ("from the sender", q);
		snprintf(q + pages(1), pages(1), "%s", "from the receiver");
		_exit(0);
	}
	close(sv[1]);
	ASSERT_EQ(0, send_fd(sv[0], self->fd));
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_STREQ("from the receiver", p + pages(1));
	close(sv[0]);
	munmap(p, pages(2));
}

TEST_F(ashmem, private_mapping_is_private_zeroed_memory)
{
	size_t size = pages(5) + 100, len = pages(6), i;
	char *shared, *private, buf[16];

	shared = area_map(self->fd, size, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(shared);
	memset(shared, 0x5a, len);
	private = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	ASSERT_MAPPED(private);
	/* Not a copy of the area: zeroed, and every page can be touched. */
	EXPECT_TRUE(all_bytes(private, 0, len));
	for (i = 0; i < len; i += pages(1))
		private[i] = 0x11;
	EXPECT_TRUE(all_bytes(shared, 0x5a, len));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 0x5a, sizeof(buf)));
	munmap(private, len);
	munmap(shared, len);
}

TEST_F(ashmem, private_first_mmap_fixes_size_and_name)
{
	void *p = area_map(self->fd, pages(1), PROT_READ | PROT_WRITE, MAP_PRIVATE);

	ASSERT_MAPPED(p);
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(2)));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "late"));
	munmap(p, pages(1));
}

TEST_F(ashmem, shared_mapping_covers_last_partial_page)
{
	size_t i;
	char *p;

	p = area_map(self->fd, pages(2) + 1, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	for (i = 0; i < pages(3); i += pages(1))
		p[i] = 'p';
	EXPECT_EQ('p', p[pages(2)]);
	munmap(p, pages(3));
}

TEST_F(ashmem, mapping_outlives_the_fd)
{
	struct maps_entry e;
	char *p;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "orphan"));
	p = area_map(self->fd, pages(1), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	snprintf(p, pages(1), "%s", "still here");
	close(self->fd);
	self->fd = -1;
	EXPECT_STREQ("still here", p);
	snprintf(p, pages(1), "%s", "written after close");
	EXPECT_STREQ("written after close", p);
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("/dev/ashmem/orphan (deleted)", e.path);
	munmap(p, pages(1));
}

TEST_F(ashmem, map_files_cannot_escape_prot_mask)
{
	char path[128], *p;
	struct maps_entry e;
	void *q;
	int mfd;

	p = area_map(self->fd, pages(1), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	snprintf(p, pages(1), "%s", "original");
	munmap(p, pages(1));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	p = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);
	ASSERT_EQ(0, maps_find(p, &e));
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", e.start, e.end);

	mfd = open(path, O_RDWR);
	if (mfd < 0) {
		TH_LOG("open(%s, O_RDWR) refused: %s", path, strerror(errno));
		EXPECT_STREQ("original", p);
		return;
	}
	errno = 0;
	q = mmap(NULL, pages(1), PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)q);
	EXPECT_EQ(EPERM, errno);
	if (q != MAP_FAILED)
		munmap(q, pages(1));

	/* A read-only mapping there could be mprotect()ed writable. */
	errno = 0;
	q = mmap(NULL, pages(1), PROT_READ, MAP_SHARED, mfd, 0);
	EXPECT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)q);
	EXPECT_EQ(EPERM, errno);
	if (q != MAP_FAILED) {
		EXPECT_ERRNO(EACCES, mprotect(q, pages(1), PROT_READ | PROT_WRITE));
		munmap(q, pages(1));
	}

	if (pwrite(mfd, "WRITTEN", 7, 0) >= 0)
		TH_LOG("pwrite() through %s did not fail", path);
	EXPECT_STREQ("original", p);
	close(mfd);
	munmap(p, pages(1));
}

TEST_F(ashmem, remap_file_pages_cannot_widen)
{
	struct maps_entry e;
	char *p;
	int i;

	p = area_map(self->fd, pages(4), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	for (i = 0; i < 4; i++)
		p[pages(i)] = 'A' + i;
	munmap(p, pages(4));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	p = mmap(NULL, pages(4), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(p);

	/*
	 * remap_file_pages() maps the backing file again, MAP_FIXED over the
	 * first page.  If that fails, the kernel leaves a hole there.
	 */
	if (remap_file_pages(p, pages(1), 0, 2, 0))
		TH_LOG("remap_file_pages() refused: %s", strerror(errno));
	else
		EXPECT_EQ('C', p[0]);
	for (i = 0; i < 4; i++) {
		if (maps_find(p + pages(i), &e)) {
			EXPECT_EQ(0, i);
			continue;
		}
		EXPECT_EQ('-', e.perms[1]);
		EXPECT_ERRNO(EACCES, mprotect(p + pages(i), pages(1),
					      PROT_READ | PROT_WRITE));
	}
	munmap(p, pages(4));
}

/* read() and lseek() */

TEST_F(ashmem, read_and_lseek_with_size_zero)
{
	char buf[16];

	memset(buf, 0xcc, sizeof(buf));
	EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 0xcc, sizeof(buf)));
	EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, SEEK_SET));
	EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, SEEK_END));
}

TEST_F(ashmem, read_and_lseek_before_mmap_ebadf)
{
	char buf[16];

	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	memset(buf, 0xcc, sizeof(buf));
	EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 0xcc, sizeof(buf)));
	EXPECT_ERRNO(EBADF, lseek(self->fd, 0, SEEK_SET));
	EXPECT_ERRNO(EBADF, lseek(self->fd, 0, SEEK_END));
}

TEST_F(ashmem, read_returns_mapped_data)
{
	char buf[16], *p;

	p = area_map(self->fd, pages(2), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	memcpy(p, "0123456789", 10);
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(4, read(self->fd, buf, 4));
	EXPECT_EQ(0, memcmp(buf, "0123", 4));
	EXPECT_TRUE(all_bytes(buf + 4, 0xcc, sizeof(buf) - 4));
	EXPECT_EQ(4, lseek(self->fd, 0, SEEK_CUR));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(6, read(self->fd, buf, 6));
	EXPECT_EQ(0, memcmp(buf, "456789", 6));
	EXPECT_EQ(10, lseek(self->fd, 0, SEEK_CUR));
	munmap(p, pages(2));
}

TEST_F(ashmem, lseek_set_cur_end)
{
	size_t size = pages(3) + 100;
	char buf[64], *p;

	p = area_map(self->fd, size, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	memcpy(p + 15, "fifteen", 7);
	memcpy(p + size - 10, "last bytes", 10);

	EXPECT_EQ(size, lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ(5, lseek(self->fd, 5, SEEK_SET));
	EXPECT_EQ(15, lseek(self->fd, 10, SEEK_CUR));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(7, read(self->fd, buf, 7));
	EXPECT_EQ(0, memcmp(buf, "fifteen", 7));

	EXPECT_EQ(size - 10, lseek(self->fd, -10, SEEK_END));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(10, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "last bytes", 10));
	EXPECT_TRUE(all_bytes(buf + 10, 0xcc, sizeof(buf) - 10));
	EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));

	EXPECT_ERRNO(EINVAL, lseek(self->fd, -1, SEEK_SET));
	EXPECT_EQ(size, lseek(self->fd, 0, SEEK_CUR));
	munmap(p, pages(4));
}

TEST_F(ashmem, lseek_data_and_hole)
{
	char *p;

	/* shmem reports pages that were never written as holes. */
	p = area_map(self->fd, pages(4), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	p[pages(1)] = 1;
	p[pages(3)] = 3;
	EXPECT_EQ(pages(1), lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_EQ(pages(2), lseek(self->fd, pages(1), SEEK_HOLE));
	EXPECT_EQ(pages(3), lseek(self->fd, pages(2), SEEK_DATA));
	EXPECT_EQ(pages(4), lseek(self->fd, pages(3), SEEK_HOLE));
	EXPECT_ERRNO(ENXIO, lseek(self->fd, pages(4), SEEK_DATA));
	munmap(p, pages(4));
}

TEST_F(ashmem, purged_pages_become_holes)
{
	char *p;

	p = area_map(self->fd, pages(4), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	memset(p, 0x5a, pages(4));
	ASSERT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, pages(1), pages(2)));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ(pages(1), lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_EQ(pages(3), lseek(self->fd, pages(1), SEEK_DATA));
	munmap(p, pages(4));
}

/*
 * A 3 GiB area in a 512 MiB guest: only two pages are ever touched.  The
 * first mmap() creates the backing file, unaccounted with MAP_NORESERVE.
 * A 32-bit process has no room to map all of it, so it maps a window.
 */
TEST_F_TIMEOUT(ashmem, offsets_past_2gib, 120)
{
	const size_t size = (size_t)3 << 30;
	const off_t off = (off_t)5 << 29;
	char buf[32], *win;

	ASSERT_EQ(0, set_size(self->fd, size));
	/* GET_SIZE returns the size as the ioctl's int return value. */
	EXPECT_EQ((uint32_t)size, (uint32_t)ioctl(self->fd, ASHMEM_GET_SIZE));
	EXPECT_EQ((long long)size, fdinfo_num(self->fd, "size"));
	if (sizeof(void *) == 8) {
		char *whole = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_NORESERVE, self->fd, 0);

		ASSERT_MAPPED(whole);
		snprintf(whole + off, pages(1), "%s", "past 2 GiB");
		munmap(whole, size);
	}
	win = mmap(NULL, pages(1), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_NORESERVE, self->fd, off);
	ASSERT_MAPPED(win);
	snprintf(win, pages(1), "%s", "past 2 GiB");

	EXPECT_EQ(off, lseek(self->fd, off, SEEK_SET));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_STREQ("past 2 GiB", buf);
	EXPECT_EQ(off + (off_t)sizeof(buf), lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ((off_t)size, lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ(off, lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ(off + (off_t)pages(1), lseek(self->fd, off, SEEK_HOLE));

	ASSERT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, off, 0));
	EXPECT_EQ(ASHMEM_IS_UNPINNED,
		  pin_op(self->fd, ASHMEM_GET_PIN_STATUS, size - pages(1), pages(1)));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0, off));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, off, 0));
	munmap(win, pages(1));
}

/* PIN, UNPIN and GET_PIN_STATUS: argument checks, the same for all three */

FIXTURE(ashmem_pin_range) {
	int fd;
};

FIXTURE_VARIANT(ashmem_pin_range) {
	unsigned long cmd;
	int ok;		/* what a valid range returns on a fresh area */
};

FIXTURE_VARIANT_ADD(ashmem_pin_range, pin) {
	.cmd = ASHMEM_PIN, .ok = ASHMEM_NOT_PURGED,
};

FIXTURE_VARIANT_ADD(ashmem_pin_range, unpin) {
	.cmd = ASHMEM_UNPIN, .ok = 0,
};

FIXTURE_VARIANT_ADD(ashmem_pin_range, get_pin_status) {
	.cmd = ASHMEM_GET_PIN_STATUS, .ok = ASHMEM_IS_PINNED,
};

FIXTURE_SETUP(ashmem_pin_range)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, NO_DEVICE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, set_size(self->fd, pages(4)));
}

FIXTURE_TEARDOWN(ashmem_pin_range)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void *pin_range_map(int fd)
{
	return mmap(NULL, pages(4), PROT_READ, MAP_SHARED, fd, 0);
}

TEST_F(ashmem_pin_range, bad_pointer_efault_before_mmap)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, variant->cmd, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, variant->cmd, unmapped_addr()));
}

TEST_F(ashmem_pin_range, bad_pointer_efault_after_mmap)
{
	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, variant->cmd, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, variant->cmd, unmapped_addr()));
}

TEST_F(ashmem_pin_range, before_mmap_einval)
{
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 0, pages(1)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 0, 0));
}

TEST_F(ashmem_pin_range, unaligned_einval)
{
	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 1, pages(1)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(1) + 1, 0));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 0, 1));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 0, pages(1) + 1));
}

TEST_F(ashmem_pin_range, whole_and_len_zero_ranges_ok)
{
	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_EQ(variant->ok, pin_op(self->fd, variant->cmd, 0, pages(4)));
	EXPECT_EQ(variant->ok, pin_op(self->fd, variant->cmd, 0, 0));
	EXPECT_EQ(variant->ok, pin_op(self->fd, variant->cmd, pages(3), 0));
	EXPECT_EQ(variant->ok, pin_op(self->fd, variant->cmd, pages(3), pages(1)));
}

TEST_F(ashmem_pin_range, len_zero_at_end_einval)
{
	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(4), 0));
}

TEST_F(ashmem_pin_range, u32_overflow_einval)
{
	uint32_t top = UINT32_MAX & ~(uint32_t)(pages(1) - 1);

	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, top, pages(2)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(2), top));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, top, top));
}

TEST_F(ashmem_pin_range, past_end_einval)
{
	ASSERT_MAPPED(pin_range_map(self->fd));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, 0, pages(5)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(2), pages(3)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(4), pages(1)));
	EXPECT_ERRNO(EINVAL, pin_op(self->fd, variant->cmd, pages(5), 0));
}

/* PIN, UNPIN and GET_PIN_STATUS: behaviour */

static int pin_status(int fd, size_t first, size_t npages)
{
	return pin_op(fd, ASHMEM_GET_PIN_STATUS, pages(first), pages(npages));
}

static int unpin_pages(int fd, size_t first, size_t npages)
{
	return pin_pages(fd, ASHMEM_UNPIN, first, npages);
}

/* Checks fdinfo's page counts, which always add up to the area. */
#define EXPECT_PAGE_COUNTS(fd, pinned, unpinned, purged) do {	\
	EXPECT_EQ(pinned, fdinfo_num(fd, "pinned"));		\
	EXPECT_EQ(unpinned, fdinfo_num(fd, "unpinned"));	\
	EXPECT_EQ(purged, fdinfo_num(fd, "purged"));		\
} while (0)

TEST_F(ashmem, range_past_unaligned_size_einval)
{
	ASSERT_MAPPED(area_map(self->fd, pages(3) + 1, PROT_READ, MAP_SHARED));
	EXPECT_EQ(0, unpin_pages(self->fd, 3, 1));
	EXPECT_EQ(0, unpin_pages(self->fd, 0, 4));
	EXPECT_ERRNO(EINVAL, unpin_pages(self->fd, 0, 5));
	EXPECT_ERRNO(EINVAL, unpin_pages(self->fd, 4, 0));
	EXPECT_PAGE_COUNTS(self->fd, 0, 4, 0);
}

TEST_F(ashmem, pages_start_pinned)
{
	ASSERT_MAPPED(area_map(self->fd, pages(4), PROT_READ, MAP_SHARED));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 0));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 0));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
}

TEST_F(ashmem, unpin_makes_range_unpinned)
{
	ASSERT_MAPPED(area_map(self->fd, pages(4), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 1, 2));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 1, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 1));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 3, 1));
	/* Any unpinned page makes the range unpinned. */
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 0));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 2));
	EXPECT_PAGE_COUNTS(self->fd, 2, 2, 0);
}

TEST_F(ashmem, unpin_len_zero_reaches_end)
{
	ASSERT_MAPPED(area_map(self->fd, pages(4), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 2, 0));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 2));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 3, 1));
	EXPECT_PAGE_COUNTS(self->fd, 2, 2, 0);
}

TEST_F(ashmem, pin_after_unpin_keeps_data_not_purged)
{
	char *p = area_map(self->fd, pages(4), PROT_READ | PROT_WRITE, MAP_SHARED);

	ASSERT_MAPPED(p);
	memset(p, 0x5a, pages(4));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 4));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 4));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 4));
	EXPECT_TRUE(all_bytes(p, 0x5a, pages(4)));
	/* Pinning pinned pages is fine too. */
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 2));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
	munmap(p, pages(4));
}

TEST_F(ashmem, pin_middle_splits_unpinned_range)
{
	static const int want[8] = {
		ASHMEM_IS_UNPINNED, ASHMEM_IS_UNPINNED, ASHMEM_IS_UNPINNED,
		ASHMEM_IS_PINNED, ASHMEM_IS_PINNED,
		ASHMEM_IS_UNPINNED, ASHMEM_IS_UNPINNED, ASHMEM_IS_UNPINNED,
	};
	int i;

	ASSERT_MAPPED(area_map(self->fd, pages(8), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 8));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 3, 2));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(want[i], pin_status(self->fd, i, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 3));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 3, 2));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 5, 3));
	EXPECT_PAGE_COUNTS(self->fd, 2, 6, 0);
}

TEST_F(ashmem, unpin_merges_adjacent_and_overlapping_ranges)
{
	int i;

	ASSERT_MAPPED(area_map(self->fd, pages(8), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 2));
	ASSERT_EQ(0, unpin_pages(self->fd, 2, 2));	/* adjacent */
	ASSERT_EQ(0, unpin_pages(self->fd, 3, 3));	/* overlapping */
	ASSERT_EQ(0, unpin_pages(self->fd, 1, 1));	/* inside */
	EXPECT_PAGE_COUNTS(self->fd, 2, 6, 0);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, i, 1));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 6, 2));

	/* One unpin covering several ranges. */
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 1));
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 4, 1));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 8));
	EXPECT_PAGE_COUNTS(self->fd, 0, 8, 0);
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 8));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
}

TEST_F(ashmem, purge_all_caches_purges_unpinned_pages)
{
	char *p;
	int i;

	p = area_map(self->fd, pages(8), PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	for (i = 0; i < 8; i++)
		memset(p + pages(i), 'a' + i, pages(1));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));	/* others' */
	ASSERT_EQ(0, unpin_pages(self->fd, 2, 4));
	EXPECT_EQ(4, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 4);
	/* Purged pages stay unpinned until pinned again. */
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 4));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 2));

	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 4));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
	for (i = 0; i < 8; i++) {
		int c = (i >= 2 && i < 6) ? 0 : 'a' + i;

		EXPECT_TRUE(all_bytes(p + pages(i), c, pages(1)))
			TH_LOG("page %d", i);
	}
	munmap(p, pages(8));
}

TEST_F(ashmem, purge_all_caches_twice_returns_zero)
{
	ASSERT_MAPPED(area_map(self->fd, pages(4), PROT_READ, MAP_SHARED));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 3));
	EXPECT_EQ(3, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 1, 0, 3);
}

TEST_F(ashmem, pin_reports_purge_per_page)
{
	ASSERT_MAPPED(area_map(self->fd, pages(8), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 4));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	ASSERT_EQ(0, unpin_pages(self->fd, 4, 4));	/* after the purge */
	EXPECT_PAGE_COUNTS(self->fd, 0, 4, 4);

	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 4, 4));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	/* Unpinned again, page 0 is not purged any more. */
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 1));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	/* One purged page in a range of pinned ones. */
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 2));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 0));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 0));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
}

TEST_F(ashmem, fdinfo_page_counts_follow_pin_state)
{
	ASSERT_EQ(0, set_size(self->fd, pages(7) + 1));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
	ASSERT_MAPPED(mmap(NULL, pages(8), PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_EQ(0, unpin_pages(self->fd, 1, 3));
	EXPECT_PAGE_COUNTS(self->fd, 5, 3, 0);
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 5, 0, 3);
	ASSERT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 1));
	EXPECT_PAGE_COUNTS(self->fd, 6, 0, 2);
	ASSERT_EQ(0, unpin_pages(self->fd, 6, 2));
	EXPECT_PAGE_COUNTS(self->fd, 4, 2, 2);
}

TEST_F(ashmem, purge_all_caches_needs_cap_sys_admin)
{
	pid_t pid;

	ASSERT_MAPPED(area_map(self->fd, pages(2), PROT_READ, MAP_SHARED));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Leaving uid 0 drops every capability. */
		ASSERT_EQ(0, setgroups(0, NULL));
		ASSERT_EQ(0, setgid(65534));
		ASSERT_EQ(0, setuid(65534));
		EXPECT_ERRNO(EPERM, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_PAGE_COUNTS(self->fd, 1, 1, 0);
}

TEST_F(ashmem, release_drops_unpinned_ranges)
{
	void *p = area_map(self->fd, pages(4), PROT_READ, MAP_SHARED);

	ASSERT_MAPPED(p);
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	ASSERT_EQ(0, unpin_pages(self->fd, 0, 2));
	munmap(p, pages(4));
	close(self->fd);
	self->fd = open(ASHMEM_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
}

/*
 * Purge by real memory pressure.  A child allocates anonymous memory,
 * chunk by chunk, until the shrinker has purged some of the area's
 * unpinned pages.  The guest has no swap, so the shrinker is what must
 * give memory back; the child volunteers to be the OOM killer's victim.
 */
#define PRESSURE_AREA	((size_t)96 << 20)
#define PRESSURE_PINNED	((size_t)8 << 20)
#define HOG_CHUNK	((size_t)4 << 20)

static int fill_byte(size_t page)
{
	return 1 + page % 251;
}

/* Returns 0 once fd's area shows purged pages, 1 if there was none. */
static int hog_until_purged(int fd, unsigned long long limit)
{
	unsigned long long total;
	FILE *f;

	f = fopen("/proc/self/oom_score_adj", "w");
	if (f) {
		fputs("1000", f);
		fclose(f);
	}
	for (total = 0; total < limit; total += HOG_CHUNK) {
		char *p = mmap(NULL, HOG_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (p == MAP_FAILED)
			return 1;
		for (i = 0; i < HOG_CHUNK; i += pages(1))
			p[i] = 1;
		if (fdinfo_num(fd, "purged") > 0) {
			ksft_print_msg("memory hog: purge seen after %llu MiB\n",
				       (total + HOG_CHUNK) >> 20);
			return 0;
		}
	}
	return 1;
}

TEST_F_TIMEOUT(ashmem, memory_pressure_purges_unpinned_pages, 300)
{
	size_t npages = PRESSURE_AREA / pages(1);
	size_t first_unpinned = PRESSURE_PINNED / pages(1);
	size_t i, zeroed = 0, garbled = 0;
	long long purged, resident;
	struct sysinfo si;
	int status;
	pid_t pid;
	char *p;

	p = area_map(self->fd, PRESSURE_AREA, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_MAPPED(p);
	for (i = 0; i < npages; i++)
		memset(p + pages(i), fill_byte(i), pages(1));
	ASSERT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, PRESSURE_PINNED, 0));
	EXPECT_PAGE_COUNTS(self->fd, first_unpinned, npages - first_unpinned, 0);

	ASSERT_EQ(0, sysinfo(&si));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(hog_until_purged(self->fd,
				       2ULL * si.totalram * si.mem_unit));
	status = wait_child(pid);

	/* Still running: this process was not OOM-killed. */
	purged = fdinfo_num(self->fd, "purged");
	resident = fdinfo_num(self->fd, "unpinned");
	TH_LOG("memory hog ended with status %d; %lld of %zu unpinned pages purged",
	       status, purged, npages - first_unpinned);
	ASSERT_LT(0, purged)
		TH_LOG("no page purged under memory pressure: shrinker did not work");
	/* A kill is a failure while unpinned pages were left to purge. */
	if (status == 128 + SIGKILL) {
		EXPECT_EQ(0, resident)
			TH_LOG("memory hog OOM-killed, %lld unpinned pages resident",
			       resident);
	} else {
		EXPECT_EQ(0, status);
	}
	EXPECT_EQ(npages, fdinfo_num(self->fd, "pinned") +
		  fdinfo_num(self->fd, "unpinned") + purged);

	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS,
					     PRESSURE_PINNED, 0));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_op(self->fd, ASHMEM_PIN, PRESSURE_PINNED, 0));
	EXPECT_PAGE_COUNTS(self->fd, npages, 0, 0);

	for (i = 0; i < first_unpinned; i++)
		if (!all_bytes(p + pages(i), fill_byte(i), pages(1)))
			garbled++;
	EXPECT_EQ(0, garbled) TH_LOG("pinned pages lost their data");
	garbled = 0;
	for (i = first_unpinned; i < npages; i++) {
		if (all_bytes(p + pages(i), 0, pages(1)))
			zeroed++;
		else if (!all_bytes(p + pages(i), fill_byte(i), pages(1)))
			garbled++;
	}
	EXPECT_EQ(0, garbled) TH_LOG("unpinned pages neither intact nor zero");
	EXPECT_LE(purged, zeroed);
	munmap(p, PRESSURE_AREA);
}

/* GET_FILE_ID and fdinfo */

TEST_F(ashmem, get_file_id_before_mmap_einval)
{
	unsigned long id;

	memset(&id, 0xcc, sizeof(id));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	EXPECT_TRUE(all_bytes(&id, 0xcc, sizeof(id)));
}

TEST_F(ashmem, get_file_id_matches_maps_and_fdinfo)
{
	union {
		unsigned long id;
		unsigned char bytes[16];
	} out;
	struct maps_entry e;
	void *p;

	p = area_map(self->fd, pages(1), PROT_READ, MAP_SHARED);
	ASSERT_MAPPED(p);
	memset(&out, 0xcc, sizeof(out));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &out.id));
	/* Only an unsigned long is written, 4 bytes in a 32-bit process. */
	EXPECT_TRUE(all_bytes(out.bytes + sizeof(out.id), 0xcc,
			      sizeof(out) - sizeof(out.id)));
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_EQ(e.inode, out.id);
	EXPECT_EQ((long long)out.id, fdinfo_num(self->fd, "inode"));
	munmap(p, pages(1));
}

TEST_F(ashmem, get_file_id_bad_pointer_efault)
{
	ASSERT_MAPPED(area_map(self->fd, pages(1), PROT_READ, MAP_SHARED));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_FILE_ID, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_FILE_ID, unmapped_addr()));
}

TEST_F(ashmem, fdinfo_of_a_new_area)
{
	char val[300];

	EXPECT_EQ(0, fdinfo_num(self->fd, "size"));
	EXPECT_EQ(-1, fdinfo_get(self->fd, "inode", val, sizeof(val)));
	EXPECT_EQ(-1, fdinfo_get(self->fd, "name", val, sizeof(val)));
	EXPECT_PAGE_COUNTS(self->fd, 0, 0, 0);
}

TEST_F(ashmem, fdinfo_shows_name_size_and_inode)
{
	unsigned long id;
	char val[300];

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "info"));
	ASSERT_EQ(0, set_size(self->fd, pages(3) + 5));
	ASSERT_EQ(0, fdinfo_get(self->fd, "name", val, sizeof(val)));
	EXPECT_STREQ("info", val);
	EXPECT_EQ(pages(3) + 5, fdinfo_num(self->fd, "size"));
	EXPECT_EQ(-1, fdinfo_get(self->fd, "inode", val, sizeof(val)));

	ASSERT_MAPPED(mmap(NULL, pages(4), PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	EXPECT_EQ((long long)id, fdinfo_num(self->fd, "inode"));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
}

/* SET_SIZE must not slip in between mmap's size check and its use. */
struct size_racer {
	int fd;
	size_t small, big;
};

static void *flip_size(void *arg)
{
	struct size_racer *r = arg;

	while (!set_size(r->fd, r->small) &&
	       !set_size(r->fd, r->big))
		;
	return NULL;
}

TEST_F_TIMEOUT(ashmem, set_size_races_with_mmap, 120)
{
	struct size_racer r = { .small = pages(1), .big = pages(64) };
	int round;

	for (round = 0; round < 50; round++) {
		pthread_t thread;
		size_t i;
		char *p;

		r.fd = open(ASHMEM_DEV, O_RDWR);
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, set_size(r.fd, r.big));
		ASSERT_EQ(0, pthread_create(&thread, NULL, flip_size, &r));
		do {
			p = mmap(NULL, r.big, PROT_READ | PROT_WRITE,
				 MAP_SHARED, r.fd, 0);
		} while (p == MAP_FAILED && errno == EINVAL);
		ASSERT_MAPPED(p);
		ASSERT_EQ(0, pthread_join(thread, NULL));
		/* The size the mapping was checked against is the final one. */
		EXPECT_EQ(r.big, ioctl(r.fd, ASHMEM_GET_SIZE));
		EXPECT_EQ(r.big, lseek(r.fd, 0, SEEK_END));
		for (i = 0; i < r.big; i += pages(1))
			p[i] = 1;
		munmap(p, r.big);
		close(r.fd);
	}
}

/* Unknown ioctls */

FIXTURE(ashmem_bad_ioctl) {
	int fd;
};

FIXTURE_VARIANT(ashmem_bad_ioctl) {
	unsigned long cmd;
};

FIXTURE_VARIANT_ADD(ashmem_bad_ioctl, nr_0) {
	.cmd = _IO(__ASHMEMIOC, 0),
};

FIXTURE_VARIANT_ADD(ashmem_bad_ioctl, nr_12) {
	.cmd = _IO(__ASHMEMIOC, 12),
};

FIXTURE_VARIANT_ADD(ashmem_bad_ioctl, get_size_wrong_direction) {
	.cmd = _IOR(__ASHMEMIOC, 4, int),
};

FIXTURE_VARIANT_ADD(ashmem_bad_ioctl, other_magic) {
	.cmd = _IO(0x78, 4),
};

FIXTURE_SETUP(ashmem_bad_ioctl)
{
	self->fd = open(ASHMEM_DEV, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, NO_DEVICE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ashmem_bad_ioctl)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ashmem_bad_ioctl, enotty)
{
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, variant->cmd, 0));
	ASSERT_MAPPED(area_map(self->fd, pages(1), PROT_READ, MAP_SHARED));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, variant->cmd, 0));
}

TEST_HARNESS_MAIN
