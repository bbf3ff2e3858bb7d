// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the ashmem ioctls on memfd files (CONFIG_MEMFD_ASHMEM): the
 * answers of Android's kernels, for userspace that moved from /dev/ashmem
 * to memfd_create().
 *
 * The memfd fixture runs each test on a tmpfs memfd and on a hugetlb one.
 * Output buffers are filled with 0xcc before the kernel writes them, so
 * that a short or long write shows.  The same source is built 64-bit and
 * with -m32, where SET_SIZE, SET_PROT_MASK and GET_FILE_ID have their
 * compat numbers.
 *
 * Whether the kernel has these ioctls is read from /proc/kallsyms, or
 * without it from whether a memfd answers ASHMEM_GET_SIZE, as libcutils
 * decides.  Without them the memfd fixture is skipped, and the other tests
 * check that a memfd answers every ashmem ioctl with ENOTTY, as upstream.
 * ASHMEM_MEMFD=on or =off in the environment says which to expect.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define PROT_RX		(PROT_READ | PROT_EXEC)
#define NAME		"ashmem-memfd-test"
#define MEMFD_SYMBOL	"memfd_ashmem_ioctl"
#define NO_LAYER	"memfd files answer no ashmem ioctl (CONFIG_MEMFD_ASHMEM=n)"
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"
#define NO_MEMORY	"no two free huge pages (" NR_HUGEPAGES ")"

/* Does the kernel answer ashmem ioctls on memfds?  Decided before main(). */
static bool memfd_layer;
static const char *memfd_layer_source;

static void __attribute__((constructor)) find_memfd_layer(void)
{
	int found = kernel_symbol(MEMFD_SYMBOL);
	int fd;

	if (found >= 0) {
		memfd_layer = found;
		memfd_layer_source = "/proc/kallsyms";
		return;
	}
	fd = memfd_create(NAME, MFD_CLOEXEC);
	memfd_layer = fd >= 0 && !(ioctl(fd, ASHMEM_GET_SIZE) < 0 &&
				   errno == ENOTTY);
	memfd_layer_source = "ASHMEM_GET_SIZE on a memfd";
	if (fd >= 0)
		close(fd);
}

/* Every ashmem ioctl, with an argument it may use. */
struct ashmem_cmd {
	const char *name;
	unsigned long cmd;
	bool pointer;
};

#define CMD(c, p)	{ #c, c, p }
static const struct ashmem_cmd ashmem_cmds[] = {
	CMD(ASHMEM_SET_NAME, true),
	CMD(ASHMEM_GET_NAME, true),
	CMD(ASHMEM_SET_SIZE, false),
	CMD(ASHMEM_GET_SIZE, false),
	CMD(ASHMEM_SET_PROT_MASK, false),
	CMD(ASHMEM_GET_PROT_MASK, false),
	CMD(ASHMEM_PIN, true),
	CMD(ASHMEM_UNPIN, true),
	CMD(ASHMEM_GET_PIN_STATUS, true),
	CMD(ASHMEM_PURGE_ALL_CACHES, false),
	CMD(ASHMEM_GET_FILE_ID, true),
};

/* Run @c on @fd with a buffer that is valid for every command. */
static long ashmem_cmd_run(int fd, const struct ashmem_cmd *c)
{
	static char buf[ASHMEM_NAME_LEN] = "a name";
	struct ashmem_pin pin = { 0, 0 };

	if (c->cmd == ASHMEM_PIN || c->cmd == ASHMEM_UNPIN ||
	    c->cmd == ASHMEM_GET_PIN_STATUS)
		return xioctl(fd, c->cmd, (uintptr_t)&pin);
	if (c->pointer)
		return xioctl(fd, c->cmd, (uintptr_t)buf);
	return xioctl(fd, c->cmd, c->cmd == ASHMEM_SET_PROT_MASK ? PROT_RWX : 0);
}

/* Checks that @fd answers every ashmem ioctl with ENOTTY. */
static void expect_no_ashmem_ioctl(struct __test_metadata *_metadata, int fd,
				   const char *what)
{
	char label[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ashmem_cmds); i++) {
		snprintf(label, sizeof(label), "%s: %s", what,
			 ashmem_cmds[i].name);
		EXPECT_ERRNO_AT(ENOTTY, ashmem_cmd_run(fd, &ashmem_cmds[i]),
				label);
	}
}

