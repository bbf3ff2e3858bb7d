// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI of /dev/ashmem: every ioctl in every state of an area and open
 * mode, mmap() and the prot mask, read() and lseek(), sharing, pinning and
 * purging.  Every test opens its own area; return values and errno are
 * checked apart.  Output buffers are filled with FILL first, so that a stray
 * write shows.  Built 64-bit and -m32, where SET_SIZE, SET_PROT_MASK and
 * GET_FILE_ID have compat numbers; a few edges exist for one of the two only.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/fs.h>

#include "../kselftest_harness.h"
#include "ashmem_util.h"

#define LP64		(sizeof(long) == 8)
#define NON_CANONICAL_64	0x8000000000000000ULL

FIXTURE(ashmem) {
	int fd;
};

FIXTURE_SETUP(ashmem)
{
	self->fd = open_area(_metadata, O_RDWR);
}

FIXTURE_TEARDOWN(ashmem)
{
	close(self->fd);
}

/* GET_NAME, into a buffer filled with FILL, returns 0 and @expect. */
#define EXPECT_NAME(fd, expect) do {					\
	char __name[ASHMEM_NAME_LEN];					\
									\
	memset(__name, FILL, sizeof(__name));				\
	ASSERT_EQ(0, ioctl(fd, ASHMEM_GET_NAME, __name));		\
	EXPECT_STREQ(expect, __name);					\
} while (0)

static int pin_status(int fd, size_t first, size_t npages)
{
	return pin_pages(fd, ASHMEM_GET_PIN_STATUS, first, npages);
}

/* Name, size and prot mask */

TEST_F(ashmem, each_open_is_a_new_area)
{
	int fd2;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "first"));
	ASSERT_EQ(0, set_size(self->fd, pages(2)));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	fd2 = open_area(_metadata, O_RDWR);
	EXPECT_EQ(0, ioctl(fd2, ASHMEM_GET_SIZE));
	EXPECT_EQ(PROT_RWX, ioctl(fd2, ASHMEM_GET_PROT_MASK));
	EXPECT_NAME(fd2, ASHMEM_NAME_DEF);
	close(fd2);
}

/* Android's GET_NAME copied the whole buffer: an older name, or kernel stack. */
TEST_F(ashmem, get_name_writes_only_the_name)
{
	char buf[ASHMEM_NAME_LEN * 2], longname[ASHMEM_NAME_LEN] = { 0 };
	/* NULL: no SET_NAME yet; "": no name. */
	const char *const names[] = { NULL, longname, "a", "short", "" };
	unsigned int i;

	memset(longname, 'L', ASHMEM_NAME_LEN - 1);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const char *expect = names[i] && *names[i] ? names[i] : ASHMEM_NAME_DEF;
		size_t len = strlen(expect) + 1;

		if (names[i])
			ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, names[i]));
		memset(buf, FILL, sizeof(buf));
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, buf));
		EXPECT_STREQ(expect, buf);
		EXPECT_TRUE(all_bytes(buf + len, FILL, sizeof(buf) - len))
			TH_LOG("bytes after \"%s\" were written", expect);
	}
}

TEST_F(ashmem, set_name_truncates_to_255_bytes)
{
	/* 299 bytes, then exactly ASHMEM_NAME_LEN without a NUL among them. */
	static const struct {
		char c;
		size_t nul;
	} names[] = { { 'a', 299 }, { 'b', ASHMEM_NAME_LEN } };
	char in[300], out[ASHMEM_NAME_LEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		memset(in, names[i].c, sizeof(in) - 1);
		in[names[i].nul] = '\0';
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, in));
		memset(out, FILL, sizeof(out));
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_NAME, out));
		EXPECT_EQ(ASHMEM_NAME_LEN - 1, strnlen(out, sizeof(out)));
		EXPECT_TRUE(all_bytes(out, names[i].c, ASHMEM_NAME_LEN - 1));
	}
}

TEST_F(ashmem, prot_mask_belongs_to_the_area)
{
	int dupfd;
	pid_t pid;

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_RW));
	dupfd = dup(self->fd);
	ASSERT_LE(0, dupfd);
	EXPECT_EQ(PROT_RW, ioctl(dupfd, ASHMEM_GET_PROT_MASK));
	ASSERT_EQ(0, set_prot_mask(dupfd, PROT_READ));
	EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	close(dupfd);

	pid = fork_checked(_metadata);
	if (pid == 0) {
		EXPECT_EQ(PROT_READ, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
		EXPECT_EQ(0, set_prot_mask(self->fd, PROT_NONE));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_EQ(PROT_NONE, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
}

/* The personality dies with the test's own process. */
TEST_F(ashmem, read_implies_exec_adds_exec_unless_removed)
{
	int persona = personality(0xffffffff), fd2;

	ASSERT_NE(-1, persona);
	fd2 = open_area(_metadata, O_RDWR);
	ASSERT_EQ(0, set_prot_mask(fd2, PROT_RW));
	ASSERT_NE(-1, personality(persona | READ_IMPLIES_EXEC));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	EXPECT_EQ(PROT_READ | PROT_EXEC, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	ASSERT_EQ(0, set_prot_mask(fd2, PROT_READ));
	EXPECT_EQ(PROT_READ, ioctl(fd2, ASHMEM_GET_PROT_MASK));
	close(fd2);
}

TEST_F(ashmem, prot_mask_after_mmap_applies_to_new_mappings)
{
	char *p = area_map_checked(_metadata, self->fd, pages(1), PROT_RW);

	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	p[0] = 'w';	/* the existing mapping stays writable */
	EXPECT_ERRNO(EPERM, map_fd(self->fd, pages(1), PROT_RW, MAP_SHARED, 0));
	munmap(p, pages(1));
	p = map_fd_checked(_metadata, self->fd, pages(1), PROT_READ, MAP_SHARED, 0);
	EXPECT_EQ('w', p[0]);
}

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

FIXTURE_VARIANT_ADD(ashmem_state, new_area) { .state = ST_NEW };
FIXTURE_VARIANT_ADD(ashmem_state, sized) { .state = ST_SIZED };
FIXTURE_VARIANT_ADD(ashmem_state, mapped) { .state = ST_MAPPED };
FIXTURE_VARIANT_ADD(ashmem_state, mapping_gone) { .state = ST_UNMAPPED };

FIXTURE_SETUP(ashmem_state)
{
	self->fd = open_area(_metadata, O_RDWR);
	if (self->fd < 0)
		return;
	self->size = variant->state == ST_NEW ? 0 : STATE_SIZE;
	self->mapped_once = variant->state >= ST_MAPPED;
	if (variant->state >= ST_SIZED)
		ASSERT_EQ(0, set_size(self->fd, STATE_SIZE));
	if (variant->state >= ST_MAPPED) {
		self->map = map_fd_checked(_metadata, self->fd, pages(4), PROT_RW, MAP_SHARED, 0);
		snprintf(self->map, pages(1), "%s", "data");
	}
	if (variant->state == ST_UNMAPPED) {
		munmap(self->map, pages(4));
		self->map = NULL;
	}
}

FIXTURE_TEARDOWN(ashmem_state)
{
	close(self->fd);
}

struct bad_ptr {
	const char *what;
	unsigned long addr;
};

/* Fills @b, returns how many: the last one is for 64-bit processes. */
static int bad_pointers(struct bad_ptr *b)
{
	b[0] = (struct bad_ptr){ "NULL", 0 };
	b[1] = (struct bad_ptr){ "unmapped", (unsigned long)unmapped_addr() };
	b[2] = (struct bad_ptr){ "kernel", kernel_addr() };
	b[3] = (struct bad_ptr){ "last byte", ~0UL };
	b[4] = (struct bad_ptr){ "non-canonical", (unsigned long)NON_CANONICAL_64 };
	return LP64 ? 5 : 4;
}

TEST_F(ashmem_state, bad_pointers_efault)
{
	static const struct {
		const char *name;
		unsigned long cmd;
	} cmds[] = {
		{ "SET_NAME", ASHMEM_SET_NAME }, { "GET_NAME", ASHMEM_GET_NAME },
		{ "PIN", ASHMEM_PIN }, { "UNPIN", ASHMEM_UNPIN },
		{ "GET_PIN_STATUS", ASHMEM_GET_PIN_STATUS },
		/* Before the first mmap there is no file id to store. */
		{ "GET_FILE_ID", ASHMEM_GET_FILE_ID },
	};
	char what[64];
	struct bad_ptr b[8];
	int i, n = bad_pointers(b);
	unsigned int c;

	for (i = 0; i < n; i++) {
		for (c = 0; c < ARRAY_SIZE(cmds); c++) {
			int err = cmds[c].cmd == ASHMEM_GET_FILE_ID &&
				  !self->mapped_once ? EINVAL : EFAULT;

			snprintf(what, sizeof(what), "%s(%s)", cmds[c].name, b[i].what);
			EXPECT_ERRNO_AT(err, xioctl(self->fd, cmds[c].cmd, b[i].addr), what);
		}
	}

	/* Nothing changed. */
	EXPECT_NAME(self->fd, ASHMEM_NAME_DEF);
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	if (self->mapped_once)
		EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
}

/* Input ioctls may read from read-only memory; output ioctls must fail. */
TEST_F(ashmem_state, read_only_pointers)
{
	struct ashmem_pin *pin;
	unsigned long id;
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
	EXPECT_NAME(self->fd, self->mapped_once ? ASHMEM_NAME_DEF : "ro-name");
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
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_NAME, hole - sizeof(ASHMEM_NAME_DEF) + 1));

	/* A pin argument whose len is in the hole. */
	pin = (struct ashmem_pin *)(hole - sizeof(pin->offset));
	pin->offset = 0;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_PIN, pin));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_UNPIN, pin));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_GET_PIN_STATUS, pin));

	/* A file id that would straddle the hole. */
	EXPECT_ERRNO(self->mapped_once ? EFAULT : EINVAL,
		     ioctl(self->fd, ASHMEM_GET_FILE_ID, hole - sizeof(long) / 2));

	/* A name whose NUL would be in the hole changes nothing... */
	memcpy(hole - 3, "abc", 3);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
	EXPECT_NAME(self->fd, ASHMEM_NAME_DEF);
	/* ...one that just fits is a name. */
	memcpy(hole - 3, "ab", 3);
	if (self->mapped_once) {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
	} else {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, hole - 3));
		EXPECT_NAME(self->fd, "ab");
	}
}

