// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the ashmem selftests: see ashmem_util.h. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "ashmem_util.h"

size_t pages(size_t n)
{
	return n * (size_t)sysconf(_SC_PAGESIZE);
}

size_t page_align(size_t size)
{
	return (size + pages(1) - 1) & ~(pages(1) - 1);
}

long xioctl(int fd, unsigned long cmd, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, cmd, arg);
}

int set_size(int fd, size_t size)
{
	return ioctl(fd, ASHMEM_SET_SIZE, size);
}

int pin_op(int fd, unsigned long cmd, uint32_t offset, uint32_t len)
{
	struct ashmem_pin pin = { .offset = offset, .len = len };

	return ioctl(fd, cmd, &pin);
}

int pin_pages(int fd, unsigned long cmd, size_t first, size_t n)
{
	return pin_op(fd, cmd, pages(first), pages(n));
}

void *area_map(int fd, size_t size, int prot, int flags)
{
	if (set_size(fd, size))
		return MAP_FAILED;
	return mmap(NULL, page_align(size), prot, flags, fd, 0);
}

bool all_bytes(const void *buf, int c, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		if (*p++ != (unsigned char)c)
			return false;
	return true;
}

int page_byte(size_t i)
{
	return 'A' + i % 26;
}

void fill_pages(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		memset(p + pages(i), page_byte(i), pages(1));
}

int set_prot_mask(int fd, unsigned long mask)
{
	return ioctl(fd, ASHMEM_SET_PROT_MASK, mask);
}

void *unmapped_addr(void)
{
	void *p = mmap(NULL, pages(1), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, pages(1));
	return p;
}

int fdinfo_get(int fd, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	char path[64], line[512];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || strncmp(line + klen, ":\t", 2))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(val, len, "%s", line + klen + 2);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

long long fdinfo_num(int fd, const char *key)
{
	char val[64];

	if (fdinfo_get(fd, key, val, sizeof(val)))
		return -1;
	return strtoll(val, NULL, 10);
}

int maps_find(const void *addr, struct maps_entry *e)
{
	char line[1024];
	int ret = -1, n;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %llu %n",
			   &e->start, &e->end, e->perms, &e->inode, &n) < 4)
			continue;
		if ((uintptr_t)addr < e->start || (uintptr_t)addr >= e->end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(e->path, sizeof(e->path), "%s", line + n);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* The number after "<key><sep>" on a line of @path, or -1. */
static long long file_field(const char *path, const char *key, char sep)
{
	size_t klen = strlen(key);
	char line[256];
	long long val = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == sep) {
			val = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

long meminfo_kb(const char *key)
{
	return file_field("/proc/meminfo", key, ':');
}

long long vm_event(const char *key)
{
	return file_field("/proc/vmstat", key, ' ');
}

int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

void write_file(const char *path, const char *val)
{
	if (write_str(path, val))
		fprintf(stderr, "# writing %s failed\n", path);
}

/*
 * Fills memory until MemAvailable is 0 and 4 MiB more, frees, and again:
 * below the watermarks, so that reclaim runs the shrinkers.  The hog
 * offers itself to the OOM killer; its parent, returned here, starts a
 * new one whenever one is killed.
 */
static void __noreturn memory_hog(void)
{
	const size_t chunk = (size_t)1 << 20;
	char *chunks[4096];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	write_file("/proc/self/oom_score_adj", "1000");
	for (;;) {
		int n = 0, past_zero = 0;

		while (n < 4096 && (meminfo_kb("MemAvailable") > 0 ||
				    past_zero++ < 4)) {
			chunks[n] = mmap(NULL, chunk, PROT_RW,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (chunks[n] == MAP_FAILED)
				break;
			memset(chunks[n++], 0x5a, chunk);
		}
		usleep(50 * 1000);
		while (n--)
			munmap(chunks[n], chunk);
		usleep(20 * 1000);
	}
}

/*
 * A child process that keeps the memory nearly full until killed, so that
 * reclaim and the shrinkers run.  It offers itself to the OOM killer first.
 */
pid_t start_memory_hog(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		pid_t hog = fork();

		if (hog == 0)
			memory_hog();
		if (hog < 0 || waitpid(hog, NULL, 0) != hog)
			_exit(1);
	}
}

void stop_child(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}