static long hugepage_size(void)
{
	long kb = meminfo_kb("Hugepagesize");

	return kb > 0 ? kb * 1024 : -1;
}

/* A file descriptor of @fd's file, opened again through /proc. */
static int reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags | O_CLOEXEC);
}

/*
 * A tmpfs memfd and a hugetlb memfd.  @unit is the size the file grows by:
 * a page, or a huge page.  A hugetlb test that maps the file makes sure two
 * huge pages are free first, and gives them back in the teardown.
 */
FIXTURE(memfd) {
	int fd;
	size_t unit;
	long nr_hugepages;
};

FIXTURE_VARIANT(memfd) {
	unsigned int flags;
};

FIXTURE_VARIANT_ADD(memfd, tmpfs) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(memfd, hugetlb) {
	.flags = MFD_HUGETLB,
};

FIXTURE_SETUP(memfd)
{
	self->fd = -1;
	self->nr_hugepages = -1;
	if (!memfd_layer)
		SKIP(return, NO_LAYER);
	self->unit = pages(1);
	if (variant->flags & MFD_HUGETLB) {
		if (hugepage_size() < 0)
			SKIP(return, "no huge pages (CONFIG_HUGETLBFS)");
		self->unit = hugepage_size();
	}
	self->fd = memfd_create(NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING |
				variant->flags);
	if (self->fd < 0 && (variant->flags & MFD_HUGETLB))
		SKIP(return, "memfd_create(MFD_HUGETLB): %s", strerror(errno));
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(memfd)
{
	char val[32];

	if (self->fd >= 0)
		close(self->fd);
	if (self->nr_hugepages >= 0) {
		snprintf(val, sizeof(val), "%ld", self->nr_hugepages);
		write_file(NR_HUGEPAGES, val);
	}
}

/* Size @fd to @size bytes and map it shared; MAP_FAILED on error. */
static void *memfd_map(int fd, size_t size)
{
	if (ftruncate(fd, size))
		return MAP_FAILED;
	return mmap(NULL, size, PROT_RW, MAP_SHARED, fd, 0);
}

/*
 * For a hugetlb memfd (@flags), two free huge pages, which may take raising
 * nr_hugepages: then its old value is stored in @restore, for the teardown.
 */
static bool two_free_hugepages(unsigned int flags, long *restore)
{
	char val[32];
	long n;

	if (!(flags & MFD_HUGETLB) || meminfo_kb("HugePages_Free") >= 2)
		return true;
	if (!read_small(NR_HUGEPAGES, val, sizeof(val))) {
		n = strtol(val, NULL, 10);
		snprintf(val, sizeof(val), "%ld", n + 2);
		if (!write_str(NR_HUGEPAGES, val))
			*restore = n;
	}
	return meminfo_kb("HugePages_Free") >= 2;
}

/* SET_NAME and SET_SIZE */

TEST_F(memfd, set_name_einval)
{
	char name[ASHMEM_NAME_LEN];

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "other"));
	memset(name, FILL, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(NAME, name);
}

TEST_F(memfd, set_size_einval)
{
	ASSERT_EQ(0, ftruncate(self->fd, self->unit));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_SIZE, 2 * self->unit));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_SIZE, 0));
	EXPECT_EQ(self->unit, ioctl(self->fd, ASHMEM_GET_SIZE));
}

/* GET_NAME */

TEST_F(memfd, get_name_without_prefix)
{
	char name[ASHMEM_NAME_LEN];

	memset(name, FILL, sizeof(name));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(NAME, name);
	/* Only the name and its NUL. */
	EXPECT_TRUE(all_bytes(name + sizeof(NAME), FILL,
			      sizeof(name) - sizeof(NAME)));
}