TEST_F(ashmem_state, every_ioctl_with_valid_arguments)
{
	static const unsigned long pin_cmds[] = {
		ASHMEM_UNPIN, ASHMEM_GET_PIN_STATUS, ASHMEM_PIN,
	};
	/* SET_PROT_MASK to @mask in turn: fails with @err, leaves @after. */
	static const struct {
		unsigned long mask;
		int err, after;
		bool lp64;
	} masks[] = {
		{ PROT_RWX | 0x8, EINVAL, PROT_RWX },	/* PROT_SEM */
		{ PROT_READ | 0x10, EINVAL, PROT_RWX },
		{ PROT_READ | PROT_GROWSDOWN, EINVAL, PROT_RWX },
		{ 0x80000000UL, EINVAL, PROT_RWX }, { ~0UL, EINVAL, PROT_RWX },
		{ (unsigned long)(1ULL << 32) | PROT_READ, EINVAL, PROT_RWX, true },
		{ PROT_RWX, 0, PROT_RWX }, { PROT_RW, 0, PROT_RW },
		{ PROT_RWX, EINVAL, PROT_RW }, { PROT_EXEC, EINVAL, PROT_RW },
		{ PROT_READ | 0x8, EINVAL, PROT_RW },
		{ PROT_READ, 0, PROT_READ }, { PROT_RW, EINVAL, PROT_READ },
		{ PROT_NONE, 0, PROT_NONE }, { PROT_READ, EINVAL, PROT_NONE },
	};
	char val[300];
	union {
		unsigned long id;
		unsigned char bytes[16];
	} out;
	struct maps_entry e;
	unsigned int i;
	long r;

	/* Getters and fdinfo; the default name has no fdinfo line. */
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ(PROT_RWX, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_NAME(self->fd, ASHMEM_NAME_DEF);
	EXPECT_EQ((long long)self->size, fdinfo_num(self->fd, "size"));
	EXPECT_EQ(-1, fdinfo_get(self->fd, "name", val, sizeof(val)));
	EXPECT_PAGE_COUNTS(self->fd, page_align(self->size) / pages(1), 0, 0);

	/* Name and size are fixed by the first mmap. */
	if (self->mapped_once) {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "n1"));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(4)));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(2)));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, self->size));
		EXPECT_ERRNO(EINVAL, set_size(self->fd, 0));
	} else {
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "n1"));
		ASSERT_EQ(0, fdinfo_get(self->fd, "name", val, sizeof(val)));
		EXPECT_STREQ("n1", val);
		EXPECT_EQ(0, set_size(self->fd, pages(2)));
		EXPECT_EQ((long)pages(2), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
		EXPECT_EQ(0, set_size(self->fd, self->size));
	}
	EXPECT_EQ((long)self->size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_NAME(self->fd, self->mapped_once ? ASHMEM_NAME_DEF : "n1");

	/* The mask knows no other bits, and only shrinks, in every state. */
	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		if (masks[i].lp64 && !LP64)
			continue;
		errno = 0;
		EXPECT_EQ(masks[i].err ? -1 : 0, set_prot_mask(self->fd, masks[i].mask))
			TH_LOG("mask %#lx", masks[i].mask);
		EXPECT_EQ(masks[i].err, errno) TH_LOG("mask %#lx", masks[i].mask);
		EXPECT_EQ(masks[i].after, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	}

	/* Pin ioctls need the first mmap. */
	if (!self->mapped_once) {
		for (i = 0; i < ARRAY_SIZE(pin_cmds); i++) {
			EXPECT_ERRNO(EINVAL, pin_pages(self->fd, pin_cmds[i], 0, 1));
			EXPECT_ERRNO(EINVAL, pin_pages(self->fd, pin_cmds[i], 0, 0));
		}
	} else {
		EXPECT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
		EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 1));
		EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
		EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0, 0));
		EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
	}

	/* The file id: the backing file's inode, from the first mmap on. */
	memset(&out, FILL, sizeof(out));
	if (self->mapped_once) {
		ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &out.id));
		/* Only an unsigned long is written, 4 bytes in a 32-bit process. */
		EXPECT_TRUE(all_bytes(out.bytes + sizeof(out.id), FILL,
				      sizeof(out) - sizeof(out.id)));
		EXPECT_EQ((long long)out.id, fdinfo_num(self->fd, "inode"));
		if (self->map) {
			ASSERT_EQ(0, maps_find(self->map, &e));
			EXPECT_EQ(e.inode, out.id);
			EXPECT_STREQ("/dev/ashmem (deleted)", e.path);
		}
	} else {
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &out.id));
		EXPECT_TRUE(all_bytes(&out, FILL, sizeof(out)));
		EXPECT_EQ(-1, fdinfo_num(self->fd, "inode"));
	}

	r = xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, 0);
	if (geteuid() == 0) {
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
		if (geteuid() == 0)
			EXPECT_LE(0, xioctl(self->fd, ASHMEM_PURGE_ALL_CACHES, b[i].addr))
				TH_LOG("PURGE_ALL_CACHES(%s)", b[i].what);
	}
}

TEST_F(ashmem_state, unknown_ioctls_enotty)
{
	const unsigned long cmds[] = {
		_IO(__ASHMEMIOC, 0), _IO(__ASHMEMIOC, 12), _IO(__ASHMEMIOC, 0xff),
		_IOR(__ASHMEMIOC, 1, char[ASHMEM_NAME_LEN]),	/* SET_NAME, wrong way */
		_IOW(__ASHMEMIOC, 2, char[ASHMEM_NAME_LEN]),	/* GET_NAME, wrong way */
		_IO(__ASHMEMIOC, 1),
		_IO(__ASHMEMIOC, 7),				/* PIN without size */
		_IOW(__ASHMEMIOC, 9, struct ashmem_pin),	/* not Android's */
		_IOR(__ASHMEMIOC, 4, int), _IOWR(__ASHMEMIOC, 8, struct ashmem_pin),
		_IO(0x78, 4), _IO('W', 7), 0, 0xffffffffUL,
		/* The 32-bit numbers mean nothing to a 64-bit process: the last 3. */
		_IOW(__ASHMEMIOC, 3, uint32_t), _IOW(__ASHMEMIOC, 5, uint32_t),
		_IOR(__ASHMEMIOC, 11, uint32_t),
	};
	unsigned int i, n = ARRAY_SIZE(cmds) - (LP64 ? 0 : 3);
	char buf[ASHMEM_NAME_LEN], what[32];

	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "cmd %#lx", cmds[i]);
		memset(buf, FILL, sizeof(buf));
		EXPECT_ERRNO_AT(ENOTTY, xioctl(self->fd, cmds[i], (unsigned long)buf), what);
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf))) TH_LOG("%s wrote", what);
		EXPECT_ERRNO_AT(ENOTTY, xioctl(self->fd, cmds[i], 0), what);
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

	if (!self->size) {
		EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf)));
		for (i = 0; i < ARRAY_SIZE(whences); i++)
			EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, whences[i]));
		return;
	}
	if (!self->mapped_once) {
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, pread(self->fd, buf, sizeof(buf), 0));
		EXPECT_TRUE(all_bytes(buf, FILL, sizeof(buf)));
		for (i = 0; i < ARRAY_SIZE(whences); i++)
			EXPECT_ERRNO(EBADF, lseek(self->fd, 0, whences[i]));
		return;
	}
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
}

TEST_F(ashmem_state, mmap)
{
	char *p;

	if (!self->size) {
		EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(1), PROT_RW, MAP_SHARED, 0));
		EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(1), PROT_RW, MAP_PRIVATE, 0));
		return;
	}
	EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(5), PROT_RW, MAP_SHARED, 0));
	p = map_fd_checked(_metadata, self->fd, pages(4), PROT_RW, MAP_SHARED, 0);
	EXPECT_EQ(-1, touch_pages(p, 4, true));
	EXPECT_STREQ(self->mapped_once ? "data" : "", p);
	munmap(p, pages(4));
	p = map_fd_checked(_metadata, self->fd, pages(1), PROT_READ, MAP_SHARED, pages(3));
	munmap(p, pages(1));
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &(unsigned long){ 0 }));
}

/* SET_SIZE edges, on a new area */

FIXTURE(ashmem_size) {
	int fd;
};

/*
 * Sizes up to MAX_LFS_FILESIZE are valid; larger ones are not size_t in -m32.
 * A size is @size bytes plus @pages pages of the running kernel.
 */
FIXTURE_VARIANT(ashmem_size) {
	unsigned long long size;
	int pages;
};

FIXTURE_VARIANT_ADD(ashmem_size, zero) { .size = 0 };
FIXTURE_VARIANT_ADD(ashmem_size, one) { .size = 1 };
FIXTURE_VARIANT_ADD(ashmem_size, page_minus_one) { .pages = 1, .size = -1ULL };
FIXTURE_VARIANT_ADD(ashmem_size, page_plus_one) { .pages = 1, .size = 1 };
FIXTURE_VARIANT_ADD(ashmem_size, int_max_plus_one) { .size = 0x80000000ULL };
/* 2^32 - 1: SIZE_MAX in a 32-bit process, still fine. */
FIXTURE_VARIANT_ADD(ashmem_size, u32_max) { .size = 0xffffffffULL };
FIXTURE_VARIANT_ADD(ashmem_size, u32_max_plus_one) { .size = 0x100000000ULL };
FIXTURE_VARIANT_ADD(ashmem_size, max_lfs_filesize) { .size = 0x7fffffffffffffffULL };
FIXTURE_VARIANT_ADD(ashmem_size, max_lfs_filesize_plus_one) { .size = 0x8000000000000000ULL };
FIXTURE_VARIANT_ADD(ashmem_size, page_align_overflows) { .size = 0xfffffffffffff001ULL };
FIXTURE_VARIANT_ADD(ashmem_size, size_max) { .size = 0xffffffffffffffffULL };

FIXTURE_SETUP(ashmem_size)
{
	self->fd = open_area(_metadata, O_RDWR);
}

FIXTURE_TEARDOWN(ashmem_size)
{
	close(self->fd);
}

