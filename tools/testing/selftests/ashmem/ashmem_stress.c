// SPDX-License-Identifier: GPL-2.0
/*
 * Stress for /dev/ashmem under real memory pressure, bounded in time.
 *
 *   ashmem_stress [-t SECONDS] [-w WORKERS] [-T THREADS] [-H HOGS] [-s SEED] [-e]
 *
 * WORKERS processes of THREADS threads each create areas (sometimes in a
 * child that passes the fd back over a unix socket), write patterns derived
 * from the area id, the page and a per-page generation, unpin and pin random
 * ranges, map and unmap, read with pread(), fork children that check the
 * areas through inherited mappings and through fds passed over a socket,
 * and close (sometimes keeping the mapping).  HOGS memory hogs keep memory
 * nearly full so that reclaim runs the ashmem shrinker (start_memory_hog()).
 * For the first half of the time only reclaim purges; then a thread also
 * calls PURGE_ALL_CACHES and drops slab caches (which runs the shrinker
 * directly).
 *
 * Invariants, checked all the time:
 *  - a pinned page always holds its pattern (through a mapping or pread());
 *  - after PIN, every page of the range holds its pattern or reads as all
 *    zeros (purged); if PIN said NOT_PURGED every page holds its pattern;
 *    if it said WAS_PURGED some page of the range was unpinned and reads as
 *    zeros;
 *  - GET_PIN_STATUS and the fdinfo page counts agree with the model;
 *  - after the last fd is closed, a mapping still shows pinned data;
 *  - PURGE_ALL_CACHES succeeds, and with -e no PIN fails with ENOMEM.
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
#include "ashmem_util.h"

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
	S_FORK_CHECK, S_PASS_FD_CHECK, S_PUNCH, NR_SOPS
};

/* Shared by every process of the run. */
struct stats {
	unsigned long ops[NR_SOPS];
	unsigned long was_purged, was_purged_by_reclaim, not_purged;
	unsigned long pages_purged, pin_enomem;
	unsigned long purge_all_calls, purge_all_pages, drop_caches_calls;
	unsigned long violations;
	uint64_t purge_from, deadline;	/* now_ns() */
	int stop;		/* these two: __atomic */
	int purger_started;
	bool strict;		/* -e: a PIN failing with ENOMEM is a violation */
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
	struct area areas[AREAS];
	char *ref;		/* one page: the expected contents */
	char *buf;		/* one page: pread() target */
};

static size_t page_size;
static unsigned int sop_weights[NR_SOPS];	/* sops[].weight */