TEST_F(memfd, get_name_longest)
{
	/* memfd_create() takes 249 bytes: NAME_MAX less "memfd:". */
	char want[NAME_MAX - 6 + 1], name[ASHMEM_NAME_LEN];
	int fd;

	memset(want, 'n', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	fd = memfd_create(want, MFD_CLOEXEC | variant->flags);
	ASSERT_LE(0, fd);
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(want, name);
	EXPECT_TRUE(all_bytes(name + sizeof(want), FILL,
			      sizeof(name) - sizeof(want)));
	close(fd);
}

TEST_F(memfd, get_name_empty)
{
	char name[ASHMEM_NAME_LEN];
	int fd;

	fd = memfd_create("", MFD_CLOEXEC | variant->flags);
	ASSERT_LE(0, fd);
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, name));
	EXPECT_EQ(0, name[0]);
	EXPECT_TRUE(all_bytes(name + 1, FILL, sizeof(name) - 1));
	close(fd);
}

TEST_F(memfd, get_name_bad_pointer_efault)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME, unmapped_addr()));
}

/* GET_SIZE */

TEST_F(memfd, get_size_is_the_file_size)
{
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_SIZE));
	ASSERT_EQ(0, ftruncate(self->fd, 3 * self->unit));
	EXPECT_EQ(3 * self->unit, ioctl(self->fd, ASHMEM_GET_SIZE));
	ASSERT_EQ(0, ftruncate(self->fd, self->unit));
	EXPECT_EQ(self->unit, ioctl(self->fd, ASHMEM_GET_SIZE));
	if (variant->flags & MFD_HUGETLB)
		return;		/* sizes are whole huge pages */
	ASSERT_EQ(0, ftruncate(self->fd, 12345));
	EXPECT_EQ(12345, ioctl(self->fd, ASHMEM_GET_SIZE));
}

/* GET_PROT_MASK and the write seals */

TEST_F(memfd, get_prot_mask_rwx)
{
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, write_seal_removes_prot_write)
{
	ASSERT_EQ(0, fcntl(self->fd, F_ADD_SEALS, F_SEAL_WRITE));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, future_write_seal_removes_prot_write)
{
	ASSERT_EQ(0, fcntl(self->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, other_seals_keep_prot_write)
{
	ASSERT_EQ(0, fcntl(self->fd, F_ADD_SEALS,
			   F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

/* SET_PROT_MASK */

TEST_F(memfd, set_prot_mask_rwx_changes_nothing)
{
	long seals = fcntl(self->fd, F_GET_SEALS);

	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RWX));
	EXPECT_EQ(seals, fcntl(self->fd, F_GET_SEALS));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, removing_read_or_exec_is_accepted_and_ignored)
{
	static const unsigned long masks[] = {
		PROT_RW, PROT_WRITE | PROT_EXEC, PROT_WRITE,
	};
	long seals = fcntl(self->fd, F_GET_SEALS);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, masks[i]));
		EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	}
	EXPECT_EQ(seals, fcntl(self->fd, F_GET_SEALS));
}

TEST_F(memfd, removing_write_adds_future_write_seal)
{
	long seals = fcntl(self->fd, F_GET_SEALS);

	ASSERT_LE(0, seals);
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_READ));
	EXPECT_EQ(seals | F_SEAL_FUTURE_WRITE, fcntl(self->fd, F_GET_SEALS));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, empty_mask_removes_only_write)
{
	long seals = fcntl(self->fd, F_GET_SEALS);

	ASSERT_LE(0, seals);
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, 0));
	EXPECT_EQ(seals | F_SEAL_FUTURE_WRITE, fcntl(self->fd, F_GET_SEALS));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, set_prot_mask_cannot_add_write)
{
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RX));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RW));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RWX));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

TEST_F(memfd, set_prot_mask_unknown_bit_einval)
{
	long seals = fcntl(self->fd, F_GET_SEALS);

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK,
				   PROT_RWX | 0x8));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK,
				   PROT_READ | 0x10));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK, ~0UL));
	EXPECT_EQ(seals, fcntl(self->fd, F_GET_SEALS));
}

TEST_F(memfd, set_prot_mask_without_allow_sealing_eperm)
{
	int fd = memfd_create(NAME, MFD_CLOEXEC | variant->flags);

	ASSERT_LE(0, fd);
	EXPECT_EQ(PROT_RWX, ioctl(fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EPERM, ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ));
	EXPECT_EQ(PROT_RWX, ioctl(fd, ASHMEM_GET_PROT_MASK));
	/* Removing nothing needs no seal. */
	EXPECT_EQ(0, ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_RWX));
	close(fd);
}