TEST_F(ashmem_size, set_size_then_use)
{
	const int flags = MAP_SHARED | MAP_NORESERVE;
	unsigned long long want = variant->size + variant->pages * (unsigned long long)pages(1);
	unsigned long long aligned, npages;
	size_t size = (size_t)want;
	off_t last;
	long got;
	char *p;

	if (size != want)
		SKIP(return, "not a size_t value in a 32-bit process");
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	if (want > 0x7fffffffffffffffULL) {
		EXPECT_ERRNO(EINVAL, set_size(self->fd, size));
		EXPECT_EQ((long)pages(1), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
		return;
	}
	ASSERT_EQ(0, set_size(self->fd, size));
	/*
	 * ioctl(2) returns an int, whatever the ABI: GET_SIZE gives the low
	 * 32 bits of the size, sign-extended, and those in
	 * 0xfffff001..0xffffffff come back as an error with their negation in
	 * errno (Android's ABI).  fdinfo has the whole size.
	 */
	errno = 0;
	got = xioctl(self->fd, ASHMEM_GET_SIZE, 0);
	if ((uint32_t)size >= 0xfffff001U) {
		EXPECT_EQ(-1, got);
		EXPECT_EQ((int)(0x100000000ULL - (uint32_t)size), errno);
	} else {
		EXPECT_EQ((long)(int32_t)size, got);
	}
	EXPECT_EQ((long long)want, fdinfo_num(self->fd, "size"));
	if (!size) {
		EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(1), PROT_RW, MAP_SHARED, 0));
		return;
	}

	aligned = (want + pages(1) - 1) & ~(unsigned long long)(pages(1) - 1);
	npages = aligned / pages(1);
	last = (off_t)(aligned - pages(1));
	/* The last page maps, one more does not; nothing is reserved. */
	p = map_fd_checked(_metadata, self->fd, pages(1), PROT_RW, flags, last);
	EXPECT_EQ(-1, touch_pages(p, 1, true));
	munmap(p, pages(1));
	EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(2), PROT_RW, flags, last));
	EXPECT_ERRNO(EINVAL, map_fd(self->fd, pages(1), PROT_RW, flags, (off_t)aligned));
	EXPECT_EQ((off_t)want, lseek(self->fd, 0, SEEK_END));
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(1)));

	/* Pin ranges: len 0 reaches the end, even past 4 GiB. */
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, 0, 0));
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, 0, 0));
	EXPECT_EQ((long long)npages, fdinfo_num(self->fd, "unpinned"));
	if (aligned < 0x100000000ULL)	/* the page past the end, in a u32 offset */
		EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_PIN, npages, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 1));
	if (geteuid() == 0) {
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

/*
 * PIN, UNPIN and GET_PIN_STATUS check their range alike: on a mapped area
 * of 4 pages + 1, each range is valid for all three or for none.
 */
FIXTURE(ashmem_pin_range) {
	int fd;
};

/*
 * An offset or a length is @..._pages pages of the running kernel plus
 * @..._bytes bytes, modulo 2^32: -1 page is the last page below 4 GiB.
 */
FIXTURE_VARIANT(ashmem_pin_range) {
	int off_pages, off_bytes, len_pages, len_bytes;
	bool valid;
};

FIXTURE_VARIANT_ADD(ashmem_pin_range, whole_len_0) { .valid = true };
FIXTURE_VARIANT_ADD(ashmem_pin_range, whole_exact) { .len_pages = 5, .valid = true };
FIXTURE_VARIANT_ADD(ashmem_pin_range, last_page) {
	.off_pages = 4, .len_pages = 1, .valid = true,
};

FIXTURE_VARIANT_ADD(ashmem_pin_range, last_page_len_0) { .off_pages = 4, .valid = true };
FIXTURE_VARIANT_ADD(ashmem_pin_range, end_len_0) { .off_pages = 5 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, past_end_len_0) { .off_pages = 6 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, one_page_past_end) { .len_pages = 6 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, crossing_end) { .off_pages = 4, .len_pages = 2 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, starting_at_end) { .off_pages = 5, .len_pages = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, unaligned_offset) { .off_bytes = 1, .len_pages = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, unaligned_offset_len_0) { .off_pages = 1, .off_bytes = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, unaligned_len) { .len_pages = 1, .len_bytes = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, len_1) { .len_bytes = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, unaligned_len_below_page) { .off_pages = 1, .len_bytes = 1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, offset_u32_max) { .off_bytes = -1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, len_u32_max) { .len_bytes = -1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, last_u32_page) { .off_pages = -1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, len_to_u32_end) { .len_pages = -1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, sum_overflows_u32) { .off_pages = -1, .len_pages = 2 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, sum_overflows_u32_2) { .off_pages = 2, .len_pages = -1 };
FIXTURE_VARIANT_ADD(ashmem_pin_range, both_u32_top) { .off_pages = -1, .len_pages = -1 };

static uint32_t pin_edge(int npages, int bytes)
{
	return (uint32_t)((long long)npages * (long long)pages(1) + bytes);
}

/* The area of the edge tests: 4 pages + 1 byte; -1 if skipped. */
static int edge_area(struct __test_metadata *_metadata)
{
	int fd = open_area(_metadata, O_RDWR);

	if (fd < 0)
		return -1;
	ASSERT_EQ(0, set_size(fd, pages(4) + 1));
	return fd;
}

FIXTURE_SETUP(ashmem_pin_range)
{
	self->fd = edge_area(_metadata);
	if (self->fd >= 0)
		map_fd_checked(_metadata, self->fd, pages(5), PROT_RW, MAP_SHARED, 0);
}

FIXTURE_TEARDOWN(ashmem_pin_range)
{
	close(self->fd);
}

TEST_F(ashmem_pin_range, pin_unpin_status)
{
	uint32_t off = pin_edge(variant->off_pages, variant->off_bytes);
	uint32_t len = pin_edge(variant->len_pages, variant->len_bytes);
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
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, off, len));
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, off, len));
	EXPECT_PAGE_COUNTS(self->fd, 5 - covered, covered, 0);
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_op(self->fd, ASHMEM_PIN, off, len));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, off, len));
	EXPECT_PAGE_COUNTS(self->fd, 5, 0, 0);
}

/* mmap */

FIXTURE(ashmem_mmap_prot) {
	int fd;
};

/* mmap() with @prot and @flags of an area whose prot mask is @mask. */
FIXTURE_VARIANT(ashmem_mmap_prot) {
	int mask, prot, flags, err;
};

#define PROT_RX		(PROT_READ | PROT_EXEC)

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_r_shared) { PROT_READ, PROT_READ, MAP_SHARED, 0 };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_rw_shared) { PROT_READ, PROT_RW, MAP_SHARED, EPERM };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, r_mask_rw_private) { PROT_READ, PROT_RW, MAP_PRIVATE, EPERM };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rw_mask_rx_shared) { PROT_RW, PROT_RX, MAP_SHARED, EPERM };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, w_mask_r_shared) { PROT_WRITE, PROT_READ, MAP_SHARED, EPERM };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rx_mask_w_shared) { PROT_RX, PROT_WRITE, MAP_SHARED, EPERM };
FIXTURE_VARIANT_ADD(ashmem_mmap_prot, empty_mask_none_shared) { PROT_NONE, PROT_NONE, MAP_SHARED };

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, empty_mask_r_private) {
	PROT_NONE, PROT_READ, MAP_PRIVATE, EPERM,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_prot, rwx_mask_rwx_shared) { PROT_RWX, PROT_RWX, MAP_SHARED, 0 };

FIXTURE_SETUP(ashmem_mmap_prot)
{
	self->fd = open_area(_metadata, O_RDWR);
	if (self->fd >= 0)
		ASSERT_EQ(0, set_size(self->fd, pages(1)));
}

FIXTURE_TEARDOWN(ashmem_mmap_prot)
{
	close(self->fd);
}

TEST_F(ashmem_mmap_prot, mmap_checks_prot_mask)
{
	void *p;

	if ((variant->prot & PROT_EXEC) && !variant->err && dev_noexec())
		SKIP(return, ASHMEM_DEV " is on a noexec mount");
	ASSERT_EQ(0, set_prot_mask(self->fd, variant->mask));
	if (variant->err) {
		EXPECT_ERRNO(variant->err, map_fd(self->fd, pages(1), variant->prot,
						  variant->flags, 0));
		return;
	}
	p = map_fd(self->fd, pages(1), variant->prot, variant->flags, 0);
	EXPECT_NE((uintptr_t)MAP_FAILED, (uintptr_t)p);
}

/* mmap edges, shared and private, on an area of 4 pages + 1 */

FIXTURE(ashmem_mmap_edge) {
	int fd;
};

/* A length or an offset is @..._pages pages plus @..._bytes bytes. */
FIXTURE_VARIANT(ashmem_mmap_edge) {
	int len_pages, len_bytes;
	long long off_pages;
	unsigned long long off_bytes;
	int err;
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, whole) { .len_pages = 5 };
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, last_page) { .len_pages = 1, .off_pages = 4 };
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, unaligned_length_rounds_up) {
	.len_pages = 1, .len_bytes = 1,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, length_zero) { .err = EINVAL };
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, one_page_too_long) { .len_pages = 6, .err = EINVAL };
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, crossing_end) {
	.len_pages = 2, .off_pages = 4, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, at_end) { .len_pages = 1, .off_pages = 5, .err = EINVAL };
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, unaligned_offset) {
	.len_pages = 1, .off_bytes = 1, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(ashmem_mmap_edge, offset_past_4g) {
	.len_pages = 1, .off_bytes = 0x100000000ULL, .err = EINVAL,
};

/* The last page below 2^63. */
FIXTURE_VARIANT_ADD(ashmem_mmap_edge, offset_huge) {
	.len_pages = 1, .off_pages = -1, .off_bytes = 0x8000000000000000ULL, .err = EINVAL,
};

FIXTURE_SETUP(ashmem_mmap_edge)
{
	self->fd = edge_area(_metadata);
}

FIXTURE_TEARDOWN(ashmem_mmap_edge)
{
	close(self->fd);
}

TEST_F(ashmem_mmap_edge, shared_and_private)
{
	static const int types[] = { MAP_PRIVATE, MAP_SHARED };
	size_t len = pages(variant->len_pages) + variant->len_bytes;
	off_t off = (off_t)(variant->off_bytes +
			    (unsigned long long)variant->off_pages * pages(1));
	unsigned long id;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		char *p;

		if (variant->err) {
			EXPECT_ERRNO(variant->err, map_fd(self->fd, len, PROT_RW, types[i], off));
			continue;
		}
		p = map_fd_checked(_metadata, self->fd, len, PROT_RW, types[i], off);
		EXPECT_EQ(-1, touch_pages(p, page_align(len) / pages(1), true));
		munmap(p, len);
	}
	/* A refused mmap does not create the backing file. */
	if (variant->err)
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	else
		EXPECT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
}

/*
 * The first ashmem checked the prot mask in ->mmap but left VM_MAYWRITE
 * and VM_MAYEXEC set, so mprotect() widened a read-only mapping at will.
 */
TEST_F(ashmem, mprotect_stays_within_the_prot_mask)
{
	static const int types[] = { MAP_SHARED, MAP_PRIVATE };
	struct maps_entry e;
	unsigned int i;
	char *p;
	int fd2;

	ASSERT_EQ(0, set_size(self->fd, pages(2)));
	ASSERT_EQ(0, set_prot_mask(self->fd, PROT_READ));
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		const char *what = i ? "MAP_PRIVATE" : "MAP_SHARED";

		EXPECT_ERRNO(EPERM, map_fd(self->fd, pages(2), PROT_RW, types[i], 0));
		p = map_fd_checked(_metadata, self->fd, pages(2), PROT_READ, types[i], 0);
		EXPECT_ERRNO_AT(EACCES, mprotect(p, pages(2), PROT_RW), what);
		EXPECT_ERRNO_AT(EACCES, mprotect(p + pages(1), pages(1), PROT_WRITE), what);
		EXPECT_ERRNO_AT(EACCES, mprotect(p, pages(1), PROT_READ | PROT_EXEC), what);
		/* Narrowing and back within the mask is fine. */
		EXPECT_EQ(0, mprotect(p, pages(2), PROT_NONE));
		EXPECT_EQ(0, mprotect(p, pages(2), PROT_READ));
		ASSERT_EQ(0, maps_find(p, &e));
		EXPECT_TRUE(!strchr(e.perms, 'w')) TH_LOG("%s: %s", what, e.perms);
		EXPECT_TRUE(!strchr(e.perms, 'x')) TH_LOG("%s: %s", what, e.perms);
		EXPECT_EQ(-1, touch_pages(p, 2, false));
		munmap(p, pages(2));
	}

	/* Widening within the mask is fine too. */
	fd2 = open_area(_metadata, O_RDWR);
	ASSERT_EQ(0, set_prot_mask(fd2, PROT_RW));
	p = area_map_checked(_metadata, fd2, pages(1), PROT_READ);
	ASSERT_EQ(0, mprotect(p, pages(1), PROT_RW));
	p[0] = 'w';
	EXPECT_EQ('w', p[0]);
	close(fd2);
}

