// SPDX-License-Identifier: GPL-2.0
/*
 * Stress for /dev/ashmem under real memory pressure, bounded in time.
 *
 *   ashmem_stress [-t SECONDS] [-w WORKERS] [-T THREADS] [-H HOGS] [-s SEED]
 *
 * WORKERS processes of THREADS threads each create areas (sometimes in a
 * child that passes the fd back over a unix socket), write patterns derived
 * from the area id, the page and a per-page generation, unpin and pin random
 * ranges, map and unmap, read with pread(), fork children that check the
 * areas through inherited mappings and through fds passed over a socket,
 * and close (sometimes keeping the mapping).  HOGS processes keep memory
 * nearly full so that reclaim runs the ashmem shrinker; they volunteer to
 * the OOM killer and are restarted when killed.  For the first half of the
 * time only reclaim purges; then a thread also calls PURGE_ALL_CACHES and
 * drops slab caches (which runs the shrinker directly).
 *
 * Invariants, checked all the time:
 *  - a pinned page always holds its pattern (through a mapping or pread());
 *  - after PIN, every page of the range holds its pattern or reads as all
 *    zeros (purged); if PIN said NOT_PURGED every page holds its pattern;
 *    if it said WAS_PURGED some page of the range was unpinned and reads as
 *    zeros;
 *  - GET_PIN_STATUS and the fdinfo page counts agree with the model;
 *  - after the last fd is closed, a mapping still shows pinned data.
 * Any violation makes the program exit non-zero.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest.h"

#define ASHMEM_DEV	"/dev/ashmem"
#define MAX_THREADS	8
#define MAX_WORKERS	16
#define MAX_HOGS	8
#define AREAS		4	/* per thread */
#define MAX_PAGES	256	/* per area */
#define LOG_LINES	32
#define LOG_LEN		200

enum sop {
	S_CREATE, S_CREATE_CHILD, S_WRITE, S_VERIFY, S_UNPIN, S_PIN, S_STATUS,
	S_FDINFO, S_MUNMAP, S_REMAP, S_PREAD, S_CLOSE, S_CLOSE_KEEP_MAP,
	S_FORK_CHECK, S_PASS_FD_CHECK, NR_SOPS
};

static const char *const sop_names[NR_SOPS] = {
	"create", "create_in_child", "write", "verify", "unpin", "pin",
	"pin_status", "fdinfo", "munmap", "remap", "pread", "close",
	"close_keep_map", "fork_check", "pass_fd_check",
};

static const unsigned int sop_weights[NR_SOPS] = {
	[S_CREATE] = 6, [S_CREATE_CHILD] = 2, [S_WRITE] = 10, [S_VERIFY] = 4,
	[S_UNPIN] = 20, [S_PIN] = 20, [S_STATUS] = 6, [S_FDINFO] = 2,
	[S_MUNMAP] = 3, [S_REMAP] = 4, [S_PREAD] = 4, [S_CLOSE] = 3,
	[S_CLOSE_KEEP_MAP] = 2, [S_FORK_CHECK] = 1, [S_PASS_FD_CHECK] = 1,
};

/* Shared by every process of the run. */
struct stats {
	unsigned long ops[NR_SOPS];
	unsigned long was_purged, was_purged_by_reclaim, not_purged;
	unsigned long pages_purged, pin_enomem;
	unsigned long purge_all_calls, purge_all_pages, drop_caches_calls;
	unsigned long hog_rounds, hog_deaths, hog_peak_mib;
	unsigned long violations;
	int stop;		/* these two: __atomic */
	int purger_started;
	unsigned int log_next;
	char log[LOG_LINES][LOG_LEN];
};

struct area {
	int fd;			/* -1: slot free */
	uint32_t id;
	size_t size, npages;
	char *map;		/* NULL: not mapped */
	uint32_t gen[MAX_PAGES];
	bool unpinned[MAX_PAGES];
};

struct thread {
	struct stats *st;
	uint64_t rng;
	unsigned int worker, index;
	uint32_t next_id;
	double deadline;
	struct area areas[AREAS];
	char *ref;		/* one page: the expected contents */
	char *buf;		/* one page: pread() target */
};

static size_t page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(struct thread *t, uint64_t n)
{
	return n ? rnd(&t->rng) % n : 0;
}