TEST_F(memfd, set_prot_mask_read_only_fd_eperm)
{
	int fd = reopen(self->fd, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_ERRNO(EPERM, ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ));
	EXPECT_EQ(PROT_RWX, ioctl(fd, ASHMEM_GET_PROT_MASK));
	close(fd);
}

TEST_F(memfd, set_prot_mask_after_seal_seal_eperm)
{
	/* As on Android, the seal is added again, and F_SEAL_SEAL refuses. */
	ASSERT_EQ(0, fcntl(self->fd, F_ADD_SEALS,
			   F_SEAL_FUTURE_WRITE | F_SEAL_SEAL));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EPERM, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RX));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_RWX));
}

TEST_F(memfd, removing_write_keeps_existing_writable_mappings)
{
	char *rw, *ro, *p;

	if (!two_free_hugepages(variant->flags, &self->nr_hugepages))
		SKIP(return, NO_MEMORY);
	rw = memfd_map(self->fd, self->unit);
	ASSERT_MAPPED(rw);
	rw[0] = 'a';
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_READ));

	/* The mapping from before still writes to the file... */
	rw[0] = 'b';
	ro = mmap(NULL, self->unit, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_MAPPED(ro);
	EXPECT_EQ('b', ro[0]);

	/* ...but no new writable shared mapping, now or later. */
	EXPECT_ERRNO(EPERM, mmap(NULL, self->unit, PROT_RW, MAP_SHARED, self->fd, 0));
	EXPECT_ERRNO(EACCES, mprotect(ro, self->unit, PROT_RW));
	if (!(variant->flags & MFD_HUGETLB)) {
		EXPECT_ERRNO(EPERM, write(self->fd, "c", 1));
		/* A private copy may still be written. */
		p = mmap(NULL, self->unit, PROT_RW, MAP_PRIVATE, self->fd, 0);
		ASSERT_MAPPED(p);
		p[0] = 'p';
		EXPECT_EQ('b', ro[0]);
		munmap(p, self->unit);
	}
	munmap(ro, self->unit);
	munmap(rw, self->unit);
}

/* PIN, UNPIN, GET_PIN_STATUS, PURGE_ALL_CACHES: nothing is ever purged */

TEST_F(memfd, pin_unpin_report_pinned_memory)
{
	size_t units = 2;
	char *p;

	if (!two_free_hugepages(variant->flags, &self->nr_hugepages))
		SKIP(return, NO_MEMORY);
	p = memfd_map(self->fd, units * self->unit);
	ASSERT_MAPPED(p);
	memset(p, 'd', units * self->unit);

	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, 0, 0));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS,
					   0, 0));
	if (geteuid() == 0)
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, 0, 0));
	EXPECT_TRUE(all_bytes(p, 'd', units * self->unit));
	munmap(p, units * self->unit);
}

TEST_F(memfd, pin_ranges_are_not_read)
{
	/* Android answers before looking at the argument, if there is one. */
	EXPECT_EQ(ASHMEM_NOT_PURGED, ioctl(self->fd, ASHMEM_PIN, NULL));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_UNPIN, NULL));
	EXPECT_EQ(ASHMEM_IS_PINNED, ioctl(self->fd, ASHMEM_GET_PIN_STATUS,
					  NULL));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, 1, 3));
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, UINT32_MAX, UINT32_MAX));
}

TEST_F(memfd, purge_all_caches_returns_zero)
{
	if (geteuid() != 0)
		SKIP(return, "needs CAP_SYS_ADMIN: run as root");
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
}

TEST_F(memfd, purge_all_caches_needs_cap_sys_admin)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (geteuid() == 0)
			ASSERT_EQ(0, become_nobody());
		EXPECT_ERRNO(EPERM, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
}

/* GET_FILE_ID */