TEST_F(ashmem, shared_mappings_share_memory)
{
	char *a, *b, *c;

	a = area_map_checked(_metadata, self->fd, pages(2), PROT_RW);
	b = map_fd_checked(_metadata, self->fd, pages(2), PROT_RW, MAP_SHARED, 0);
	c = map_fd_checked(_metadata, self->fd, pages(1), PROT_READ, MAP_SHARED, pages(1));
	snprintf(a, pages(1), "%s", "via a");
	snprintf(b + pages(1), pages(1), "%s", "via b");
	EXPECT_STREQ("via a", b);
	EXPECT_STREQ("via b", a + pages(1));
	EXPECT_STREQ("via b", c);
}

TEST_F(ashmem, shared_across_fork)
{
	char *p;
	pid_t pid;

	p = area_map_checked(_metadata, self->fd, pages(2), PROT_RW);
	snprintf(p, pages(1), "%s", "parent");
	pid = fork_checked(_metadata);
	if (pid == 0) {
		char *q = map_fd(self->fd, pages(1), PROT_RW, MAP_SHARED, pages(1));

		EXPECT_STREQ("parent", p);
		snprintf(p, pages(1), "%s", "child");
		if (q != MAP_FAILED)
			snprintf(q, pages(1), "%s", "child's own mapping");
		_exit(q == MAP_FAILED);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_STREQ("child", p);
	EXPECT_STREQ("child's own mapping", p + pages(1));
}

TEST_F(ashmem, shared_over_scm_rights)
{
	char *p, byte = 0;
	int sv[2];
	pid_t pid;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "passed"));
	p = area_map_checked(_metadata, self->fd, pages(2), PROT_RW);
	snprintf(p, pages(1), "%s", "from the sender");
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork_checked(_metadata);
	if (pid == 0) {
		char *q;
		int fd;

		/* Use only what arrives over the socket. */
		munmap(p, pages(2));
		close(self->fd);
		close(sv[0]);
		fd = recv_fd(sv[1], &byte, 1);
		ASSERT_LE(0, fd);
		EXPECT_EQ(pages(2), ioctl(fd, ASHMEM_GET_SIZE));
		EXPECT_NAME(fd, "passed");
		q = map_fd_checked(_metadata, fd, pages(2), PROT_RW, MAP_SHARED, 0);
		EXPECT_STREQ("from the sender", q);
		snprintf(q + pages(1), pages(1), "%s", "from the receiver");
		_exit(0);
	}
	close(sv[1]);
	ASSERT_EQ(0, send_fd(sv[0], self->fd, &byte, 1));
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_STREQ("from the receiver", p + pages(1));
	close(sv[0]);
}

/*
 * MAP_PRIVATE gives zeroed anonymous memory, as on Android, whose mapping
 * once got the backing file's vm_ops without the file: SIGBUS.
 */
TEST_F(ashmem, private_mapping_is_anonymous_memory)
{
	size_t size = pages(3) + 1;
	char *priv, *shared, *priv2, buf[16];

	ASSERT_EQ(0, set_size(self->fd, size));
	priv = map_fd_checked(_metadata, self->fd, pages(4), PROT_RW, MAP_PRIVATE, 0);
	/* Like a shared one, the first private mmap fixes size and name. */
	EXPECT_ERRNO(EINVAL, set_size(self->fd, pages(2)));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_SET_NAME, "late"));
	EXPECT_EQ(-1, touch_pages(priv, 4, false));
	EXPECT_TRUE(all_bytes(priv, 0, pages(4)));
	EXPECT_EQ(-1, touch_pages(priv, 4, true));
	memset(priv, 'p', pages(4));

	shared = map_fd_checked(_metadata, self->fd, pages(4), PROT_RW, MAP_SHARED, 0);
	EXPECT_EQ(-1, touch_pages(shared, 4, true));
	EXPECT_TRUE(all_bytes(shared, 0, pages(4)));
	memset(shared, 's', size);

	priv2 = map_fd_checked(_metadata, self->fd, pages(2), PROT_RW, MAP_PRIVATE, pages(2));
	EXPECT_EQ(-1, touch_pages(priv2, 2, true));
	EXPECT_TRUE(all_bytes(priv2, 0, pages(2)));
	EXPECT_TRUE(all_bytes(priv, 'p', pages(4)));
	EXPECT_TRUE(all_bytes(shared, 's', size));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 's', sizeof(buf)));
}

TEST_F(ashmem, mapping_outlives_the_fd)
{
	struct maps_entry e;
	char *p;

	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "orphan"));
	p = area_map_checked(_metadata, self->fd, pages(1), PROT_RW);
	snprintf(p, pages(1), "%s", "still here");
	close(self->fd);
	self->fd = -1;
	EXPECT_STREQ("still here", p);
	snprintf(p, pages(1), "%s", "written after close");
	EXPECT_STREQ("written after close", p);
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("/dev/ashmem/orphan (deleted)", e.path);
}

/* An area mapped read-only, its pages filled by fill_pages(). */
static char *read_only_area(struct __test_metadata *_metadata, int fd)
{
	char *p = area_map_checked(_metadata, fd, pages(4), PROT_RW);

	fill_pages(p, 4);
	munmap(p, pages(4));
	ASSERT_EQ(0, set_prot_mask(fd, PROT_READ));
	p = map_fd_checked(_metadata, fd, pages(4), PROT_READ, MAP_SHARED, 0);
	return p;
}

/*
 * remap_file_pages() maps the vma's file again, with the vma's protection
 * and MAP_FIXED: with a plain shmem file, a mapping the mask forbids.  A
 * failure leaves a hole there, so look before touching.
 */
TEST_F(ashmem, remap_file_pages_cannot_widen)
{
	char *p = read_only_area(_metadata, self->fd);
	struct maps_entry e;
	size_t i;
	int r;

	r = remap_file_pages(p, pages(1), 0, 2, 0);
	if (r)
		TH_LOG("remap_file_pages() refused: %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		char *pg = p + pages(i);

		if (maps_find(pg, &e)) {
			EXPECT_EQ(0, i);
			continue;
		}
		EXPECT_TRUE(!strchr(e.perms, 'w')) TH_LOG("page %zu: %s", i, e.perms);
		EXPECT_ERRNO_AT(EACCES, mprotect(pg, pages(1), PROT_RW), "mprotect");
		EXPECT_EQ(-1, touch_pages(pg, 1, false));
		EXPECT_EQ(i == 0 && r == 0 ? page_byte(2) : page_byte(i), *pg);
	}
}

/*
 * Operations on a shared mapping, of an area and of a memfd, which stands
 * for Android's plain shmem file (Documentation/userspace-api/ashmem.rst).
 */
FIXTURE(mapping) {
	int fd;
	char *p;
};

FIXTURE_VARIANT(mapping) {
	bool memfd;
};

FIXTURE_VARIANT_ADD(mapping, ashmem) { .memfd = false };
FIXTURE_VARIANT_ADD(mapping, memfd) { .memfd = true };

#define MAPPING_PAGES	4

FIXTURE_SETUP(mapping)
{
	self->p = MAP_FAILED;
	if (variant->memfd) {
		self->fd = memfd_create("mapping", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		ASSERT_LE(0, self->fd);
		ASSERT_EQ(0, ftruncate(self->fd, pages(MAPPING_PAGES)));
		self->p = map_fd(self->fd, pages(MAPPING_PAGES), PROT_RW, MAP_SHARED, 0);
	} else {
		self->fd = open_area(_metadata, O_RDWR);
		self->p = area_map(self->fd, pages(MAPPING_PAGES), PROT_RW, MAP_SHARED);
	}
	ASSERT_MAPPED(self->p);
	fill_pages(self->p, MAPPING_PAGES);
}

FIXTURE_TEARDOWN(mapping)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, pages(MAPPING_PAGES));
	close(self->fd);
}

/* Pages [@first, @first + @n) of the fixture's file, read through a new mapping. */
static bool pages_hold(int fd, size_t first, size_t n, bool zero)
{
	char *q = map_fd(fd, pages(MAPPING_PAGES), PROT_READ, MAP_SHARED, 0);
	bool ok = q != MAP_FAILED;
	size_t i;

	for (i = first; ok && i < first + n; i++)
		ok = all_bytes(q + pages(i), zero ? 0 : page_byte(i), pages(1));
	if (q != MAP_FAILED)
		munmap(q, pages(MAPPING_PAGES));
	return ok;
}

TEST_F(mapping, madv_remove_punches_a_hole)
{
	char *ro;

	ASSERT_EQ(0, madvise(self->p + pages(1), pages(2), MADV_REMOVE));
	EXPECT_TRUE(pages_hold(self->fd, 0, 1, false));
	EXPECT_TRUE(pages_hold(self->fd, 1, 2, true));
	EXPECT_TRUE(pages_hold(self->fd, 3, 1, false));
	EXPECT_TRUE(all_bytes(self->p + pages(1), 0, pages(2)));
	if (!variant->memfd)
		EXPECT_PAGE_COUNTS(self->fd, MAPPING_PAGES, 0, 0);

	/* A read-only mapping that could be made writable punches too... */
	ro = map_fd_checked(_metadata, self->fd, pages(1), PROT_READ, MAP_SHARED, 0);
	EXPECT_EQ(0, madvise(ro, pages(1), MADV_REMOVE));
	EXPECT_TRUE(all_bytes(ro, 0, pages(1)));
	munmap(ro, pages(1));

	/* ...one that never can (no PROT_WRITE in the mask, a write seal) not. */
	ASSERT_EQ(0, variant->memfd ?
		  fcntl(self->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) :
		  set_prot_mask(self->fd, PROT_READ));
	ro = map_fd_checked(_metadata, self->fd, pages(MAPPING_PAGES), PROT_READ, MAP_SHARED, 0);
	EXPECT_ERRNO(EACCES, madvise(ro + pages(3), pages(1), MADV_REMOVE));
	EXPECT_TRUE(all_bytes(ro + pages(3), page_byte(3), pages(1)));
	munmap(ro, pages(MAPPING_PAGES));
}