static void add(unsigned long *counter, unsigned long n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static bool running(struct stats *st, uint64_t until)
{
	return !__atomic_load_n(&st->stop, __ATOMIC_RELAXED) && now_ns() < until;
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

/* The expected contents of page @i: a header, then one repeated byte. */
static void make_page(char *dst, struct area *a, size_t i)
{
	uint32_t hdr[4] = { a->id, (uint32_t)i, a->gen[i], 0xa5a5a5a5 };

	memset(dst, 1 + (a->id * 131 + i * 31 + a->gen[i] * 7) % 255, page_size);
	memcpy(dst, hdr, sizeof(hdr));
}

enum kind { K_PATTERN, K_ZERO, K_OTHER };

/*
 * What page @i holds, read through the mapping or with pread().  Through a
 * mapping the whole page counts; pread() stops at the end of the area.
 */
static enum kind classify(struct thread *t, struct area *a, size_t i)
{
	size_t len = page_size;
	const char *p;

	if (!a->map && (i + 1) * page_size > a->size)
		len = a->size - i * page_size;
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
	return all_bytes(p, 0, len) ? K_ZERO : K_OTHER;
}

static void fill_page(struct area *a, size_t i)
{
	make_page(a->map + i * page_size, a, i);
}

enum { UNMAPPED, MAPPED, EITHER, FREE };

/*
 * The area an operation works on: the first free slot, or an area of ours,
 * starting at a random one, that is mapped, not mapped or EITHER.
 */
static struct area *pick_area(struct thread *t, int want)
{
	unsigned int start = want == FREE ? 0 : below(&t->rng, AREAS), i;

	for (i = 0; i < AREAS; i++) {
		struct area *a = &t->areas[(start + i) % AREAS];

		if (want == FREE ? a->fd < 0 :
		    a->fd >= 0 && (want == EITHER || want == !!a->map))
			return a;
	}
	return NULL;
}

/*
 * A random range [*first, *first + *n); *n == 0 sometimes: to the end.
 * Returns the page after the range.
 */
static size_t pick_range(struct thread *t, struct area *a, size_t *first,
			 size_t *n)
{
	*first = below(&t->rng, a->npages);
	*n = 0;
	if (below(&t->rng, 10) != 0)
		*n = 1 + below(&t->rng, a->npages - *first < 48 ? a->npages - *first : 48);
	return *n ? *first + *n : a->npages;
}

static void new_area_shape(struct thread *t, struct area *a)
{
	a->id = (t->worker << 24) | (t->index << 20) | (t->next_id++ & 0xfffff);
	a->npages = 1 + below(&t->rng, MAX_PAGES);
	a->size = a->npages * page_size;
	if (below(&t->rng, 4) == 0)
		a->size -= below(&t->rng, page_size / 2);
	memset(a->gen, 0, sizeof(a->gen));
	memset(a->unpinned, 0, sizeof(a->unpinned));
}

static char *map_area(struct area *a)
{
	char *p = mmap(NULL, a->npages * page_size, PROT_RW, MAP_SHARED, a->fd, 0);

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

/* fork(), a violation if it fails: the hogs must not starve the workers. */
static pid_t fork_checked(struct stats *st, int *sv)
{
	pid_t pid;

	/* With @sv, a unix socket pair between parent and child. */
	if (sv && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		violation(st, "socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		violation(st, "fork: %s", strerror(errno));
		if (sv) {
			close(sv[0]);
			close(sv[1]);
		}
	}
	return pid;
}

/* Creates, maps and fills an area of @a's shape: NULL, or what failed. */
static const char *make_area(struct area *a)
{
	const char *failed = "SET_*";
	char name[32];
	size_t i;

	snprintf(name, sizeof(name), "stress-%08x", a->id);
	a->fd = open(ASHMEM_DEV, O_RDWR | O_CLOEXEC);
	if (a->fd < 0)
		return "open";
	a->map = NULL;
	if (!ioctl(a->fd, ASHMEM_SET_NAME, name) && !set_size(a->fd, a->size) &&
	    !set_prot_mask(a->fd, PROT_RW)) {
		failed = "mmap";
		a->map = map_area(a);
	}
	if (!a->map) {
		close(a->fd);
		a->fd = -1;
		return failed;
	}
	for (i = 0; i < a->npages; i++)
		fill_page(a, i);
	return NULL;
}

static bool op_create(struct thread *t, struct area *a)
{
	const char *failed;

	new_area_shape(t, a);
	failed = make_area(a);
	if (failed)
		violation(t->st, "create: %s failed: %s", failed, strerror(errno));
	return !failed;
}

/* A child creates and fills the area, and sends us the fd. */
static bool op_create_in_child(struct thread *t, struct area *a)
{
	int sv[2], status;
	char byte;
	pid_t pid;

	new_area_shape(t, a);
	pid = fork_checked(t->st, sv);
	if (pid < 0)
		return false;
	if (pid == 0) {
		alarm(60);
		if (make_area(a))
			_exit(2);
		_exit(send_fd(sv[0], a->fd, "", 1) ? 3 : 0);
	}
	close(sv[0]);
	a->fd = recv_fd(sv[1], &byte, 1);
	close(sv[1]);
	status = wait_child(pid);
	if (status || a->fd < 0) {
		violation(t->st, "create in child: child status %d, fd %d", status, a->fd);
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return false;
	}
	/* The child's mapping is gone; the data must not be. */
	a->map = below(&t->rng, 2) ? map_area(a) : NULL;
	verify_pinned(t, a, "created by a child");
	return true;
}

static bool op_write(struct thread *t, struct area *a)
{
	int k;

	for (k = 1 + below(&t->rng, 8); k > 0; k--) {
		size_t i = below(&t->rng, a->npages);

		if (a->unpinned[i])
			continue;
		a->gen[i]++;
		fill_page(a, i);
	}
	return true;
}

/*
 * MADV_REMOVE of pinned pages, while reclaim and PURGE_ALL_CACHES punch
 * the unpinned ones of the same area: the page reads back as zeros, and
 * is written again so that the model still holds.
 */
static bool op_punch(struct thread *t, struct area *a)
{
	size_t first, n, i, end;

	end = pick_range(t, a, &first, &n);
	for (i = first; i < end; i++) {
		char *pg = a->map + i * page_size;

		if (a->unpinned[i])
			continue;
		if (madvise(pg, page_size, MADV_REMOVE)) {
			violation(t->st, "MADV_REMOVE area %08x page %zu: %s",
				  a->id, i, strerror(errno));
			return false;
		}
		if (!all_bytes(pg, 0, page_size))
			violation(t->st, "area %08x page %zu not zero after MADV_REMOVE",
				  a->id, i);
		fill_page(a, i);
	}
	return true;
}

static bool op_unpin(struct thread *t, struct area *a)
{
	size_t first, n, i, end;

	end = pick_range(t, a, &first, &n);
	if (pin_pages(a->fd, ASHMEM_UNPIN, first, n)) {
		violation(t->st, "UNPIN %zu+%zu of %zu pages: %s", first, n,
			  a->npages, strerror(errno));
		return false;
	}
	for (i = first; i < end; i++)
		a->unpinned[i] = true;
	return true;
}

static bool op_pin(struct thread *t, struct area *a)
{
	size_t first, n, i, end, zeroed = 0, was_unpinned = 0;
	char *map, *tmp = NULL;
	bool purger;
	int ret;

	end = pick_range(t, a, &first, &n);
	purger = __atomic_load_n(&t->st->purger_started, __ATOMIC_RELAXED);
	ret = pin_pages(a->fd, ASHMEM_PIN, first, n);
	if (ret < 0) {
		if (errno == ENOMEM && !t->st->strict) {
			add(&t->st->pin_enomem, 1);
			return false;
		}
		violation(t->st, "PIN %zu+%zu of %zu pages: %s", first, n,
			  a->npages, strerror(errno));
		return false;
	}
	if (ret != ASHMEM_WAS_PURGED && ret != ASHMEM_NOT_PURGED) {
		violation(t->st, "PIN returned %d", ret);
		return false;
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
		if (!a->map && !tmp)
			tmp = map_area(a);
		map = a->map ? a->map : tmp;
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
	return true;
}

static bool op_status(struct thread *t, struct area *a)
{
	size_t first, n, i, end;
	int ret, expect = ASHMEM_IS_PINNED;

	end = pick_range(t, a, &first, &n);
	for (i = first; i < end; i++)
		if (a->unpinned[i])
			expect = ASHMEM_IS_UNPINNED;
	ret = pin_pages(a->fd, ASHMEM_GET_PIN_STATUS, first, n);
	if (ret != expect)
		violation(t->st, "GET_PIN_STATUS area %08x pages %zu-%zu: %d, expected %d",
			  a->id, first, end - 1, ret, expect);
	return true;
}

static bool op_fdinfo(struct thread *t, struct area *a)
{
	struct page_counts c;
	size_t i, model = 0;

	for (i = 0; i < a->npages; i++)
		model += !a->unpinned[i];
	/* One read of fdinfo: a consistent snapshot. */
	if (page_counts(a->fd, &c) || c.pinned != (long long)model ||
	    c.pinned + c.unpinned + c.purged != (long long)a->npages)
		violation(t->st,
			  "fdinfo of area %08x: pinned %lld unpinned %lld purged %lld, expected %zu pinned of %zu",
			  a->id, c.pinned, c.unpinned, c.purged, model, a->npages);
	return true;
}

static bool op_munmap(struct thread *t, struct area *a)
{
	munmap(a->map, a->npages * page_size);
	a->map = NULL;
	return true;
}

static bool op_remap(struct thread *t, struct area *a)
{
	a->map = map_area(a);
	if (!a->map) {
		violation(t->st, "mmap of area %08x again: %s", a->id, strerror(errno));
		return false;
	}
	verify_pinned(t, a, "mapped again");
	return true;
}

static bool op_pread(struct thread *t, struct area *a)
{
	char *map = a->map;

	a->map = NULL;		/* classify() reads with pread() */
	verify_pinned(t, a, "pread");
	a->map = map;
	return true;
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

static bool op_close(struct thread *t, struct area *a)
{
	close_area(t, a, false);
	return true;
}

static bool op_close_keep_map(struct thread *t, struct area *a)
{
	close_area(t, a, true);
	return true;
}

/* A child checks an area through what it inherited. */
static bool op_fork_check(struct thread *t, struct area *a)
{
	int status;
	pid_t pid;

	pid = fork_checked(t->st, NULL);
	if (pid < 0)
		return false;
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
			ret = pin_pages(a->fd, ASHMEM_GET_PIN_STATUS, i, 1);
			if (ret != expect)
				violation(t->st, "forked child: page %zu status %d, expected %d",
					  i, ret, expect);
		}
		_exit(t->st->violations != before);
	}
	status = wait_child(pid);
	if (status > 1)
		violation(t->st, "fork check: child status %d", status);
	return true;
}

/* A child gets the area over a unix socket, maps it read-only and checks. */
static bool op_pass_fd_check(struct thread *t, struct area *a)
{
	int sv[2], status;
	char byte;
	pid_t pid;

	pid = fork_checked(t->st, sv);
	if (pid < 0)
		return false;
	if (pid == 0) {
		unsigned long before = t->st->violations;

		alarm(60);
		close(a->fd);
		if (a->map)
			munmap(a->map, a->npages * page_size);
		a->fd = recv_fd(sv[1], &byte, 1);
		if (a->fd < 0)
			_exit(2);
		a->map = mmap(NULL, a->npages * page_size, PROT_READ, MAP_SHARED, a->fd, 0);
		if (a->map == MAP_FAILED)
			_exit(3);
		verify_pinned(t, a, "passed fd, read-only mapping");
		_exit(t->st->violations != before);
	}
	if (send_fd(sv[0], a->fd, "", 1))
		violation(t->st, "sendmsg(SCM_RIGHTS): %s", strerror(errno));
	close(sv[0]);
	close(sv[1]);
	status = wait_child(pid);
	if (status > 1)
		violation(t->st, "pass fd check: child status %d", status);
	return true;
}

static bool op_verify(struct thread *t, struct area *a)
{
	verify_pinned(t, a, "verify");
	return true;
}

/* How often each runs, and on which area; it returns whether it ran. */
static const struct {
	const char *name;
	unsigned int weight;
	bool (*fn)(struct thread *t, struct area *a);
	int want;		/* see pick_area() */
} sops[NR_SOPS] = {
	[S_CREATE] = { "create", 6, op_create, FREE },
	[S_CREATE_CHILD] = { "create_in_child", 2, op_create_in_child, FREE },
	[S_WRITE] = { "write", 10, op_write, MAPPED },
	[S_VERIFY] = { "verify", 4, op_verify, MAPPED },
	[S_UNPIN] = { "unpin", 20, op_unpin, EITHER },
	[S_PIN] = { "pin", 20, op_pin, EITHER },
	[S_STATUS] = { "pin_status", 6, op_status, EITHER },
	[S_FDINFO] = { "fdinfo", 2, op_fdinfo, EITHER },
	[S_MUNMAP] = { "munmap", 3, op_munmap, MAPPED },
	[S_REMAP] = { "remap", 4, op_remap, UNMAPPED },
	[S_PREAD] = { "pread", 4, op_pread, EITHER },
	[S_CLOSE] = { "close", 3, op_close, EITHER },
	[S_CLOSE_KEEP_MAP] = { "close_keep_map", 2, op_close_keep_map, MAPPED },
	[S_FORK_CHECK] = { "fork_check", 1, op_fork_check, EITHER },
	[S_PASS_FD_CHECK] = { "pass_fd_check", 1, op_pass_fd_check, EITHER },
	[S_PUNCH] = { "punch", 4, op_punch, MAPPED },
};

static void *worker_thread(void *arg)
{
	struct thread *t = arg;
	unsigned int i;

	while (running(t->st, t->st->deadline)) {
		unsigned int op = pick_weighted(&t->rng, sop_weights, NR_SOPS);
		struct area *a = pick_area(t, sops[op].want);

		if (a && sops[op].fn(t, a))
			add(&t->st->ops[op], 1);
	}
	for (i = 0; i < AREAS; i++)
		if (t->areas[i].fd >= 0)
			close_area(t, &t->areas[i], below(&t->rng, 2));
	return NULL;
}

static int run_worker(struct stats *st, unsigned int worker, unsigned int threads,
		      uint64_t seed)
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
		t->rng = (seed ^ ((uint64_t)worker << 32 | i << 16)) * 0x9e3779b97f4a7c15ULL + 1;
		t->ref = mmap(NULL, 2 * page_size, PROT_RW,
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

/* From half time on: PURGE_ALL_CACHES, and now and then the shrinker. */
static void *purger_thread(void *arg)
{
	struct stats *st = arg;
	unsigned long k = 0;
	int fd;

	while (running(st, st->purge_from))
		usleep(50 * 1000);
	fd = open(ASHMEM_DEV, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	__atomic_store_n(&st->purger_started, 1, __ATOMIC_RELAXED);
	while (running(st, st->deadline)) {
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

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-t SECONDS] [-w WORKERS] [-T THREADS] [-H HOGS] [-s SEED] [-e]\n"
		"  defaults: 60 s, 2 worker processes of 2 threads, 2 memory hogs\n"
		"  -e: a PIN that fails with ENOMEM is a violation\n",
		prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned int workers = 2, threads = 2, hogs = 2, i;
	uint64_t seed = (uint64_t)time(NULL) ^ getpid();
	pid_t wpids[MAX_WORKERS], hpids[MAX_HOGS];
	int wstatus[MAX_WORKERS];
	unsigned long total_ops = 0;
	bool strict = false, ok;
	double seconds = 60;
	pthread_t purger;
	uint64_t start;
	struct stats *st;
	int opt;

	while ((opt = getopt(argc, argv, "t:w:T:H:s:eh")) != -1) {
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
		case 'e':
			strict = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!workers || workers > MAX_WORKERS || !threads ||
	    threads > MAX_THREADS || hogs > MAX_HOGS || seconds <= 0)
		usage(argv[0]);
	page_size = sysconf(_SC_PAGESIZE);
	for (i = 0; i < NR_SOPS; i++)
		sop_weights[i] = sops[i].weight;

	ksft_start_one();

	st = mmap(NULL, sizeof(*st), PROT_RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	st->strict = strict;

	/* The workers and this supervisor must outlive the hogs. */
	write_file("/proc/self/oom_score_adj", "-1000");
	ksft_print_msg("%.0f s, %u workers x %u threads, %u hogs, seed %llu, MemTotal %ld kB\n",
		       seconds, workers, threads, hogs, (unsigned long long)seed,
		       meminfo_kb("MemTotal"));

	start = now_ns();
	st->purge_from = start + seconds * 0.5e9;
	st->deadline = start + seconds * 1e9;
	for (i = 0; i < hogs; i++)
		hpids[i] = start_memory_hog();
	for (i = 0; i < workers; i++) {
		fflush(NULL);
		wpids[i] = fork();
		if (wpids[i] == 0)
			_exit(run_worker(st, i, threads, seed));
	}
	if (pthread_create(&purger, NULL, purger_thread, st))
		ksft_exit_fail_msg("pthread_create failed\n");

	/* Wait for the workers; one stuck in the kernel is a failure. */
	wait_children(wpids, wstatus, workers, st->deadline + 120 * 1000000000ULL);
	for (i = 0; i < workers; i++)
		if (wstatus[i] < 0)
			violation(st, "worker %u still running 120 s after the deadline", i);
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELAXED);
	pthread_join(purger, NULL);
	for (i = 0; i < hogs; i++)
		stop_child(hpids[i]);
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
	ksft_print_msg("ran %.1f s: %lu operations\n", (now_ns() - start) / 1e9, total_ops);
	for (i = 0; i < NR_SOPS; i++)
		ksft_print_msg("  %-16s %lu\n", sops[i].name, st->ops[i]);
	/* "By reclaim": before any PURGE_ALL_CACHES. */
	ksft_print_msg("PIN said WAS_PURGED %lu times (%lu by reclaim), NOT_PURGED %lu times\n",
		       st->was_purged, st->was_purged_by_reclaim, st->not_purged);
	ksft_print_msg("%lu pages read back as zeros\n", st->pages_purged);
	ksft_print_msg("PURGE_ALL_CACHES: %lu calls, %lu pages; drop_caches %lu; PIN ENOMEM %lu\n",
		       st->purge_all_calls, st->purge_all_pages,
		       st->drop_caches_calls, st->pin_enomem);
	ksft_print_msg("violations: %lu\n", st->violations);
	for (i = 0; i < LOG_LINES && i < st->log_next; i++)
		printf("%s\n", st->log[i]);

	ok = !st->violations && st->ops[S_PIN] > 0;
	if (!st->ops[S_PIN])
		ksft_print_msg("no PIN ran: the stress did nothing\n");
	ksft_test_result(ok, "ashmem_stress\n");
	ksft_finished();
}