TEST_F(memfd, get_file_id_is_the_inode_number)
{
	unsigned char buf[2 * sizeof(unsigned long)];
	unsigned long id;
	struct stat st;

	ASSERT_EQ(0, fstat(self->fd, &st));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, buf));
	memcpy(&id, buf, sizeof(id));
	EXPECT_EQ(st.st_ino, id);
	/* An unsigned long: 4 bytes in a 32-bit process, 8 in a 64-bit one. */
	EXPECT_TRUE(all_bytes(buf + sizeof(id), FILL, sizeof(buf) - sizeof(id)));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_FILE_ID,
				   unmapped_addr()));
}

/* Other commands, other descriptors of the same file */

TEST_F(memfd, other_commands_enotty)
{
	static const unsigned long cmds[] = {
		_IO(__ASHMEMIOC, 0), _IO(__ASHMEMIOC, 12),
		_IOW(__ASHMEMIOC, 1, char[ASHMEM_NAME_LEN - 1]),
		_IOW(__ASHMEMIOC, 3, char[2]), _IOR(__ASHMEMIOC, 11, char[2]),
		_IOW(__ASHMEMIOC, 7, char[4]), TCGETS,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		EXPECT_ERRNO_AT(ENOTTY, ioctl(self->fd, cmds[i], 0), "command");
}

TEST_F(memfd, reopened_through_proc_answers_too)
{
	char name[ASHMEM_NAME_LEN];
	unsigned long a, b;
	int fd;

	ASSERT_EQ(0, ftruncate(self->fd, self->unit));
	fd = reopen(self->fd, O_RDWR);
	ASSERT_LE(0, fd);
	memset(name, FILL, sizeof(name));
	EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, name));
	EXPECT_STREQ(NAME, name);
	EXPECT_EQ(self->unit, ioctl(fd, ASHMEM_GET_SIZE));
	ASSERT_EQ(0, ioctl(fd, ASHMEM_GET_FILE_ID, &a));
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &b));
	EXPECT_EQ(a, b);
	/* The seal belongs to the file: every descriptor sees it. */
	EXPECT_EQ(0, ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ));
	EXPECT_EQ(PROT_RX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	close(fd);
}

TEST_F(memfd, passed_over_scm_rights)
{
	unsigned long id;
	int sv[2];
	pid_t pid;
	char *p;

	if (!two_free_hugepages(variant->flags, &self->nr_hugepages))
		SKIP(return, NO_MEMORY);
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	p = memfd_map(self->fd, self->unit);
	ASSERT_MAPPED(p);
	snprintf(p, self->unit, "%s", "from the sender");
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_PROT_MASK, PROT_READ));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char name[ASHMEM_NAME_LEN], byte, *q;
		unsigned long got;
		int fd;

		/* Use only what arrives over the socket. */
		munmap(p, self->unit);
		close(self->fd);
		close(sv[0]);
		fd = recv_fd(sv[1], &byte, 1);
		ASSERT_LE(0, fd);
		memset(name, FILL, sizeof(name));
		EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, name));
		EXPECT_STREQ(NAME, name);
		EXPECT_EQ(self->unit, ioctl(fd, ASHMEM_GET_SIZE));
		EXPECT_EQ(PROT_RX, ioctl(fd, ASHMEM_GET_PROT_MASK));
		EXPECT_EQ(0, ioctl(fd, ASHMEM_GET_FILE_ID, &got));
		EXPECT_EQ(id, got);
		EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(fd, ASHMEM_GET_PIN_STATUS,
						   0, 0));
		EXPECT_ERRNO(EPERM, mmap(NULL, self->unit, PROT_RW, MAP_SHARED, fd, 0));
		q = mmap(NULL, self->unit, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_MAPPED(q);
		EXPECT_STREQ("from the sender", q);
		_exit(0);
	}
	close(sv[1]);
	ASSERT_EQ(0, send_fd(sv[0], self->fd, "m", 1));
	ASSERT_EQ(0, wait_child(pid));
	close(sv[0]);
	munmap(p, self->unit);
}

/* Files that are not memfds, and kernels without the ioctls */

/*
 * Both ways, all or nothing: with the ioctls, a memfd answers every one of
 * them with something else than ENOTTY; without them, it answers each with
 * ENOTTY, as upstream, and stays an ordinary memfd.
 */