/*
 * MADV_REMOVE leaves the pin state alone, as on Android: the pages read as
 * zeros but PIN says ASHMEM_NOT_PURGED, and a punched unpinned range is
 * purged later as any other.
 */
TEST_F(mapping, madv_remove_keeps_pin_state)
{
	if (variant->memfd)
		SKIP(return, "no pin state on a memfd");

	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 2));
	ASSERT_EQ(0, madvise(self->p + pages(1), pages(2), MADV_REMOVE));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 1, 2));
	EXPECT_PAGE_COUNTS(self->fd, 2, 2, 0);
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 2));
	EXPECT_TRUE(pages_hold(self->fd, 1, 2, true));

	if (geteuid() != 0)
		return;
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 2));
	ASSERT_EQ(0, madvise(self->p, pages(1), MADV_REMOVE));
	EXPECT_EQ(2, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 2, 0, 2);
	/* A purged range punched again stays purged. */
	EXPECT_EQ(0, madvise(self->p, pages(2), MADV_REMOVE));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 2));
	EXPECT_PAGE_COUNTS(self->fd, MAPPING_PAGES, 0, 0);
	EXPECT_TRUE(pages_hold(self->fd, 0, 3, true));
	EXPECT_TRUE(pages_hold(self->fd, 3, 1, false));
}

/* Advice that drops, reads ahead or ages the pages loses no data. */
TEST_F(mapping, madvise_hints_keep_the_data)
{
	static const struct {
		int advice;
		const char *name;
	} hints[] = {
		{ MADV_DONTNEED, "MADV_DONTNEED" }, { MADV_WILLNEED, "MADV_WILLNEED" },
		{ MADV_COLD, "MADV_COLD" }, { MADV_PAGEOUT, "MADV_PAGEOUT" },
		{ MADV_NORMAL, "MADV_NORMAL" }, { MADV_RANDOM, "MADV_RANDOM" },
		{ MADV_SEQUENTIAL, "MADV_SEQUENTIAL" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hints); i++) {
		EXPECT_EQ(0, madvise(self->p, pages(MAPPING_PAGES), hints[i].advice))
			TH_LOG("%s: %s", hints[i].name, strerror(errno));
		EXPECT_TRUE(pages_hold(self->fd, 0, MAPPING_PAGES, false))
			TH_LOG("%s lost data", hints[i].name);
	}
	/* MADV_FREE is for private anonymous memory. */
	EXPECT_ERRNO(EINVAL, madvise(self->p, pages(MAPPING_PAGES), MADV_FREE));
	EXPECT_TRUE(pages_hold(self->fd, 0, MAPPING_PAGES, false));
	if (!variant->memfd)
		EXPECT_PAGE_COUNTS(self->fd, MAPPING_PAGES, 0, 0);
}

/* KSM leaves shared mappings alone; without KSM the advice is unknown. */
TEST_F(mapping, madv_mergeable)
{
	int err = access("/sys/kernel/mm/ksm", F_OK) ? EINVAL : 0;

	if (err) {
		EXPECT_ERRNO(err, madvise(self->p, pages(1), MADV_MERGEABLE));
	} else {
		EXPECT_EQ(0, madvise(self->p, pages(1), MADV_MERGEABLE));
		EXPECT_EQ(0, madvise(self->p, pages(1), MADV_UNMERGEABLE));
	}
	EXPECT_TRUE(pages_hold(self->fd, 0, MAPPING_PAGES, false));
}

/* MADV_DONTFORK keeps the mapping out of a child; WIPEONFORK is private-only. */
TEST_F(mapping, madv_dontfork_and_wipeonfork)
{
	pid_t pid;

	EXPECT_ERRNO(EINVAL, madvise(self->p, pages(1), MADV_WIPEONFORK));
	ASSERT_EQ(0, madvise(self->p, pages(1), MADV_DONTFORK));
	pid = fork_checked(_metadata);
	if (pid == 0)
		_exit(touch_pages(self->p, 1, false) == 0 &&
		      touch_pages(self->p + pages(1), 1, false) == -1 ? 0 : 1);
	EXPECT_EQ(0, wait_child(pid)) TH_LOG("the child saw the DONTFORK page");
	ASSERT_EQ(0, madvise(self->p, pages(1), MADV_DOFORK));
	pid = fork_checked(_metadata);
	if (pid == 0)
		_exit(all_bytes(self->p, page_byte(0), pages(1)) ? 0 : 1);
	EXPECT_EQ(0, wait_child(pid));
}

TEST_F(mapping, msync_and_mlock)
{
	EXPECT_EQ(0, msync(self->p, pages(MAPPING_PAGES), MS_SYNC));
	EXPECT_EQ(0, msync(self->p, pages(MAPPING_PAGES), MS_ASYNC));
	EXPECT_EQ(0, msync(self->p, pages(1), MS_INVALIDATE));
	EXPECT_ERRNO(EINVAL, msync(self->p, pages(1), MS_SYNC | MS_ASYNC));
	EXPECT_EQ(0, mlock(self->p, pages(MAPPING_PAGES)));
	EXPECT_EQ(0, munlock(self->p, pages(MAPPING_PAGES)));
	EXPECT_TRUE(pages_hold(self->fd, 0, MAPPING_PAGES, false));
}

/*
 * mremap() shrinks, grows (past the end: SIGBUS), moves, and with an old
 * size of 0 maps the same pages again.
 */
TEST_F(mapping, mremap_shrink_grow_move)
{
	char *q, *dst;

	q = mremap(self->p, pages(MAPPING_PAGES), pages(2), 0);
	ASSERT_EQ((uintptr_t)self->p, (uintptr_t)q);
	q = mremap(q, pages(2), pages(MAPPING_PAGES + 2), MREMAP_MAYMOVE);
	ASSERT_MAPPED(q);
	self->p = q;
	EXPECT_TRUE(all_bytes(q + pages(3), page_byte(3), pages(1)));
	EXPECT_EQ(MAPPING_PAGES, touch_pages(q, MAPPING_PAGES + 2, true));
	q = mremap(self->p, pages(MAPPING_PAGES + 2), pages(MAPPING_PAGES), 0);
	ASSERT_EQ((uintptr_t)self->p, (uintptr_t)q);

	dst = mmap(NULL, pages(MAPPING_PAGES), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(dst);
	q = mremap(self->p, pages(MAPPING_PAGES), pages(MAPPING_PAGES),
		   MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ((uintptr_t)dst, (uintptr_t)q);
	EXPECT_EQ(0, touch_pages(self->p, 1, false));
	self->p = q;
	EXPECT_TRUE(all_bytes(q, page_byte(0), pages(1)));

	q = mremap(self->p, 0, pages(MAPPING_PAGES), MREMAP_MAYMOVE);
	ASSERT_MAPPED(q);
	EXPECT_NE((uintptr_t)self->p, (uintptr_t)q);
	memset(q, 'm', pages(1));
	EXPECT_TRUE(all_bytes(self->p, 'm', pages(1)));
	munmap(q, pages(MAPPING_PAGES));
}

/* MAP_FIXED replaces part of a mapping, and maps the file over other memory. */
TEST_F(mapping, map_fixed_over_and_under)
{
	char *q, *anon;

	q = mmap(self->p + pages(1), pages(1), PROT_RW,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ((uintptr_t)self->p + pages(1), (uintptr_t)q);
	EXPECT_TRUE(all_bytes(q, 0, pages(1)));
	memset(q, 'a', pages(1));
	EXPECT_TRUE(pages_hold(self->fd, 0, MAPPING_PAGES, false));

	anon = mmap(NULL, pages(2), PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(anon);
	q = mmap(anon, pages(2), PROT_RW, MAP_SHARED | MAP_FIXED, self->fd, pages(2));
	ASSERT_EQ((uintptr_t)anon, (uintptr_t)q);
	EXPECT_TRUE(all_bytes(q, page_byte(2), pages(1)));
	memset(q + pages(1), 'f', pages(1));
	EXPECT_TRUE(all_bytes(self->p + pages(3), 'f', pages(1)));
	munmap(q, pages(2));
}

#define THP_SHMEM	"/sys/kernel/mm/transparent_hugepage/shmem_enabled"
/* A PMD maps a page of 8-byte entries: 2 MiB with 4K pages, 32 MiB with 16K. */
#define HUGE		(pages(1) * (pages(1) / 8))

/* The number after "@key:" in the smaps entry of the mapping at @addr, or -1. */
static long smaps_kb(const void *addr, const char *key)
{
	char val[64];

	return smaps_get(addr, key, val, sizeof(val)) ? -1 : strtol(val, NULL, 10);
}

/*
 * Every count in pages here is in sysconf(_SC_PAGESIZE) pages: that must be
 * the kernel's page (4K, 16K or 64K on arm64), and an area of 2 pages + 1
 * byte must count 3 of them.  ASHMEM_PAGE_SIZE in the environment is the
 * page size the kernel was built with, which the test VM's lanes pass.
 */
TEST_F(ashmem, page_size_is_the_kernel_page)
{
	const char *expect = getenv("ASHMEM_PAGE_SIZE");
	char *p;

	ASSERT_LE(0, self->fd);
	TH_LOG("page size %zu", pages(1));
	if (expect)
		EXPECT_EQ(strtoul(expect, NULL, 0), pages(1))
			TH_LOG("ASHMEM_PAGE_SIZE=%s in the environment", expect);
	EXPECT_EQ(0, pages(1) & (pages(1) - 1));
	EXPECT_LE(4096, pages(1));
	p = area_map(self->fd, pages(2) + 1, PROT_RW, MAP_SHARED);
	ASSERT_MAPPED(p);
	EXPECT_EQ((long)(pages(1) / 1024), smaps_kb(p, "KernelPageSize"));
	EXPECT_EQ(-1, touch_pages(p, 3, true));
	EXPECT_PAGE_COUNTS(self->fd, 3, 0, 0);
	EXPECT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, pages(2), pages(1)));
	EXPECT_PAGE_COUNTS(self->fd, 2, 1, 0);
	munmap(p, pages(3));
}

/*
 * Distribution kernels can back shmem with huge pages: a MADV_REMOVE or a
 * purge of part of a huge page splits it, and must leave the rest intact.
 */
TEST_F(ashmem, huge_pages_punched_in_part)
{
	size_t npages = 2 * HUGE / pages(1), i, hole = HUGE / pages(1) + 16;
	long huge_kb;
	char old[64], *mode, *res, *p;

	if (!root_and_ashmem(_metadata))
		return;
	if (read_small(THP_SHMEM, old, sizeof(old)))
		SKIP(return, "no %s (CONFIG_TRANSPARENT_HUGEPAGE)", THP_SHMEM);
	mode = strchr(old, '[');
	ASSERT_TRUE(!!mode);
	mode[strcspn(mode, "]")] = '\0';
	ASSERT_EQ(0, write_str(THP_SHMEM, "advise"));

	/* A mapping aligned to a huge page, asking for huge pages. */
	res = mmap(NULL, 3 * HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(res);
	p = (char *)(((uintptr_t)res + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	ASSERT_EQ(0, set_size(self->fd, 2 * HUGE));
	ASSERT_EQ((uintptr_t)p, (uintptr_t)mmap(p, 2 * HUGE, PROT_RW, MAP_SHARED | MAP_FIXED,
						self->fd, 0));
	ASSERT_EQ(0, madvise(p, 2 * HUGE, MADV_HUGEPAGE));
	/*
	 * A huge page is a best effort: after earlier tests fragmented memory,
	 * or had compaction deferred, shmem falls back to small pages.  Compact
	 * all memory and try again, a few times, before calling it a failure.
	 */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, madvise(p, 2 * HUGE, MADV_REMOVE));
		write_file("/proc/sys/vm/compact_memory", "1");
		fill_pages(p, npages);
		if (smaps_kb(p, "ShmemPmdMapped") == 2 * HUGE / 1024)
			break;
	}
	write_file(THP_SHMEM, mode + 1);
	huge_kb = smaps_kb(p, "ShmemPmdMapped");
	/* Without two huge pages there is no huge page to punch in part. */
	if (huge_kb != (long)(2 * HUGE / 1024))
		SKIP(return, "%ld of %zu kB in huge pages after compaction",
		     huge_kb, 2 * HUGE / 1024);

	ASSERT_EQ(0, madvise(p + pages(5), pages(1), MADV_REMOVE));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, hole, 16));
	EXPECT_EQ(16, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, hole, 16));
	EXPECT_PAGE_COUNTS(self->fd, npages, 0, 0);
	for (i = 0; i < npages; i++) {
		bool zero = i == 5 || (i >= hole && i < hole + 16);
		bool ok = all_bytes(p + pages(i), zero ? 0 : page_byte(i), pages(1));

		EXPECT_TRUE(ok) TH_LOG("page %zu", i);
		if (!ok)
			break;
	}
	munmap(res, 3 * HUGE);
}