static void add(unsigned long *counter, unsigned long n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

/*
 * Records a violation.  Only snprintf() and write(): this also runs in
 * children forked from a threaded process, where stdio locks may be held.
 */
static void violation(struct stats *st, const char *fmt, ...)
{
	char line[LOG_LEN];
	unsigned int slot;
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "# VIOLATION [pid %d] ", getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	add(&st->violations, 1);
	slot = __atomic_fetch_add(&st->log_next, 1, __ATOMIC_RELAXED);
	if (slot < LOG_LINES)
		memcpy(st->log[slot], line, sizeof(line));
	if (slot < 4 * LOG_LINES) {
		size_t len = strlen(line);

		line[len] = '\n';
		if (write(STDOUT_FILENO, line, len + 1) < 0)
			abort();
	}
}

static int page_byte(uint32_t id, size_t page, uint32_t gen)
{
	return 1 + (id * 131 + page * 31 + gen * 7) % 255;
}

/* The expected contents of page @i: a header, then one repeated byte. */
static void make_page(char *dst, struct area *a, size_t i)
{
	uint32_t hdr[4] = { a->id, (uint32_t)i, a->gen[i], 0xa5a5a5a5 };

	memset(dst, page_byte(a->id, i, a->gen[i]), page_size);
	memcpy(dst, hdr, sizeof(hdr));
}

static size_t page_len(struct area *a, size_t i)
{
	size_t end = (i + 1) * page_size;

	return end <= a->size ? page_size : a->size - i * page_size;
}

static bool all_zero(const char *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

enum kind { K_PATTERN, K_ZERO, K_OTHER };

/*
 * What page @i holds, read through the mapping or with pread().  Through a
 * mapping the whole page counts; pread() stops at the end of the area.
 */
static enum kind classify(struct thread *t, struct area *a, size_t i)
{
	size_t len = a->map ? page_size : page_len(a, i);
	const char *p;

	make_page(t->ref, a, i);
	if (a->map) {
		p = a->map + i * page_size;
	} else {
		if (pread(a->fd, t->buf, len, (off_t)i * page_size) != (ssize_t)len)
			return K_OTHER;
		p = t->buf;
	}
	if (!memcmp(p, t->ref, len))
		return K_PATTERN;
	return all_zero(p, len) ? K_ZERO : K_OTHER;
}

static void fill_page(struct area *a, size_t i)
{
	make_page(a->map + i * page_size, a, i);
}

static int pin_ioctl(int fd, unsigned long cmd, size_t first, size_t n)
{
	struct ashmem_pin pin = {
		.offset = first * page_size,
		.len = n * page_size,
	};

	return ioctl(fd, cmd, &pin);
}

/* The number after "@key:" in @buf, or -1. */
static long field(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && line[klen] == ':')
			return strtol(line + klen + 1, NULL, 10);
	}
	return -1;
}

/* The page counts of fdinfo, from one read: one consistent snapshot. */
static int fdinfo_counts(int fd, long *pinned, long *unpinned, long *purged)
{
	char path[64], buf[1024];
	ssize_t n;
	int f;

	/* open/read, not stdio: see violation(). */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*pinned = field(buf, "pinned");
	*unpinned = field(buf, "unpinned");
	*purged = field(buf, "purged");
	return 0;
}

static struct area *pick_area(struct thread *t, bool need_map)
{
	unsigned int start = below(t, AREAS), i;

	for (i = 0; i < AREAS; i++) {
		struct area *a = &t->areas[(start + i) % AREAS];

		if (a->fd >= 0 && (!need_map || a->map))
			return a;
	}
	return NULL;
}

static struct area *free_area(struct thread *t)
{
	unsigned int i;

	for (i = 0; i < AREAS; i++)
		if (t->areas[i].fd < 0)
			return &t->areas[i];
	return NULL;
}

/* A random range [*first, *first + *n); *n == 0 sometimes: to the end. */
static void pick_range(struct thread *t, struct area *a, size_t *first,
		       size_t *n)
{
	*first = below(t, a->npages);
	if (below(t, 10) == 0) {
		*n = 0;
		return;
	}
	*n = 1 + below(t, a->npages - *first < 48 ? a->npages - *first : 48);
}