TEST(memfd_answers_all_or_none)
{
	static const struct {
		unsigned int flags;
		const char *what;
	} memfds[] = {
		{ 0, "memfd" },
		{ MFD_ALLOW_SEALING, "memfd, MFD_ALLOW_SEALING" },
		{ MFD_HUGETLB, "memfd, MFD_HUGETLB" },
	};
	const char *expect = getenv("ASHMEM_MEMFD");
	size_t i, j;

	TH_LOG("ashmem ioctls on memfds: %s (from %s)",
	       memfd_layer ? "yes" : "no", memfd_layer_source);
	if (expect)
		ASSERT_STREQ(expect, memfd_layer ? "on" : "off")
			TH_LOG("ASHMEM_MEMFD=%s in the environment", expect);
	for (i = 0; i < ARRAY_SIZE(memfds); i++) {
		bool huge = memfds[i].flags & MFD_HUGETLB;
		int fd = memfd_create(NAME, MFD_CLOEXEC | memfds[i].flags);

		if (fd < 0 && huge)
			continue;	/* no hugetlbfs */
		ASSERT_LE(0, fd);
		if (!memfd_layer) {
			expect_no_ashmem_ioctl(_metadata, fd, memfds[i].what);
			/* ...and it is an ordinary memfd. */
			EXPECT_EQ(0, ftruncate(fd, huge ? hugepage_size() :
					       (long)pages(1)));
			if (memfds[i].flags & MFD_ALLOW_SEALING)
				EXPECT_EQ(0, fcntl(fd, F_ADD_SEALS,
						   F_SEAL_WRITE));
			close(fd);
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(ashmem_cmds); j++) {
			long ret;

			errno = 0;
			ret = ashmem_cmd_run(fd, &ashmem_cmds[j]);
			EXPECT_FALSE(ret < 0 && errno == ENOTTY)
				TH_LOG("%s: %s: ENOTTY", memfds[i].what,
				       ashmem_cmds[j].name);
		}
		close(fd);
	}
}

/* @type mounted on a new directory @dir, in a mount namespace of our own. */
static int mount_temp(const char *type, char *dir)
{
	int err;

	if (!mkdtemp(dir))
		return -1;
	if (!mount_private(type, dir))
		return 0;
	err = errno;
	rmdir(dir);
	errno = err;
	return -1;
}

/* Files on a mounted tmpfs, even one named like a memfd, are no memfds. */
TEST(tmpfs_file_enotty)
{
	char dir[] = "/tmp/ashmem-memfd.XXXXXX", path[PATH_MAX];
	static const char * const names[] = { "plain", "memfd:" NAME };
	size_t i;

	if (mount_temp("tmpfs", dir))
		SKIP(return, "cannot mount a tmpfs: %s (needs root)",
		     strerror(errno));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ftruncate(fd, pages(1)));
		expect_no_ashmem_ioctl(_metadata, fd, names[i]);
		/* Unlinked, it is anonymous, but still no memfd. */
		ASSERT_EQ(0, unlink(path));
		expect_no_ashmem_ioctl(_metadata, fd, names[i]);
		close(fd);
	}
	umount(dir);
	rmdir(dir);
}

TEST(hugetlbfs_file_enotty)
{
	char dir[] = "/tmp/ashmem-memfd.XXXXXX", path[PATH_MAX];
	int fd;

	if (mount_temp("hugetlbfs", dir))
		SKIP(return, "cannot mount hugetlbfs: %s (CONFIG_HUGETLBFS, root)",
		     strerror(errno));
	snprintf(path, sizeof(path), "%s/memfd:%s", dir, NAME);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	expect_no_ashmem_ioctl(_metadata, fd, "hugetlbfs file");
	close(fd);
	umount(dir);
	rmdir(dir);
}

/* The tmpfs file behind a shared anonymous mapping ("/dev/zero"). */
TEST(shared_anonymous_memory_enotty)
{
	char path[64];
	void *p;
	int fd;

	p = mmap(NULL, pages(1), PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(p);
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)(uintptr_t)p,
		 (unsigned long)(uintptr_t)p + pages(1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "cannot open %s: %s (needs CAP_SYS_ADMIN)",
		     path, strerror(errno));
	expect_no_ashmem_ioctl(_metadata, fd, "shared anonymous memory");
	close(fd);
	munmap(p, pages(1));
}

TEST_HARNESS_MAIN