/* A private mapping is anonymous memory: a child gets a copy, not a share. */
TEST_F(ashmem, fork_with_private_mapping)
{
	char *priv, *shared;
	pid_t pid;

	shared = area_map_checked(_metadata, self->fd, pages(2), PROT_RW);
	memset(shared, 's', pages(2));
	priv = map_fd_checked(_metadata, self->fd, pages(2), PROT_RW, MAP_PRIVATE, 0);
	memset(priv, 'p', pages(1));
	pid = fork_checked(_metadata);
	if (pid == 0) {
		bool ok = all_bytes(priv, 'p', pages(1)) && all_bytes(priv + pages(1), 0, pages(1));

		memset(priv, 'c', pages(2));
		_exit(ok ? 0 : 1);
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_TRUE(all_bytes(priv, 'p', pages(1)));
	EXPECT_TRUE(all_bytes(priv + pages(1), 0, pages(1)));
	EXPECT_TRUE(all_bytes(shared, 's', pages(2)));
}

/* A character device, as on Android: no splice_read, fallocate, ftruncate. */
TEST_F(ashmem, descriptor_is_not_a_file)
{
	loff_t off = 0;
	int pipefd[2];
	char *p;

	p = area_map_checked(_metadata, self->fd, pages(2), PROT_RW);
	fill_pages(p, 2);
	ASSERT_EQ(0, pipe(pipefd));
	EXPECT_ERRNO(EINVAL, sendfile(pipefd[1], self->fd, &off, pages(1)));
	EXPECT_ERRNO(EINVAL, splice(self->fd, &off, pipefd[1], NULL, pages(1), 0));
	EXPECT_ERRNO(ENODEV, fallocate(self->fd, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 0, pages(1)));
	EXPECT_ERRNO(ENODEV, fallocate(self->fd, 0, 0, pages(4)));
	EXPECT_ERRNO(EINVAL, ftruncate(self->fd, pages(1)));
	EXPECT_EQ((off_t)pages(2), lseek(self->fd, 0, SEEK_END));
	EXPECT_TRUE(all_bytes(p + pages(1), page_byte(1), pages(1)));
	close(pipefd[0]);
	close(pipefd[1]);
}

/*
 * /proc/PID/map_files/<range> gives CAP_SYS_ADMIN the backing file: read
 * only.  No mapping (a private one could be mprotect()ed past the mask),
 * write, hole or truncation (SIGBUS for every mapper), nor attributes,
 * inode flags, ACLs or xattrs that could lift that.  Android allows it all.
 */
TEST_F(ashmem, map_files_cannot_change_the_area)
{
	int flags = 0, mflags, memfd, mfd, xattr_err;
	char path[128], buf[16], *p;
	struct maps_entry e;
	size_t i;

	if (!root_and_ashmem(_metadata))
		return;
	p = read_only_area(_metadata, self->fd);
	ASSERT_EQ(0, maps_find(p, &e));
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", e.start, e.end);
	if (access(path, F_OK))
		SKIP(return, "no %s (CONFIG_CHECKPOINT_RESTORE)", path);

	/* What a memfd, Android's backing file, answers: flags with TMPFS_XATTR. */
	memfd = memfd_create("flags", MFD_CLOEXEC);
	ASSERT_LE(0, memfd);
	xattr_err = ioctl(memfd, FS_IOC_GETFLAGS, &mflags) ? errno : 0;
	if (!xattr_err)
		EXPECT_EQ(0, ioctl(memfd, FS_IOC_SETFLAGS, &mflags));
	close(memfd);

	EXPECT_ERRNO(EPERM, open(path, O_RDWR));
	EXPECT_ERRNO(EPERM, open(path, O_WRONLY));
	EXPECT_ERRNO(EPERM, open(path, O_RDONLY | O_TRUNC));
	EXPECT_ERRNO(EPERM, truncate(path, pages(1)));
	EXPECT_ERRNO(EPERM, chmod(path, 0600));
	EXPECT_ERRNO(EPERM, utimes(path, NULL));
	EXPECT_ERRNO(EPERM, chown(path, 1, 1));

	mfd = open(path, O_RDONLY);
	ASSERT_LE(0, mfd) TH_LOG("open(%s, O_RDONLY): %s", path, strerror(errno));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ(sizeof(buf), pread(mfd, buf, sizeof(buf), pages(1)));
	EXPECT_TRUE(all_bytes(buf, page_byte(1), sizeof(buf)));

	EXPECT_ERRNO(EPERM, map_fd(mfd, pages(1), PROT_READ, MAP_SHARED, 0));
	EXPECT_ERRNO(EPERM, map_fd(mfd, pages(1), PROT_RW, MAP_PRIVATE, 0));
	EXPECT_ERRNO(EPERM, map_fd(mfd, pages(1), PROT_READ | PROT_EXEC, MAP_PRIVATE, 0));
	EXPECT_ERRNO(EBADF, write(mfd, "w", 1));
	EXPECT_ERRNO(EBADF, pwrite(mfd, "written", 7, 0));
	EXPECT_ERRNO(EBADF, fallocate(mfd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, 0, pages(2)));
	EXPECT_ERRNO(EINVAL, ftruncate(mfd, pages(1)));
	EXPECT_ERRNO(EPERM, fchmod(mfd, 0666));
	EXPECT_ERRNO(EPERM, futimens(mfd, NULL));

	if (xattr_err) {
		EXPECT_ERRNO(xattr_err, ioctl(mfd, FS_IOC_GETFLAGS, &flags));
		EXPECT_ERRNO(xattr_err, ioctl(mfd, FS_IOC_SETFLAGS, &flags));
	} else {
		EXPECT_EQ(0, ioctl(mfd, FS_IOC_GETFLAGS, &flags));
		EXPECT_ERRNO(EPERM, ioctl(mfd, FS_IOC_SETFLAGS, &flags));
		flags |= FS_APPEND_FL;
		EXPECT_ERRNO(EPERM, ioctl(mfd, FS_IOC_SETFLAGS, &flags));
	}
	EXPECT_ERRNO(EOPNOTSUPP, fsetxattr(mfd, "user.ashmem", "x", 1, 0));
	EXPECT_ERRNO(EOPNOTSUPP, fsetxattr(mfd, "trusted.ashmem", "x", 1, 0));
	EXPECT_ERRNO(EOPNOTSUPP, fgetxattr(mfd, "user.ashmem", buf, sizeof(buf)));
	EXPECT_ERRNO(EOPNOTSUPP, setxattr(path, "user.ashmem", "x", 1, 0));
	EXPECT_ERRNO(EOPNOTSUPP, removexattr(path, "system.posix_acl_access"));
	EXPECT_EQ(0, flistxattr(mfd, buf, sizeof(buf)));
	/* Nothing above opened the way to writing, nor does a reopen. */
	EXPECT_ERRNO(EPERM, open(path, O_RDWR));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	EXPECT_ERRNO(EPERM, open(path, O_RDWR));
	close(mfd);

	EXPECT_EQ((off_t)pages(4), lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ(-1, touch_pages(p, 4, false));
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(all_bytes(p + pages(i), page_byte(i), pages(1)))
			TH_LOG("page %zu changed", i);
}

/* Descriptors opened O_RDONLY and O_WRONLY */

FIXTURE(ashmem_mode) {
	int fd;
};

FIXTURE_VARIANT(ashmem_mode) {
	int flags;
};

FIXTURE_VARIANT_ADD(ashmem_mode, rdonly) { .flags = O_RDONLY };
FIXTURE_VARIANT_ADD(ashmem_mode, wronly) { .flags = O_WRONLY };

FIXTURE_SETUP(ashmem_mode)
{
	self->fd = open_area(_metadata, variant->flags);
}

FIXTURE_TEARDOWN(ashmem_mode)
{
	close(self->fd);
}

/* The driver does not look at the open mode: every ioctl works. */
TEST_F(ashmem_mode, ioctls_work)
{
	unsigned long id;

	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_SET_NAME, "mode"));
	EXPECT_NAME(self->fd, "mode");
	EXPECT_EQ(0, set_size(self->fd, pages(2)));
	EXPECT_EQ((long)pages(2), xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ(0, set_prot_mask(self->fd, PROT_RW));
	EXPECT_EQ(PROT_RW, ioctl(self->fd, ASHMEM_GET_PROT_MASK));
	EXPECT_ERRNO(EINVAL, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO(__ASHMEMIOC, 12)));
	if (geteuid() == 0)
		EXPECT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
}

