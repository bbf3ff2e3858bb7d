// SPDX-License-Identifier: GPL-2.0
/*
 * Hold an ashmem area while scripts/guest/ashmem-module.sh tries to unload
 * the module, then check the area survived.
 *
 * usage: ashmem-modhold fd|map|once
 *   fd    keep the area's file descriptor open (and a shared mapping)
 *   map   keep only a shared mapping: the descriptor is closed
 *   once  use an area and exit (the device works)
 * fd and map print "ready" once set up, wait for a line (or end of file)
 * on stdin, then check that the mapping still holds what was written,
 * that the area still works, and unmap.  Exit status 0 if all went well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ashmem.h>

#define PAGES	4

static int fail(const char *what)
{
	printf("ashmem-modhold: %s: %s\n", what, strerror(errno));
	return 1;
}

static void fill(unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + 1);
}

static int intact(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(i * 7 + 1))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), len = PAGES * page;
	struct ashmem_pin last = { .offset = (PAGES - 1) * page, .len = page };
	unsigned char *p;
	char line[16];
	int fd, ret;

	if (argc != 2 || (strcmp(argv[1], "fd") && strcmp(argv[1], "map") &&
			  strcmp(argv[1], "once"))) {
		fprintf(stderr, "usage: %s fd|map|once\n", argv[0]);
		return 2;
	}

	fd = open("/dev/ashmem", O_RDWR);
	if (fd < 0)
		return fail("open /dev/ashmem");
	if (ioctl(fd, ASHMEM_SET_NAME, "modhold") || ioctl(fd, ASHMEM_SET_SIZE, len))
		return fail("SET_NAME, SET_SIZE");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, len);
	/* One unpinned page: the shrinker's LRU holds a range of this area. */
	ret = ioctl(fd, ASHMEM_UNPIN, &last);
	if (ret)
		return fail("UNPIN");

	if (!strcmp(argv[1], "map") && close(fd))
		return fail("close");
	if (strcmp(argv[1], "once")) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
			return fail("read stdin");
	}

	if (!intact(p, len - page)) {
		printf("ashmem-modhold: the pinned pages lost their contents\n");
		return 1;
	}
	if (strcmp(argv[1], "map")) {
		ret = ioctl(fd, ASHMEM_PIN, &last);
		if (ret != ASHMEM_NOT_PURGED && ret != ASHMEM_WAS_PURGED)
			return fail("PIN");
		if (ioctl(fd, ASHMEM_GET_SIZE, 0) != (int)len)
			return fail("GET_SIZE");
		close(fd);
	}
	if (munmap(p, len))
		return fail("munmap");
	printf("ashmem-modhold: %s: the area was intact\n", argv[1]);
	return 0;
}
