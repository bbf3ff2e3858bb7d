// SPDX-License-Identifier: GPL-2.0
/* Code shared by the ashmem selftests: see ashmem_util.h. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <fcntl.h>
#include <limits.h>
#include <grp.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest.h"
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

int set_prot_mask(int fd, unsigned long mask)
{
	return ioctl(fd, ASHMEM_SET_PROT_MASK, mask);
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

int area_filled(size_t size, char **map)
{
	int fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	*map = area_map(fd, size, PROT_RW, MAP_SHARED);
	if (*map == MAP_FAILED) {
		close(fd);
		return -1;
	}
	fill_pages(*map, page_align(size) / pages(1));
	return fd;
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

static sigjmp_buf fault_jmp;

static void fault_handler(int sig)
{
	siglongjmp(fault_jmp, sig);
}

long touch_pages(char *p, size_t n, bool write)
{
	struct sigaction sa = { .sa_handler = fault_handler }, obus, osegv;
	/* Not a local: a local changed after sigsetjmp() is lost by longjmp. */
	static __thread size_t i;
	long ret = -1;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	i = 0;
	if (sigsetjmp(fault_jmp, 1) == 0) {
		for (i = 0; i < n; i++) {
			char *c = p + pages(i);
			char v = __atomic_load_n(c, __ATOMIC_RELAXED);

			if (write)
				__atomic_store_n(c, v, __ATOMIC_RELAXED);
		}
	} else {
		ret = i;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return ret;
}

void *unmapped_addr(void)
{
	void *p = mmap(NULL, pages(1), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, pages(1));
	return p;
}

/* x86-64: the start of kernel text; wider than a 32-bit long. */
#define KERNEL_ADDR_64	0xffffffff81000000ULL

unsigned long kernel_addr(void)
{
	return sizeof(long) == 8 ? (unsigned long)KERNEL_ADDR_64 : 0xfffff000UL;
}

bool dev_noexec(void)
{
	struct statvfs st;

	return statvfs(ASHMEM_DEV, &st) == 0 && (st.f_flag & ST_NOEXEC);
}

char *page_before_hole(void)
{
	char *p = mmap(NULL, pages(2), PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + pages(1), pages(1));
	memset(p, FILL, pages(1));
	return p + pages(1);
}

/* The value of the "@key:" or "@key " line of @buf. */
static const char *find_key(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *line = buf;

	while (line) {
		if (!strncmp(line, key, len) &&
		    (line[len] == ':' || line[len] == ' '))
			return line + len + 1 + strspn(line + len + 1, " \t");
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

long long key_value(const char *buf, const char *key)
{
	const char *val = find_key(buf, key);

	return val ? strtoll(val, NULL, 10) : -1;
}

/* open() and read(), not stdio: callers may be forked from threads. */
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
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
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

long meminfo_kb(const char *key)
{
	char buf[4096];

	if (read_small("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	return key_value(buf, key);
}

long long vm_event(const char *key)
{
	char buf[16384];

	if (read_small("/proc/vmstat", buf, sizeof(buf)))
		return -1;
	return key_value(buf, key);
}

int mount_private(const char *fstype, const char *dir)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	return mount(fstype, dir, fstype, 0, NULL);
}

bool mount_if_missing(const char *probe, const char *fstype, const char *dir)
{
	if (!access(probe, F_OK))
		return true;
	return !mount_private(fstype, dir) && !access(probe, F_OK);
}

bool swap_on(void)
{
	char buf[4096];

	/* One header line, then one line per swap area. */
	if (read_small("/proc/swaps", buf, sizeof(buf)))
		return false;
	return strchr(buf, '\n') && strchr(buf, '\n')[1] != '\0';
}

bool cgroup2_memory(void)
{
	char buf[512];

	return mount_if_missing(CG_ROOT "/cgroup.controllers", "cgroup2", CG_ROOT) &&
	       !read_small(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) &&
	       strstr(buf, "memory");
}

int cg_self(char *path, size_t len)
{
	char buf[PATH_MAX];

	/* "0::/path" is the one line under cgroup v2 only. */
	if (read_small("/proc/self/cgroup", buf, sizeof(buf)) ||
	    strncmp(buf, "0::/", 4))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(path, len, "%s%s", CG_ROOT, strcmp(buf + 3, "/") ? buf + 3 : "");
	return 0;
}

int cg_enter(const char *path)
{
	char file[PATH_MAX + 16];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	return write_str(file, "0");
}

int cg_make(const char *top, const char *name, const char *max, char *path)
{
	char file[PATH_MAX + 16];

	snprintf(path, PATH_MAX, "%s/%s", top, name);
	if (mkdir(path, 0755))
		return -1;
	snprintf(file, sizeof(file), "%s/memory.max", path);
	if (max && write_str(file, max))
		return -1;
	return 0;
}

int cg_reclaim(const char *cg, const char *size)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	if (write_str(path, size) && errno != EAGAIN)
		return -1;
	return 0;
}

long cg_event(const char *cg, const char *key)
{
	char path[PATH_MAX + 16], buf[1024];

	snprintf(path, sizeof(path), "%s/memory.events", cg);
	if (read_small(path, buf, sizeof(buf)))
		return -1;
	return key_value(buf, key);
}

int area_mapped_in(const char *cg, const char *home, size_t size, char **map)
{
	int fd = -1;

	if (cg_enter(cg))
		return -1;
	fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		*map = area_map(fd, size, PROT_RW, MAP_SHARED);
		if (*map == MAP_FAILED) {
			close(fd);
			fd = -1;
		}
	}
	if (cg_enter(home)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int unshare_user_ns(int flags)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER | flags))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	if (write_str("/proc/self/uid_map", map) ||
	    write_str("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	return write_str("/proc/self/gid_map", map);
}

int unshare_errno(int flags)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(unshare(flags) ? errno : 0);
	return pid < 0 ? errno : wait_child(pid);
}

int kernel_symbol(const char *sym)
{
	size_t len = strlen(sym);
	char line[512];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -1;
	/* "ADDRESS TYPE NAME", then "\t[MODULE]" for a module's symbol. */
	while (ret != 1 && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		ret = n > len && line[n - len - 1] == ' ' &&
		      !strncmp(line + n - len, sym, len);
	}
	fclose(f);
	return ret;
}

int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -1;
	return 0;
}