TEST_F(ashmem_mode, read_write_lseek)
{
	bool wronly = variant->flags == O_WRONLY;
	char buf[16];

	memset(buf, FILL, sizeof(buf));
	/* The VFS refuses before the driver sees anything. */
	if (wronly) {
		EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EINVAL, write(self->fd, "x", 1));
	} else {
		EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));
		EXPECT_ERRNO(EBADF, write(self->fd, "x", 1));
	}
	EXPECT_ERRNO(EINVAL, lseek(self->fd, 0, SEEK_SET));
	ASSERT_EQ(0, set_size(self->fd, pages(1)));
	EXPECT_ERRNO(EBADF, read(self->fd, buf, sizeof(buf)));
	EXPECT_ERRNO(EBADF, lseek(self->fd, 0, wronly ? SEEK_SET : SEEK_END));
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
		EXPECT_ERRNO(EACCES, map_fd(self->fd, pages(2), PROT_READ, MAP_SHARED, 0));
		EXPECT_ERRNO(EACCES, map_fd(self->fd, pages(2), PROT_RW, MAP_SHARED, 0));
		EXPECT_ERRNO(EACCES, map_fd(self->fd, pages(2), PROT_WRITE, MAP_PRIVATE, 0));
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
		return;
	}

	/* O_RDONLY: no writable shared mapping, and no backing file made. */
	EXPECT_ERRNO(EACCES, map_fd(self->fd, pages(2), PROT_RW, MAP_SHARED, 0));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));

	/* A read-only shared mapping maps the shared backing file. */
	p = map_fd_checked(_metadata, self->fd, pages(2), PROT_READ, MAP_SHARED, 0);
	ASSERT_EQ(0, ioctl(self->fd, ASHMEM_GET_FILE_ID, &id));
	ASSERT_EQ(0, maps_find(p, &e));
	EXPECT_STREQ("r--s", e.perms);
	EXPECT_EQ((unsigned long long)id, e.inode);
	EXPECT_STREQ("/dev/ashmem/mode (deleted)", e.path);
	EXPECT_ERRNO(EACCES, mprotect(p, pages(2), PROT_RW));
	q = map_fd_checked(_metadata, self->fd, pages(2), PROT_READ, MAP_SHARED, 0);
	ASSERT_EQ(0, maps_find(q, &e2));
	EXPECT_EQ(e.inode, e2.inode);
	EXPECT_EQ(-1, touch_pages(p, 2, false));
	EXPECT_TRUE(all_bytes(p, 0, pages(2)));

	/* A private writable mapping is the process's own memory. */
	priv = map_fd_checked(_metadata, self->fd, pages(2), PROT_RW, MAP_PRIVATE, 0);
	memset(priv, 'w', pages(2));
	EXPECT_TRUE(all_bytes(p, 0, pages(2)));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), pread(self->fd, buf, sizeof(buf), 0));
	EXPECT_TRUE(all_bytes(buf, 0, sizeof(buf)));

	/* Pinning works on a read-only descriptor. */
	EXPECT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 2));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 1));
}

/* read() and lseek() */

TEST_F(ashmem, read_and_lseek_follow_the_position)
{
	size_t size = pages(3) + 100;
	char buf[64], *p;

	p = area_map_checked(_metadata, self->fd, size, PROT_RW);
	memcpy(p, "0123456789", 10);
	memcpy(p + 15, "fifteen", 7);
	memcpy(p + size - 10, "last bytes", 10);

	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(4, read(self->fd, buf, 4));
	EXPECT_EQ(0, memcmp(buf, "0123", 4));
	EXPECT_TRUE(all_bytes(buf + 4, FILL, sizeof(buf) - 4));
	EXPECT_EQ(4, lseek(self->fd, 0, SEEK_CUR));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(6, read(self->fd, buf, 6));
	EXPECT_EQ(0, memcmp(buf, "456789", 6));
	EXPECT_EQ(10, lseek(self->fd, 0, SEEK_CUR));

	EXPECT_EQ(size, lseek(self->fd, 0, SEEK_END));
	EXPECT_EQ(5, lseek(self->fd, 5, SEEK_SET));
	EXPECT_EQ(15, lseek(self->fd, 10, SEEK_CUR));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(7, read(self->fd, buf, 7));
	EXPECT_EQ(0, memcmp(buf, "fifteen", 7));

	EXPECT_EQ(size - 10, lseek(self->fd, -10, SEEK_END));
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(10, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "last bytes", 10));
	EXPECT_TRUE(all_bytes(buf + 10, FILL, sizeof(buf) - 10));
	EXPECT_EQ(0, read(self->fd, buf, sizeof(buf)));

	EXPECT_ERRNO(EINVAL, lseek(self->fd, -1, SEEK_SET));
	EXPECT_EQ(size, lseek(self->fd, 0, SEEK_CUR));
}

/* shmem reports pages never written, and purged pages, as holes. */
TEST_F(ashmem, lseek_data_and_hole)
{
	char *p;

	p = area_map_checked(_metadata, self->fd, pages(4), PROT_RW);
	p[pages(1)] = 1;
	p[pages(3)] = 3;
	EXPECT_EQ(pages(1), lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_EQ(pages(2), lseek(self->fd, pages(1), SEEK_HOLE));
	EXPECT_EQ(pages(3), lseek(self->fd, pages(2), SEEK_DATA));
	EXPECT_EQ(pages(4), lseek(self->fd, pages(3), SEEK_HOLE));
	EXPECT_ERRNO(ENXIO, lseek(self->fd, pages(4), SEEK_DATA));

	memset(p, 0x5a, pages(4));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 2));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ(pages(1), lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_EQ(pages(3), lseek(self->fd, pages(1), SEEK_DATA));
}

/*
 * A 3 GiB area in a 512 MiB guest: few pages are touched, and the first
 * mmap() creates the backing file unaccounted (MAP_NORESERVE).  A 32-bit
 * process maps windows.
 * Android's llseek once returned the offset through an int.
 */
TEST_F_TIMEOUT(ashmem, offsets_past_2gib, 120)
{
	const int flags = MAP_SHARED | MAP_NORESERVE;
	const size_t size = (size_t)3 << 30;
	/* @past: unaligned, in the hole after the data page at @off. */
	const off_t off = (off_t)5 << 29, past = off + pages(1) + 12345;
	char buf[32], *win;

	ASSERT_EQ(0, set_size(self->fd, size));
	/* GET_SIZE returns the size as the ioctl's int return value. */
	EXPECT_EQ((long)(int32_t)size, xioctl(self->fd, ASHMEM_GET_SIZE, 0));
	EXPECT_EQ((long long)size, fdinfo_num(self->fd, "size"));
	if (LP64) {
		char *whole = map_fd_checked(_metadata, self->fd, size, PROT_RW, flags, 0);

		snprintf(whole + off, pages(1), "%s", "past 2 GiB");
		munmap(whole, size);
	}
	win = map_fd_checked(_metadata, self->fd, pages(1), PROT_RW, flags, off);
	snprintf(win, pages(1), "%s", "past 2 GiB");

	EXPECT_EQ(off, lseek(self->fd, off, SEEK_SET));
	memset(buf, FILL, sizeof(buf));
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

	/* Page zero written too: offsets around and past 2 GiB. */
	win = map_fd_checked(_metadata, self->fd, pages(1), PROT_RW, flags, 0);
	snprintf(win, pages(1), "%s", "page zero");
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(past, lseek(self->fd, past, SEEK_SET));
	EXPECT_EQ(past, lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ(past + 10, lseek(self->fd, 10, SEEK_CUR));
	EXPECT_EQ(past - 1, lseek(self->fd, past - 1, SEEK_SET));
	EXPECT_EQ((off_t)size - 1, lseek(self->fd, -1, SEEK_END));
	EXPECT_EQ((off_t)1 << 33, lseek(self->fd, (off_t)1 << 33, SEEK_SET));
	EXPECT_ERRNO(EINVAL, lseek(self->fd, -1, SEEK_SET));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_DATA));
	EXPECT_EQ((off_t)pages(1), lseek(self->fd, 0, SEEK_HOLE));
	EXPECT_ERRNO(ENXIO, lseek(self->fd, past, SEEK_DATA));
	EXPECT_EQ(past, lseek(self->fd, past, SEEK_HOLE));

	EXPECT_EQ(past, lseek(self->fd, past, SEEK_SET));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(all_bytes(buf, 0, sizeof(buf)));
	EXPECT_EQ(past + (off_t)sizeof(buf), lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	memset(buf, FILL, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(buf), read(self->fd, buf, sizeof(buf)));
	EXPECT_STREQ("page zero", buf);
}

/* PIN, UNPIN and GET_PIN_STATUS */

TEST_F(ashmem, unpin_makes_range_unpinned)
{
	area_map_checked(_metadata, self->fd, pages(4), PROT_READ);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 2));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 1, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 1));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 3, 1));
	/* Any unpinned page makes the range unpinned. */
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 0));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 2));
	EXPECT_PAGE_COUNTS(self->fd, 2, 2, 0);
}

TEST_F(ashmem, pin_after_unpin_keeps_data_not_purged)
{
	char *p = area_map_checked(_metadata, self->fd, pages(4), PROT_RW);

	memset(p, 0x5a, pages(4));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 4));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 4));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 4));
	EXPECT_TRUE(all_bytes(p, 0x5a, pages(4)));
	/* Pinning pinned pages is fine too. */
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 2));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 0);
}

TEST_F(ashmem, pin_middle_splits_unpinned_range)
{
	int i;

	area_map_checked(_metadata, self->fd, pages(8), PROT_READ);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 8));
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 3, 2));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i == 3 || i == 4 ? ASHMEM_IS_PINNED : ASHMEM_IS_UNPINNED,
			  pin_status(self->fd, i, 1));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 0, 3));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 3, 2));
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 5, 3));
	EXPECT_PAGE_COUNTS(self->fd, 2, 6, 0);
}

TEST_F(ashmem, unpin_merges_adjacent_and_overlapping_ranges)
{
	int i;

	area_map_checked(_metadata, self->fd, pages(8), PROT_READ);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 2));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 2, 2));	/* adjacent */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 3, 3));	/* overlapping */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 1));	/* inside */
	EXPECT_PAGE_COUNTS(self->fd, 2, 6, 0);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, i, 1));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 6, 2));

	/* One unpin covering several ranges. */
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 1, 1));
	ASSERT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 4, 1));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 8));
	EXPECT_PAGE_COUNTS(self->fd, 0, 8, 0);
	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 8));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
}

TEST_F(ashmem, purge_all_caches_purges_unpinned_pages)
{
	char *p;
	int i;

	p = area_map_checked(_metadata, self->fd, pages(8), PROT_RW);
	fill_pages(p, 8);
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));	/* others' */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 2, 4));
	EXPECT_EQ(4, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 4, 0, 4);
	/* Purged pages stay unpinned until pinned again. */
	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_status(self->fd, 2, 4));
	EXPECT_EQ(ASHMEM_IS_PINNED, pin_status(self->fd, 0, 2));

	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 4));
	EXPECT_PAGE_COUNTS(self->fd, 8, 0, 0);
	for (i = 0; i < 8; i++)
		EXPECT_TRUE(all_bytes(p + pages(i), i >= 2 && i < 6 ? 0 : page_byte(i), pages(1)))
			TH_LOG("page %d", i);
}