static size_t range_end(struct area *a, size_t first, size_t n)
{
	return n ? first + n : a->npages;
}

static void new_area_shape(struct thread *t, struct area *a)
{
	a->id = (t->worker << 24) | (t->index << 20) | (t->next_id++ & 0xfffff);
	a->npages = 1 + below(t, MAX_PAGES);
	a->size = a->npages * page_size;
	if (below(t, 4) == 0)
		a->size -= below(t, page_size / 2);
	memset(a->gen, 0, sizeof(a->gen));
	memset(a->unpinned, 0, sizeof(a->unpinned));
}

static int open_area(struct area *a)
{
	char name[32];
	int fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	snprintf(name, sizeof(name), "stress-%08x", a->id);
	if (ioctl(fd, ASHMEM_SET_NAME, name) ||
	    ioctl(fd, ASHMEM_SET_SIZE, a->size) ||
	    ioctl(fd, ASHMEM_SET_PROT_MASK, (unsigned long)(PROT_READ | PROT_WRITE))) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *map_area(struct area *a)
{
	char *p = mmap(NULL, a->npages * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, a->fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Every pinned page must hold its pattern. */
static void verify_pinned(struct thread *t, struct area *a, const char *when)
{
	size_t i;

	for (i = 0; i < a->npages; i++) {
		enum kind k;

		if (a->unpinned[i])
			continue;
		k = classify(t, a, i);
		if (k != K_PATTERN)
			violation(t->st, "%s: area %08x page %zu/%zu pinned but %s (gen %u)",
				  when, a->id, i, a->npages,
				  k == K_ZERO ? "zeroed" : "changed", a->gen[i]);
	}
}

static int send_fd(int sock, int fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;

	memset(&control, 0, sizeof(control));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* The status of a child; a stuck child is killed by its own alarm(). */
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void op_create(struct thread *t, bool in_child)
{
	struct area *a = free_area(t);
	int sv[2], status;
	size_t i;
	pid_t pid;

	if (!a)
		return;
	new_area_shape(t, a);
	if (!in_child) {
		a->fd = open_area(a);
		if (a->fd < 0) {
			violation(t->st, "create: open/SET_* failed: %s", strerror(errno));
			return;
		}
		a->map = map_area(a);
		if (!a->map) {
			violation(t->st, "create: mmap failed: %s", strerror(errno));
			close(a->fd);
			a->fd = -1;
			return;
		}
		for (i = 0; i < a->npages; i++)
			fill_page(a, i);
		add(&t->st->ops[S_CREATE], 1);
		return;
	}

	/* A child creates and fills the area, and sends us the fd. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (pid == 0) {
		alarm(60);
		a->fd = open_area(a);
		a->map = a->fd < 0 ? NULL : map_area(a);
		if (!a->map)
			_exit(2);
		for (i = 0; i < a->npages; i++)
			fill_page(a, i);
		_exit(send_fd(sv[0], a->fd) ? 3 : 0);
	}
	close(sv[0]);
	a->fd = recv_fd(sv[1]);
	close(sv[1]);
	status = wait_child(pid);
	if (status || a->fd < 0) {
		violation(t->st, "create in child: child status %d, fd %d", status, a->fd);
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return;
	}
	/* The child's mapping is gone; the data must not be. */
	a->map = below(t, 2) ? map_area(a) : NULL;
	verify_pinned(t, a, "created by a child");
	add(&t->st->ops[S_CREATE_CHILD], 1);
}

static void op_write(struct thread *t)
{
	struct area *a = pick_area(t, true);
	int k;

	if (!a)
		return;
	for (k = 1 + below(t, 8); k > 0; k--) {
		size_t i = below(t, a->npages);

		if (a->unpinned[i])
			continue;
		a->gen[i]++;
		fill_page(a, i);
	}
	add(&t->st->ops[S_WRITE], 1);
}

static void op_unpin(struct thread *t)
{
	struct area *a = pick_area(t, false);
	size_t first, n, i;

	if (!a)
		return;
	pick_range(t, a, &first, &n);
	if (pin_ioctl(a->fd, ASHMEM_UNPIN, first, n)) {
		violation(t->st, "UNPIN %zu+%zu of %zu pages: %s", first, n,
			  a->npages, strerror(errno));
		return;
	}
	for (i = first; i < range_end(a, first, n); i++)
		a->unpinned[i] = true;
	add(&t->st->ops[S_UNPIN], 1);
}

static void op_pin(struct thread *t)
{
	struct area *a = pick_area(t, false);
	size_t first, n, i, end, zeroed = 0, was_unpinned = 0;
	char *map, *tmp = NULL;
	bool purger;
	int ret;

	if (!a)
		return;
	pick_range(t, a, &first, &n);
	end = range_end(a, first, n);
	purger = __atomic_load_n(&t->st->purger_started, __ATOMIC_RELAXED);
	ret = pin_ioctl(a->fd, ASHMEM_PIN, first, n);
	if (ret < 0) {
		if (errno == ENOMEM) {
			add(&t->st->pin_enomem, 1);
			return;
		}
		violation(t->st, "PIN %zu+%zu of %zu pages: %s", first, n,
			  a->npages, strerror(errno));
		return;
	}
	if (ret != ASHMEM_WAS_PURGED && ret != ASHMEM_NOT_PURGED) {
		violation(t->st, "PIN returned %d", ret);
		return;
	}

	for (i = first; i < end; i++) {
		enum kind k = classify(t, a, i);

		if (!a->unpinned[i]) {
			if (k != K_PATTERN)
				violation(t->st, "PIN: area %08x page %zu was pinned but is %s",
					  a->id, i, k == K_ZERO ? "zeroed" : "changed");
			continue;
		}
		was_unpinned++;
		a->unpinned[i] = false;
		if (k == K_PATTERN)
			continue;
		if (k == K_OTHER)
			violation(t->st, "PIN: area %08x page %zu neither its data nor zeros",
				  a->id, i);
		else if (ret == ASHMEM_NOT_PURGED)
			violation(t->st, "PIN said NOT_PURGED but area %08x page %zu is zeroed",
				  a->id, i);
		zeroed++;

		/* Regenerate the purged page, as a cache would. */
		map = a->map;
		if (!map) {
			if (!tmp)
				tmp = map_area(a);
			map = tmp;
		}
		if (!map) {
			violation(t->st, "mmap to regenerate area %08x: %s", a->id,
				  strerror(errno));
			continue;
		}
		a->gen[i]++;
		make_page(map + i * page_size, a, i);
	}
	if (tmp)
		munmap(tmp, a->npages * page_size);
	if (ret == ASHMEM_WAS_PURGED) {
		if (!was_unpinned)
			violation(t->st,
				  "PIN said WAS_PURGED for area %08x pages %zu-%zu, never unpinned",
				  a->id, first, end - 1);
		else if (!zeroed)
			violation(t->st,
				  "PIN said WAS_PURGED but area %08x pages %zu-%zu all hold data",
				  a->id, first, end - 1);
		add(&t->st->was_purged, 1);
		if (!purger)
			add(&t->st->was_purged_by_reclaim, 1);
	} else {
		add(&t->st->not_purged, 1);
	}
	add(&t->st->pages_purged, zeroed);
	add(&t->st->ops[S_PIN], 1);
}

static void op_status(struct thread *t)
{
	struct area *a = pick_area(t, false);
	size_t first, n, i, end;
	int ret, expect = ASHMEM_IS_PINNED;

	if (!a)
		return;
	pick_range(t, a, &first, &n);
	end = range_end(a, first, n);
	for (i = first; i < end; i++)
		if (a->unpinned[i])
			expect = ASHMEM_IS_UNPINNED;
	ret = pin_ioctl(a->fd, ASHMEM_GET_PIN_STATUS, first, n);
	if (ret != expect)
		violation(t->st, "GET_PIN_STATUS area %08x pages %zu-%zu: %d, expected %d",
			  a->id, first, end - 1, ret, expect);
	add(&t->st->ops[S_STATUS], 1);
}

static void op_fdinfo(struct thread *t)
{
	struct area *a = pick_area(t, false);
	long pinned, unpinned, purged;
	size_t i, model = 0;

	if (!a)
		return;
	for (i = 0; i < a->npages; i++)
		model += !a->unpinned[i];
	if (fdinfo_counts(a->fd, &pinned, &unpinned, &purged) ||
	    pinned != (long)model ||
	    pinned + unpinned + purged != (long)a->npages)
		violation(t->st,
			  "fdinfo of area %08x: pinned %ld unpinned %ld purged %ld, expected %zu pinned of %zu",
			  a->id, pinned, unpinned, purged, model, a->npages);
	add(&t->st->ops[S_FDINFO], 1);
}

static void op_munmap(struct thread *t)
{
	struct area *a = pick_area(t, true);

	if (!a)
		return;
	munmap(a->map, a->npages * page_size);
	a->map = NULL;
	add(&t->st->ops[S_MUNMAP], 1);
}

static void op_remap(struct thread *t)
{
	unsigned int start = below(t, AREAS), i;
	struct area *a = NULL;

	for (i = 0; i < AREAS && !a; i++)
		if (t->areas[(start + i) % AREAS].fd >= 0 &&
		    !t->areas[(start + i) % AREAS].map)
			a = &t->areas[(start + i) % AREAS];
	if (!a)
		return;
	a->map = map_area(a);
	if (!a->map) {
		violation(t->st, "mmap of area %08x again: %s", a->id, strerror(errno));
		return;
	}
	verify_pinned(t, a, "mapped again");
	add(&t->st->ops[S_REMAP], 1);
}

static void op_pread(struct thread *t)
{
	struct area *a = pick_area(t, false);
	char *map;

	if (!a)
		return;
	map = a->map;
	a->map = NULL;		/* classify() reads with pread() */
	verify_pinned(t, a, "pread");
	a->map = map;
	add(&t->st->ops[S_PREAD], 1);
}

static void close_area(struct thread *t, struct area *a, bool keep_map)
{
	size_t i;

	verify_pinned(t, a, "before close");
	close(a->fd);
	a->fd = -1;
	if (keep_map && a->map) {
		/*
		 * The area is gone, the backing file lives on in the mapping.
		 * A child another thread forked may still hold the fd, so a
		 * purge can be punching an unpinned page right now: a page
		 * read half before, half after, is read again.
		 */
		for (i = 0; i < a->npages; i++) {
			enum kind k = classify(t, a, i);

			if (k == K_OTHER && a->unpinned[i])
				k = classify(t, a, i);
			if (k == K_PATTERN || (a->unpinned[i] && k == K_ZERO))
				continue;
			violation(t->st, "after close: area %08x page %zu %s",
				  a->id, i, k == K_ZERO ? "zeroed" : "changed");
		}
	}
	if (a->map)
		munmap(a->map, a->npages * page_size);
	a->map = NULL;
}

static void op_close(struct thread *t, bool keep_map)
{
	struct area *a = pick_area(t, keep_map);

	if (!a)
		return;
	close_area(t, a, keep_map);
	add(&t->st->ops[keep_map ? S_CLOSE_KEEP_MAP : S_CLOSE], 1);
}

/* A child checks an area through what it inherited. */
static void op_fork_check(struct thread *t)
{
	struct area *a = pick_area(t, false);
	int status;
	pid_t pid;

	if (!a)
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		unsigned long before = t->st->violations;
		size_t i;
		int ret, expect;

		alarm(60);
		if (a->map)
			verify_pinned(t, a, "forked child, inherited mapping");
		a->map = map_area(a);
		if (!a->map)
			_exit(2);
		verify_pinned(t, a, "forked child, own mapping");
		for (i = 0; i < a->npages; i++) {
			expect = a->unpinned[i] ? ASHMEM_IS_UNPINNED : ASHMEM_IS_PINNED;
			ret = pin_ioctl(a->fd, ASHMEM_GET_PIN_STATUS, i, 1);
			if (ret != expect)
				violation(t->st, "forked child: page %zu status %d, expected %d",
					  i, ret, expect);
		}
		_exit(t->st->violations != before);
	}
	status = wait_child(pid);
	if (status > 1)
		violation(t->st, "fork check: child status %d", status);
	add(&t->st->ops[S_FORK_CHECK], 1);
}

/* A child gets the area over a unix socket, maps it read-only and checks. */
static void op_pass_fd_check(struct thread *t)
{
	struct area *a = pick_area(t, false);
	int sv[2], status;
	pid_t pid;

	if (!a || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (pid == 0) {
		unsigned long before = t->st->violations;
		char *p;

		alarm(60);
		close(a->fd);
		if (a->map)
			munmap(a->map, a->npages * page_size);
		a->fd = recv_fd(sv[1]);
		if (a->fd < 0)
			_exit(2);
		p = mmap(NULL, a->npages * page_size, PROT_READ, MAP_SHARED, a->fd, 0);
		if (p == MAP_FAILED)
			_exit(3);
		a->map = p;
		verify_pinned(t, a, "passed fd, read-only mapping");
		_exit(t->st->violations != before);
	}
	if (send_fd(sv[0], a->fd))
		violation(t->st, "sendmsg(SCM_RIGHTS): %s", strerror(errno));
	close(sv[0]);
	close(sv[1]);
	status = wait_child(pid);
	if (status > 1)
		violation(t->st, "pass fd check: child status %d", status);
	add(&t->st->ops[S_PASS_FD_CHECK], 1);
}

static enum sop pick_op(struct thread *t)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < NR_SOPS; i++)
		total += sop_weights[i];
	r = below(t, total);
	for (i = 0; i < NR_SOPS; i++) {
		if (r < sop_weights[i])
			return i;
		r -= sop_weights[i];
	}
	return S_PIN;
}

static void *worker_thread(void *arg)
{
	struct thread *t = arg;
	unsigned int i;

	while (!__atomic_load_n(&t->st->stop, __ATOMIC_RELAXED) && now() < t->deadline) {
		switch (pick_op(t)) {
		case S_CREATE:
			op_create(t, false);
			break;
		case S_CREATE_CHILD:
			op_create(t, true);
			break;
		case S_WRITE:
			op_write(t);
			break;
		case S_VERIFY: {
			struct area *a = pick_area(t, true);

			if (a) {
				verify_pinned(t, a, "verify");
				add(&t->st->ops[S_VERIFY], 1);
			}
			break;
		}
		case S_UNPIN:
			op_unpin(t);
			break;
		case S_PIN:
			op_pin(t);
			break;
		case S_STATUS:
			op_status(t);
			break;
		case S_FDINFO:
			op_fdinfo(t);
			break;
		case S_MUNMAP:
			op_munmap(t);
			break;
		case S_REMAP:
			op_remap(t);
			break;
		case S_PREAD:
			op_pread(t);
			break;
		case S_CLOSE:
			op_close(t, false);
			break;
		case S_CLOSE_KEEP_MAP:
			op_close(t, true);
			break;
		case S_FORK_CHECK:
			op_fork_check(t);
			break;
		case S_PASS_FD_CHECK:
			op_pass_fd_check(t);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < AREAS; i++)
		if (t->areas[i].fd >= 0)
			close_area(t, &t->areas[i], below(t, 2));
	return NULL;
}

static int run_worker(struct stats *st, unsigned int worker, unsigned int threads,
		      uint64_t seed, double deadline)
{
	pthread_t tids[MAX_THREADS];
	struct thread *ts;
	unsigned int i, j;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ts = calloc(threads, sizeof(*ts));
	if (!ts)
		return 2;
	for (i = 0; i < threads; i++) {
		struct thread *t = &ts[i];

		t->st = st;
		t->worker = worker;
		t->index = i;
		t->deadline = deadline;
		t->rng = (seed ^ ((uint64_t)worker << 32 | i << 16)) * 0x9e3779b97f4a7c15ULL + 1;
		t->ref = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->ref == MAP_FAILED)
			return 2;
		t->buf = t->ref + page_size;
		for (j = 0; j < AREAS; j++)
			t->areas[j].fd = -1;
		if (pthread_create(&tids[i], NULL, worker_thread, t))
			return 2;
	}
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}

static long meminfo_kb(const char *key)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return field(buf, key);
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		errno = 0;
	close(fd);
}

/*
 * Fills memory 1 MiB at a time, holds it a moment, frees it, and again.  By
 * turns it stops when MemAvailable drops to 1/32 of MemTotal, or goes on
 * until MemAvailable is 0 and then 4 MiB more: below the watermarks, where
 * kswapd and direct reclaim run the shrinkers.  First in line for the OOM
 * killer; the supervisor restarts it.
 */
static void run_hog(struct stats *st, unsigned int round, double deadline)
{
	const size_t chunk = (size_t)1 << 20;
	char **chunks;
	long total_kb = meminfo_kb("MemTotal");
	size_t max = total_kb > 0 ? total_kb / 1024 : 4096;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	write_file("/proc/self/oom_score_adj", "1000");
	chunks = calloc(max, sizeof(*chunks));
	if (!chunks)
		_exit(2);
	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED) && now() < deadline) {
		bool hard = !(round++ % 2);
		size_t n = 0, past_zero = 0;

		while (n < max && !__atomic_load_n(&st->stop, __ATOMIC_RELAXED)) {
			long avail = meminfo_kb("MemAvailable");

			if (!hard && avail <= total_kb / 32)
				break;
			if (hard && avail <= 0 && past_zero++ >= 4)
				break;
			chunks[n] = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (chunks[n] == MAP_FAILED)
				break;
			memset(chunks[n++], 0x5a, chunk);
		}
		if (n > __atomic_load_n(&st->hog_peak_mib, __ATOMIC_RELAXED))
			__atomic_store_n(&st->hog_peak_mib, n, __ATOMIC_RELAXED);
		add(&st->hog_rounds, 1);
		usleep(100 * 1000);
		while (n--)
			munmap(chunks[n], chunk);
		usleep(20 * 1000);
	}
	_exit(0);
}