int key_string(const char *buf, const char *key, char *val, size_t len)
{
	const char *v = find_key(buf, key);

	if (!v)
		return -1;
	snprintf(val, len, "%.*s", (int)strcspn(v, "\n"), v);
	return 0;
}

int fdinfo_read(int fd, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return read_small(path, buf, len);
}

int fdinfo_get(int fd, const char *key, char *val, size_t len)
{
	char buf[2048];

	if (fdinfo_read(fd, buf, sizeof(buf)))
		return -1;
	return key_string(buf, key, val, len);
}

long long fdinfo_num(int fd, const char *key)
{
	char buf[2048];

	if (fdinfo_read(fd, buf, sizeof(buf)))
		return -1;
	return key_value(buf, key);
}

int page_counts_of(const char *buf, struct page_counts *c)
{
	c->pinned = key_value(buf, "pinned");
	c->unpinned = key_value(buf, "unpinned");
	c->purged = key_value(buf, "purged");
	return c->pinned < 0 || c->unpinned < 0 || c->purged < 0 ? -1 : 0;
}

int page_counts(int fd, struct page_counts *c)
{
	char buf[2048];

	if (fdinfo_read(fd, buf, sizeof(buf)))
		buf[0] = '\0';
	return page_counts_of(buf, c);
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

int smaps_get(const void *addr, const char *key, char *val, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long start, end;
	size_t klen = strlen(key);
	char line[1024];
	bool in = false;
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = (uintptr_t)addr >= start && (uintptr_t)addr < end;
		else if (in && !strncmp(line, key, klen) && line[klen] == ':')
			ret = key_string(line, key, val, len);
	}
	fclose(f);
	return ret;
}

pid_t fork_child(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int stop_child(pid_t pid)
{
	if (pid <= 0)
		return -1;
	kill(pid, SIGKILL);
	return wait_child(pid);
}

/* A child stuck in the kernel stays behind a timeout: that is the point. */
int run_bounded(int (*fn)(void *), void *arg, int secs)
{
	uint64_t end = now_ns() + secs * 1000000000ULL;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0)
		_exit(fn(arg));
	while (now_ns() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (r < 0)
			return -2;
		usleep(20 * 1000);
	}
	kill(pid, SIGKILL);
	usleep(500 * 1000);
	waitpid(pid, &status, WNOHANG);
	return -1;
}

/*
 * Fills memory 1 MiB at a time, holds it a moment, frees it, and again.
 * By turns it stops when MemAvailable is down to 1/32 of MemTotal, or goes
 * on until MemAvailable is 0 and then 4 MiB more: below the watermarks,
 * where kswapd and direct reclaim run the shrinkers.  The hog offers
 * itself to the OOM killer; its parent starts a new one when one is killed.
 */
static void __noreturn memory_hog(unsigned int round)
{
	const size_t chunk = (size_t)1 << 20;
	long total_kb = meminfo_kb("MemTotal");
	char *chunks[4096];

	write_file("/proc/self/oom_score_adj", "1000");
	for (;; round++) {
		int n = 0, past_zero = 0;

		while (n < 4096) {
			long avail = meminfo_kb("MemAvailable");

			if (round % 2 && avail <= total_kb / 32)
				break;
			if (!(round % 2) && avail <= 0 && past_zero++ >= 4)
				break;
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

pid_t start_memory_hog(void)
{
	unsigned int round = 0;
	pid_t pid = fork_child();

	if (pid != 0)
		return pid;
	for (;; round++) {
		pid_t hog = fork_child();

		if (hog == 0)
			memory_hog(round);
		if (hog < 0 || waitpid(hog, NULL, 0) != hog)
			_exit(1);
	}
}

uint64_t rnd(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

uint64_t below(uint64_t *state, uint64_t n)
{
	return n ? rnd(state) % n : 0;
}

unsigned int pick_weighted(uint64_t *state, const unsigned int *weights,
			   unsigned int n)
{
	unsigned int total = 0, i, r;

	for (i = 0; i < n; i++)
		total += weights[i];
	r = below(state, total);
	for (i = 0; r >= weights[i]; i++)
		r -= weights[i];
	return i;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void wait_children(const pid_t *pids, int *status, int n, uint64_t until)
{
	int i, left, st;

	for (i = 0; i < n; i++)
		status[i] = -1;
	for (;;) {
		for (i = 0, left = 0; i < n; i++) {
			if (status[i] >= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) != pids[i])
				left++;
			else if (WIFEXITED(st))
				status[i] = WEXITSTATUS(st);
			else
				status[i] = 128 + WTERMSIG(st);
		}
		if (!left || now_ns() >= until)
			break;
		usleep(50 * 1000);
	}
	/* Not reaped: a child stuck in the kernel would block us too. */
	for (i = 0; i < n; i++)
		if (status[i] < 0)
			kill(pids[i], SIGKILL);
}

void *map_fd(int fd, size_t len, int prot, int flags, off_t off)
{
	return mmap(NULL, len, prot, flags, fd, off);
}

int read_line(const char *path, char *buf, size_t len)
{
	if (read_small(path, buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