TEST_F(ashmem, pin_reports_purge_per_page)
{
	area_map_checked(_metadata, self->fd, pages(8), PROT_READ);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 4));
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 4, 4));	/* after the purge */
	EXPECT_PAGE_COUNTS(self->fd, 0, 4, 4);

	EXPECT_EQ(ASHMEM_NOT_PURGED, pin_pages(self->fd, ASHMEM_PIN, 4, 4));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 0, 1));
	/* Unpinned again, page 0 is not purged any more. */
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
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
	map_fd_checked(_metadata, self->fd, pages(8), PROT_READ, MAP_SHARED, 0);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 1, 3));
	EXPECT_PAGE_COUNTS(self->fd, 5, 3, 0);
	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	EXPECT_PAGE_COUNTS(self->fd, 5, 0, 3);
	ASSERT_EQ(ASHMEM_WAS_PURGED, pin_pages(self->fd, ASHMEM_PIN, 2, 1));
	EXPECT_PAGE_COUNTS(self->fd, 6, 0, 2);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 6, 2));
	EXPECT_PAGE_COUNTS(self->fd, 4, 2, 2);
}

/*
 * Threads pin and unpin their own interleaved slices of one area while
 * PURGE_ALL_CACHES runs: ranges merge with and are split by neighbours'
 * yet each thread's slices must behave as if the area were its own.
 */
#define PIN_THREADS	4
#define PIN_SLICE	4	/* pages in a slice */
#define PIN_SLICES	16	/* slices of each thread */
#define PIN_OPS		2000	/* pins and unpins of each thread */

struct pin_thread {
	pthread_t thread;
	int fd;
	char *map;
	unsigned int id;
	uint64_t seed;
	bool unpinned[PIN_SLICES];
	unsigned long purged, violations;
	char first[160];	/* the first violation */
};

static size_t slice_page(const struct pin_thread *t, unsigned int s)
{
	return (s * PIN_THREADS + t->id) * PIN_SLICE;
}

static void pin_violation(struct pin_thread *t, unsigned int s, const char *what, long val)
{
	if (!t->violations++)
		snprintf(t->first, sizeof(t->first), "thread %u, page %zu: %s %ld",
			 t->id, slice_page(t, s), what, val);
}

/* Pages of slice @s that hold their data, and pages that read as zero. */
static void slice_contents(struct pin_thread *t, unsigned int s,
			   unsigned int *intact, unsigned int *zero)
{
	size_t i;

	*intact = 0;
	*zero = 0;
	for (i = slice_page(t, s); i < slice_page(t, s) + PIN_SLICE; i++) {
		if (all_bytes(t->map + pages(i), page_byte(i), pages(1)))
			(*intact)++;
		else if (all_bytes(t->map + pages(i), 0, pages(1)))
			(*zero)++;
	}
}

static void pin_slice(struct pin_thread *t, unsigned int s)
{
	int ret = pin_pages(t->fd, ASHMEM_PIN, slice_page(t, s), PIN_SLICE);
	unsigned int intact, zero;
	size_t i;

	slice_contents(t, s, &intact, &zero);
	if (ret == ASHMEM_NOT_PURGED) {
		if (intact != PIN_SLICE)
			pin_violation(t, s, "NOT_PURGED, pages intact:", intact);
	} else if (ret == ASHMEM_WAS_PURGED) {
		t->purged++;
		if (!zero || intact + zero != PIN_SLICE)
			pin_violation(t, s, "WAS_PURGED, pages zero:", zero);
	} else {
		pin_violation(t, s, "PIN returned", ret);
	}
	for (i = slice_page(t, s); i < slice_page(t, s) + PIN_SLICE; i++)
		memset(t->map + pages(i), page_byte(i), pages(1));
	t->unpinned[s] = false;
}

static void unpin_slice(struct pin_thread *t, unsigned int s)
{
	unsigned int intact, zero;
	int ret;

	slice_contents(t, s, &intact, &zero);
	if (intact != PIN_SLICE)
		pin_violation(t, s, "pinned, pages intact:", intact);
	ret = pin_pages(t->fd, ASHMEM_UNPIN, slice_page(t, s), PIN_SLICE);
	if (ret)
		pin_violation(t, s, "UNPIN returned", ret);
	t->unpinned[s] = true;
}

static void *pin_thread_main(void *arg)
{
	struct pin_thread *t = arg;
	unsigned int op, s;
	int status, want;

	for (op = 0; op < PIN_OPS; op++) {
		s = below(&t->seed, PIN_SLICES);
		if (t->unpinned[s])
			pin_slice(t, s);
		else
			unpin_slice(t, s);
		status = pin_pages(t->fd, ASHMEM_GET_PIN_STATUS, slice_page(t, s), PIN_SLICE);
		want = t->unpinned[s] ? ASHMEM_IS_UNPINNED : ASHMEM_IS_PINNED;
		if (status != want)
			pin_violation(t, s, "GET_PIN_STATUS returned", status);
	}
	return NULL;
}

static void *purge_all_loop(void *arg)
{
	int *stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		int fd = open(ASHMEM_DEV, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			break;
		ioctl(fd, ASHMEM_PURGE_ALL_CACHES);
		close(fd);
		usleep(200);
	}
	return NULL;
}

TEST_F_TIMEOUT(ashmem, pin_and_unpin_from_threads_with_purges, 300)
{
	const size_t npages = PIN_THREADS * PIN_SLICES * PIN_SLICE;
	struct pin_thread t[PIN_THREADS] = { 0 };
	long long unpinned = 0, purged = 0;
	struct page_counts c;
	pthread_t purger;
	int stop = 0;
	unsigned int i, s;
	char *map;

	if (!root_and_ashmem(_metadata))
		return;
	map = area_map_checked(_metadata, self->fd, pages(npages), PROT_RW);
	fill_pages(map, npages);
	ASSERT_EQ(0, pthread_create(&purger, NULL, purge_all_loop, &stop));
	for (i = 0; i < PIN_THREADS; i++) {
		t[i].fd = self->fd;
		t[i].map = map;
		t[i].id = i;
		t[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		ASSERT_EQ(0, pthread_create(&t[i].thread, NULL, pin_thread_main, &t[i]));
	}
	for (i = 0; i < PIN_THREADS; i++)
		ASSERT_EQ(0, pthread_join(t[i].thread, NULL));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(purger, NULL));

	for (i = 0; i < PIN_THREADS; i++) {
		EXPECT_EQ(0, t[i].violations) TH_LOG("%s", t[i].first);
		purged += t[i].purged;
		for (s = 0; s < PIN_SLICES; s++)
			unpinned += t[i].unpinned[s] * PIN_SLICE;
	}
	/* The purges came between unpin and pin of many slices. */
	EXPECT_LT(0, purged);
	ASSERT_EQ(0, page_counts(self->fd, &c));
	EXPECT_EQ(npages - unpinned, c.pinned);
	EXPECT_EQ(unpinned, c.unpinned + c.purged);
	munmap(map, pages(npages));
}

TEST_F(ashmem, purge_all_caches_needs_cap_sys_admin)
{
	pid_t pid;

	area_map_checked(_metadata, self->fd, pages(2), PROT_READ);
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 1));
	pid = fork_checked(_metadata);
	if (pid == 0) {
		ASSERT_EQ(0, become_nobody());
		EXPECT_ERRNO(EPERM, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_PAGE_COUNTS(self->fd, 1, 1, 0);
}

TEST_F(ashmem, release_drops_unpinned_ranges)
{
	void *p = area_map_checked(_metadata, self->fd, pages(4), PROT_READ);

	ASSERT_LE(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
	ASSERT_EQ(0, pin_pages(self->fd, ASHMEM_UNPIN, 0, 2));
	munmap(p, pages(4));
	close(self->fd);
	self->fd = open_area(_metadata, O_RDWR);
	EXPECT_EQ(0, ioctl(self->fd, ASHMEM_PURGE_ALL_CACHES));
}

/*
 * A hog allocates up to twice the machine's memory until the shrinker has
 * purged some unpinned pages; with no swap, the shrinker must give memory
 * back.  An OOM kill fails the test while unpinned pages were left.
 */
#define PRESSURE_AREA	((size_t)96 << 20)
#define PRESSURE_PINNED	((size_t)8 << 20)
#define HOG_CHUNK	((size_t)4 << 20)

/* Returns 0 once fd's area shows purged pages, 1 if there was none. */
static int hog_until_purged(int fd, unsigned long long limit)
{
	unsigned long long total;

	write_file("/proc/self/oom_score_adj", "1000");
	for (total = 0; total < limit; total += HOG_CHUNK) {
		char *p = mmap(NULL, HOG_CHUNK, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
	struct page_counts c;
	struct sysinfo si;
	int status;
	pid_t hog;
	char *p;

	p = area_map_checked(_metadata, self->fd, PRESSURE_AREA, PROT_RW);
	fill_pages(p, npages);
	ASSERT_EQ(0, pin_op(self->fd, ASHMEM_UNPIN, PRESSURE_PINNED, 0));
	EXPECT_PAGE_COUNTS(self->fd, first_unpinned, npages - first_unpinned, 0);

	ASSERT_EQ(0, sysinfo(&si));
	hog = fork_checked(_metadata);
	if (hog == 0)
		_exit(hog_until_purged(self->fd, 2ULL * si.totalram * si.mem_unit));
	status = wait_child(hog);

	/* Still running: this process was not OOM-killed. */
	ASSERT_EQ(0, page_counts(self->fd, &c));
	TH_LOG("memory hog ended with status %d; %lld of %zu unpinned pages purged",
	       status, c.purged, npages - first_unpinned);
	ASSERT_LT(0, c.purged)
		TH_LOG("no page purged under memory pressure: shrinker did not work");
	/* A kill is a failure while unpinned pages were left to purge. */
	if (status == 128 + SIGKILL) {
		EXPECT_EQ(0, c.unpinned)
			TH_LOG("memory hog OOM-killed, %lld unpinned pages resident", c.unpinned);
	} else {
		EXPECT_EQ(0, status);
	}
	EXPECT_EQ(npages, c.pinned + c.unpinned + c.purged);

	EXPECT_EQ(ASHMEM_IS_UNPINNED, pin_op(self->fd, ASHMEM_GET_PIN_STATUS, PRESSURE_PINNED, 0));
	EXPECT_EQ(ASHMEM_WAS_PURGED, pin_op(self->fd, ASHMEM_PIN, PRESSURE_PINNED, 0));
	EXPECT_PAGE_COUNTS(self->fd, npages, 0, 0);

	for (i = 0; i < first_unpinned; i++)
		if (!all_bytes(p + pages(i), page_byte(i), pages(1)))
			garbled++;
	EXPECT_EQ(0, garbled) TH_LOG("pinned pages lost their data");
	garbled = 0;
	for (i = first_unpinned; i < npages; i++) {
		if (all_bytes(p + pages(i), 0, pages(1)))
			zeroed++;
		else if (!all_bytes(p + pages(i), page_byte(i), pages(1)))
			garbled++;
	}
	EXPECT_EQ(0, garbled) TH_LOG("unpinned pages neither intact nor zero");
	EXPECT_LE(c.purged, zeroed);
}

TEST_HARNESS_MAIN