struct purger {
	struct stats *st;
	double start_at, deadline;
};

/* From half time on: PURGE_ALL_CACHES, and now and then the shrinker. */
static void *purger_thread(void *arg)
{
	struct purger *pg = arg;
	struct stats *st = pg->st;
	unsigned long k = 0;
	int fd;

	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED) && now() < pg->start_at)
		usleep(50 * 1000);
	fd = open(ASHMEM_DEV, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	__atomic_store_n(&st->purger_started, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED) && now() < pg->deadline) {
		long n = ioctl(fd, ASHMEM_PURGE_ALL_CACHES);

		if (n < 0) {
			violation(st, "PURGE_ALL_CACHES: %s", strerror(errno));
			break;
		}
		add(&st->purge_all_calls, 1);
		add(&st->purge_all_pages, n);
		if (++k % 32 == 0) {
			write_file("/proc/sys/vm/drop_caches", "2");
			add(&st->drop_caches_calls, 1);
		}
		usleep(20 * 1000 + (k * 7919) % 80000);
	}
	close(fd);
	return NULL;
}

static pid_t spawn(void (*fn)(struct stats *, unsigned int, double),
		   struct stats *st, unsigned int arg, double deadline)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		fn(st, arg, deadline);
	return pid;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-t SECONDS] [-w WORKERS] [-T THREADS] [-H HOGS] [-s SEED]\n"
		"  defaults: 60 s, 2 worker processes of 2 threads, 2 memory hogs\n",
		prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned int workers = 2, threads = 2, hogs = 2, i, hog_round = 0;
	uint64_t seed = (uint64_t)time(NULL) ^ getpid();
	pid_t wpids[MAX_WORKERS], hpids[MAX_HOGS];
	int wstatus[MAX_WORKERS];
	double seconds = 60, start, deadline;
	unsigned long total_ops = 0;
	struct purger pg;
	pthread_t purger;
	struct stats *st;
	bool ok;
	int opt, fd;

	while ((opt = getopt(argc, argv, "t:w:T:H:s:h")) != -1) {
		switch (opt) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'w':
			workers = atoi(optarg);
			break;
		case 'T':
			threads = atoi(optarg);
			break;
		case 'H':
			hogs = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!workers || workers > MAX_WORKERS || !threads ||
	    threads > MAX_THREADS || hogs > MAX_HOGS || seconds <= 0)
		usage(argv[0]);
	page_size = sysconf(_SC_PAGESIZE);

	ksft_print_header();
	ksft_set_plan(1);
	fd = open(ASHMEM_DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_skip("%s: %s (CONFIG_ASHMEM)\n", ASHMEM_DEV, strerror(errno));
	close(fd);

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(st, 0, sizeof(*st));

	/* The workers and this supervisor must outlive the hogs. */
	write_file("/proc/self/oom_score_adj", "-1000");
	ksft_print_msg("%.0f s, %u workers x %u threads, %u hogs, seed %llu, MemTotal %ld kB\n",
		       seconds, workers, threads, hogs, (unsigned long long)seed,
		       meminfo_kb("MemTotal"));

	start = now();
	deadline = start + seconds;
	for (i = 0; i < hogs; i++)
		hpids[i] = spawn(run_hog, st, hog_round++, deadline);
	for (i = 0; i < workers; i++) {
		fflush(NULL);
		wpids[i] = fork();
		if (wpids[i] == 0)
			_exit(run_worker(st, i, threads, seed, deadline));
		wstatus[i] = -1;
	}
	pg = (struct purger){ st, start + 0.5 * seconds, deadline };
	if (pthread_create(&purger, NULL, purger_thread, &pg))
		ksft_exit_fail_msg("pthread_create failed\n");

	/* Restart hogs the OOM killer took; wait for the workers. */
	for (;;) {
		unsigned int running = 0;

		for (i = 0; i < hogs; i++) {
			int status;

			if (hpids[i] <= 0 || waitpid(hpids[i], &status, WNOHANG) != hpids[i])
				continue;
			if (WIFSIGNALED(status))
				add(&st->hog_deaths, 1);
			hpids[i] = now() < deadline ? spawn(run_hog, st, hog_round++, deadline) : 0;
		}
		for (i = 0; i < workers; i++) {
			int status;

			if (wstatus[i] >= 0)
				continue;
			if (waitpid(wpids[i], &status, WNOHANG) == wpids[i])
				wstatus[i] = WIFEXITED(status) ? WEXITSTATUS(status) :
								  128 + WTERMSIG(status);
			else
				running++;
		}
		if (!running)
			break;
		if (now() > deadline + 120) {
			for (i = 0; i < workers; i++) {
				if (wstatus[i] >= 0)
					continue;
				violation(st, "worker %u still running 120 s after the deadline",
					  i);
				kill(wpids[i], SIGKILL);
			}
			break;
		}
		usleep(100 * 1000);
	}
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELAXED);
	pthread_join(purger, NULL);
	for (i = 0; i < hogs; i++) {
		if (hpids[i] > 0) {
			kill(hpids[i], SIGKILL);
			waitpid(hpids[i], NULL, 0);
		}
	}
	for (i = 0; i < workers; i++)
		if (wstatus[i] > 0)
			violation(st, "worker %u ended with status %d", i, wstatus[i]);
	/* Both purge paths must have run, or the stress tested neither. */
	if (!st->was_purged_by_reclaim)
		violation(st, "reclaim purged nothing a PIN saw");
	if (!st->purge_all_calls)
		violation(st, "PURGE_ALL_CACHES never ran");

	for (i = 0; i < NR_SOPS; i++)
		total_ops += st->ops[i];
	ksft_print_msg("ran %.1f s: %lu operations\n", now() - start, total_ops);
	for (i = 0; i < NR_SOPS; i++)
		ksft_print_msg("  %-16s %lu\n", sop_names[i], st->ops[i]);
	/* "By reclaim": before any PURGE_ALL_CACHES. */
	ksft_print_msg("PIN said WAS_PURGED %lu times (%lu by reclaim), NOT_PURGED %lu times\n",
		       st->was_purged, st->was_purged_by_reclaim, st->not_purged);
	ksft_print_msg("%lu pages read back as zeros\n", st->pages_purged);
	ksft_print_msg("PURGE_ALL_CACHES: %lu calls, %lu pages; drop_caches %lu; PIN ENOMEM %lu\n",
		       st->purge_all_calls, st->purge_all_pages,
		       st->drop_caches_calls, st->pin_enomem);
	ksft_print_msg("memory hogs: %lu rounds, %lu killed, peak %lu MiB\n",
		       st->hog_rounds, st->hog_deaths, st->hog_peak_mib);
	ksft_print_msg("violations: %lu\n", st->violations);
	for (i = 0; i < LOG_LINES && i < st->log_next; i++)
		printf("%s\n", st->log[i]);

	ok = !st->violations && st->ops[S_PIN] > 0;
	if (!st->ops[S_PIN])
		ksft_print_msg("no PIN ran: the stress did nothing\n");
	ksft_test_result(ok, "ashmem_stress\n");
	ksft_finished();
}
