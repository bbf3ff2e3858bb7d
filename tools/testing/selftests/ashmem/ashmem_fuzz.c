// SPDX-License-Identifier: GPL-2.0
/*
 * A randomized fuzzer for /dev/ashmem that checks every answer: the ashmem
 * ioctls and random ioctl numbers with random arguments (bad pointers, edge
 * sizes), mixed with mmap, munmap, mprotect, madvise, remap_file_pages,
 * read, lseek, fdinfo, dup, fd passing, fork and close.
 *
 *   ashmem_fuzz [-s SEED] [-t SECONDS] [-n OPERATIONS] [-p PROCESSES] [-v]
 *
 * Worker i runs with seed SEED + i for SECONDS, or OPERATIONS if that comes
 * first: "-p 1 -s SEED -n N" replays the first N operations of one.  Each
 * models its areas as Documentation/userspace-api/ashmem.rst describes them
 * and checks every result, errno, fdinfo and /proc/self/maps against the
 * model; where the documentation allows several answers (PIN of unpinned
 * pages, ENOMEM, SEEK_DATA), each is accepted.  Unpinned pages may be purged
 * at any time, by reclaim or another worker's PURGE_ALL_CACHES.  Pointers the
 * kernel may write through point into a scratch buffer or into the worker's
 * ashmem mappings, never into its state.
 *
 * It fails at the first answer the model does not allow, if a worker dies of
 * a signal, if touching a mapping the driver accepted faults, or if a kind
 * of operation succeeded less often than its minimum rate: a fuzzer whose
 * operations stopped succeeding tests nothing.  Kernel reports (KASAN,
 * lockdep, WARNING) are for the harness to find in the kernel log.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/capability.h>

#include "../kselftest.h"
#include "ashmem_util.h"

#define MAX_AREAS	8	/* descriptors a worker holds */
#define MAX_MAPS	16
/* Areas alive at once: each held by a descriptor or a MAP_PRIVATE mapping. */
#define MAX_MODELS	(MAX_AREAS + MAX_MAPS)
#define MAX_MAP_PAGES	64
#define SCRATCH_PAGES	4
#define MAX_RUNS	32
#define CANARY		0x5a	/* after the name GET_NAME must write */

/* kinds[]: the operations, then each ashmem ioctl by its number. */
enum op {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_PASS_FD, OP_ASHMEM_IOCTL, OP_RANDOM_IOCTL,
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_TOUCH, OP_READ, OP_LSEEK,
	OP_MADVISE, OP_REMAP, OP_FORK, OP_PURGE, OP_FDINFO, NR_OPS
};

#define NR_IOCTLS	11
#define NR_KINDS	(NR_OPS + NR_IOCTLS)
#define IOCTL_KIND(cmd)	(NR_OPS + _IOC_NR(cmd) - 1)

/* What a worker did; @unpinned: the most its areas ever had unpinned. */
struct stats {
	unsigned long calls[NR_KINDS], ok[NR_KINDS];
	unsigned long ops, failures, enomem, merged, purge_wrapped;
	uint64_t unpinned;
	double secs;
};

/* Unpinned pages [@first, @last] of an area. */
struct run {
	uint64_t first, last;
};

/* An area (open file description), shared with forked children. */
struct area {
	int mode;		/* O_RDONLY, O_WRONLY or O_RDWR */
	bool mapped;		/* the first mmap() created the backing file */
	char name[ASHMEM_NAME_LEN];	/* empty: never named, or named "" */
	uint64_t size;
	unsigned long prot_mask;
	unsigned long long ino;	/* of the backing file, once mapped */
	int64_t pos;		/* the file position */
	bool runs_lost;		/* more unpinned runs than @runs holds */
	unsigned int nr_runs;
	struct run runs[MAX_RUNS];	/* sorted, neither touching nor overlapping */
};

struct mapping {
	char *addr;
	size_t len;		/* bytes, a multiple of the page size */
	int prot;
	int may;		/* the PROT_* bits mprotect() may give it, -1: unknown */
	bool shared;
	struct area *area;	/* NULL once the area is gone */
	uint64_t pgoff;
};

/*
 * A pointer argument: the kernel can read @rd bytes there and write @wr, then
 * faults.  @bad: no memory of ours, which a syscall may refuse before
 * anything else (access_ok()).  @stable: no purge changes the memory, so we
 * read what the kernel reads, and what it wrote stays.
 */
struct uptr {
	unsigned long addr;
	size_t rd, wr;
	bool bad, stable;
};

struct worker {
	uint64_t rng;
	uint64_t seed;
	unsigned long n;	/* operations run */
	int fds[MAX_AREAS];
	struct area *fd_area[MAX_AREAS];
	struct area *areas;	/* MAX_MODELS, shared with forked children */
	int refs[MAX_MODELS];	/* our descriptors and MAP_PRIVATE mappings */
	struct mapping maps[MAX_MAPS];
	char *scratch;		/* SCRATCH_PAGES writable pages */
	char *ro;		/* one read-only page, then a writable one */
	char *hole;		/* end of that page, before an inaccessible one */
	struct stats *st;
	unsigned long failures;
	bool child;
};

/* An operation, with its relative @weight, or an ioctl with its @check. */
static const struct kind {
	const char *name;
	unsigned int weight;
	double min_rate;	/* successes a second, see the table */
	bool (*op)(struct worker *w);
	unsigned long cmd;
	bool (*check)(struct worker *w, int fd, struct area *a, unsigned long cmd);
} kinds[NR_KINDS];

static size_t page_size;
static struct stats *workers;	/* all of them */
static int nr_workers;
/* What the kernel and this process are: see probe_environment(). */
static uint64_t max_size;
static bool read_implies_exec, noexec, admin;

static bool chance(struct worker *w, unsigned int percent)
{
	return below(&w->rng, 100) < percent;
}

static bool failure(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	printf("# seed %llu, operation %lu%s: ", (unsigned long long)w->seed,
	       w->n + 1, w->child ? " (forked child)" : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	w->failures++;
	return false;
}

/* A syscall's result as the kernel returned it: the value, or -errno. */
static long long kres(long long ret)
{
	return ret == -1 ? -errno : ret;
}

static const char *res_str(long long res, char *buf, size_t len)
{
	if (res < 0 && res >= -4095)
		snprintf(buf, len, "-1 (%s)", strerror(-res));
	else
		snprintf(buf, len, "%lld", res);
	return buf;
}

/* Is @res what the model wants?  @fmt... names the call. */
static bool expect(struct worker *w, long long res, long long want,
		   const char *fmt, ...)
{
	char what[512], got[64], model[64];
	va_list ap;

	if (res == want)
		return true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return failure(w, "%s: %s, the model says %s", what,
		       res_str(res, got, sizeof(got)),
		       res_str(want, model, sizeof(model)));
}

static uint64_t area_pages(const struct area *a)
{
	return a->size / page_size + !!(a->size % page_size);
}

static bool readable(const struct area *a)
{
	return (a->mode & O_ACCMODE) != O_WRONLY;
}

static bool writable(const struct area *a)
{
	return (a->mode & O_ACCMODE) != O_RDONLY;
}

/* Pin state: the runs of unpinned pages. */

static bool runs_any(const struct area *a, uint64_t first, uint64_t last)
{
	unsigned int i;

	for (i = 0; i < a->nr_runs; i++)
		if (a->runs[i].first <= last && a->runs[i].last >= first)
			return true;
	return false;
}

/* Does [@first, @last] lie inside a run, with pages of it on both sides? */
static bool runs_inside(const struct area *a, uint64_t first, uint64_t last)
{
	unsigned int i;

	for (i = 0; i < a->nr_runs; i++)
		if (a->runs[i].first < first && a->runs[i].last > last)
			return true;
	return false;
}

static uint64_t runs_pages(const struct area *a)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < a->nr_runs; i++)
		n += a->runs[i].last - a->runs[i].first + 1;
	return n;
}

/* The model's runs become @runs, or it loses track of them. */
static void runs_set(struct area *a, const struct run *runs, unsigned int n)
{
	if (n > MAX_RUNS) {
		a->runs_lost = true;
		return;
	}
	memcpy(a->runs, runs, n * sizeof(*runs));
	a->nr_runs = n;
}

/* PIN of pages [@first, @last]: the runs it covers lose those pages. */
static void runs_pin(struct area *a, uint64_t first, uint64_t last)
{
	struct run out[MAX_RUNS + 1];
	unsigned int i, n = 0;

	if (a->runs_lost) {
		/* All pinned again: the model knows the pin state again. */
		if (first == 0 && last == area_pages(a) - 1) {
			a->runs_lost = false;
			a->nr_runs = 0;
		}
		return;
	}
	for (i = 0; i < a->nr_runs; i++) {
		struct run r = a->runs[i];

		if (r.last < first || r.first > last) {
			out[n++] = r;
			continue;
		}
		if (r.first < first)
			out[n++] = (struct run){ r.first, first - 1 };
		if (r.last > last)
			out[n++] = (struct run){ last + 1, r.last };
	}
	runs_set(a, out, n);
}

/* UNPIN of pages [@first, @last]: one run with every run it touches. */
static void runs_unpin(struct area *a, uint64_t first, uint64_t last)
{
	struct run out[MAX_RUNS + 1];
	unsigned int i, n = 0;
	bool placed = false;

	if (a->runs_lost)
		return;
	for (i = 0; i < a->nr_runs; i++) {
		struct run r = a->runs[i];

		if (r.last + 1 < first) {
			out[n++] = r;
		} else if (r.first > last + 1) {
			if (!placed)
				out[n++] = (struct run){ first, last };
			placed = true;
			out[n++] = r;
		} else {
			first = r.first < first ? r.first : first;
			last = r.last > last ? r.last : last;
		}
	}
	if (!placed)
		out[n++] = (struct run){ first, last };
	runs_set(a, out, n);
}

/*
 * The pages [*@first, *@last] that @pin names, or false if PIN, UNPIN and
 * GET_PIN_STATUS must refuse it with EINVAL.
 */
static bool pin_range(const struct area *a, const struct ashmem_pin *pin,
		      uint64_t *first, uint64_t *last)
{
	uint64_t pages = area_pages(a);

	if ((pin->offset | pin->len) & (page_size - 1) || !a->mapped ||
	    (uint64_t)pin->offset + pin->len > UINT32_MAX)
		return false;
	*first = pin->offset / page_size;
	if (!pin->len && *first >= pages)
		return false;
	*last = pin->len ? *first + pin->len / page_size - 1 : pages - 1;
	return *last < pages;
}

/* The areas: their models, and who holds them. */

static struct area *new_area(struct worker *w, int mode)
{
	int i;

	for (i = 0; w->refs[i]; i++)
		;
	w->refs[i] = 1;
	memset(&w->areas[i], 0, sizeof(w->areas[i]));
	w->areas[i].mode = mode;
	w->areas[i].prot_mask = PROT_RWX;
	return &w->areas[i];
}

static void get_area(struct worker *w, struct area *a)
{
	w->refs[a - w->areas]++;
}

/* Gone with its last fd or private mapping; its shared mappings stay, unpurged. */
static void put_area(struct worker *w, struct area *a)
{
	int i;

	if (--w->refs[a - w->areas])
		return;
	for (i = 0; i < MAX_MAPS; i++)
		if (w->maps[i].area == a)
			w->maps[i].area = NULL;
}

/* Can a purge change the bytes [@off, @off + @len) of @m? */
static bool map_stable(const struct mapping *m, size_t off, size_t len)
{
	const struct area *a = m->area;

	if (!m->shared || !a)
		return true;
	return !a->runs_lost &&
	       !runs_any(a, m->pgoff + off / page_size,
			 m->pgoff + (off + len - 1) / page_size);
}

/* A size: mostly small, sometimes an edge. */
static uint64_t rnd_size(struct worker *w)
{
	static const uint64_t edges[] = {
		0, 1, 4095, 4096, 4097, 0x7fffffff, 0x80000000, 0xfffff000,
		0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0xfffffffffffff001ULL, ~0ULL,
	};

	switch (below(&w->rng, 6)) {
	case 0:
		return edges[below(&w->rng, ARRAY_SIZE(edges))];
	case 1:
		return rnd(&w->rng);
	case 2:
		return below(&w->rng, MAX_MAP_PAGES * page_size);
	default:
		return (1 + below(&w->rng, MAX_MAP_PAGES)) * page_size;
	}
}

/* A 32-bit offset or length for struct ashmem_pin. */
static uint32_t rnd_pin_field(struct worker *w)
{
	static const uint32_t edges[] = {
		0, 1, 4095, 4096, 0x7ffff000, 0x80000000, 0xfffff000, 0xffffffff,
	};

	switch (below(&w->rng, 5)) {
	case 0:
		return edges[below(&w->rng, ARRAY_SIZE(edges))];
	case 1:
		return (uint32_t)rnd(&w->rng);
	default:
		return below(&w->rng, MAX_MAP_PAGES + 4) * page_size;
	}
}

static bool in_scratch(struct worker *w, unsigned long addr)
{
	return addr >= (unsigned long)w->scratch &&
	       addr < (unsigned long)w->scratch + SCRATCH_PAGES * page_size;
}

/* @off bytes into the scratch buffer, which the read-only page follows. */
static struct uptr scratch_ptr(struct worker *w, size_t off)
{
	size_t wr = SCRATCH_PAGES * page_size - off;

	return (struct uptr){ (unsigned long)w->scratch + off, wr + 2 * page_size,
			      wr, false, true };
}

static struct uptr bad_ptr(unsigned long addr)
{
	return (struct uptr){ addr, 0, 0, true, true };
}

/*
 * A pointer argument: bad ones, or one into memory the kernel may read and
 * write (scratch, our ashmem mappings), or the read-only page, with @need
 * bytes after it if it can.  @reads: the kernel reads what it points to, so
 * in a mapping those bytes must be stable (we read what the kernel reads),
 * or not readable at all.
 */
static struct uptr rnd_ptr(struct worker *w, size_t need, bool reads)
{
	size_t off, len, end;
	struct mapping *m;
	bool stable;

	switch (below(&w->rng, 10)) {
	case 0:
		return bad_ptr(0);
	case 1:
		return bad_ptr((unsigned long)w->hole);
	case 2:
		return bad_ptr(kernel_addr());
	case 3:
		return bad_ptr(~0UL - below(&w->rng, 16));
	case 4:
		off = below(&w->rng, page_size);
		return (struct uptr){ (unsigned long)w->ro + off,
				      2 * page_size - off, 0, false, true };
	case 5:
		off = below(&w->rng, 300);
		return (struct uptr){ (unsigned long)w->hole - 1 - off,
				      off + 1, off + 1, false, true };
	case 6:
		m = &w->maps[below(&w->rng, MAX_MAPS)];
		if (!m->addr)
			break;
		len = need < m->len ? need : m->len;
		off = below(&w->rng, m->len - len + 1);
		end = m->len - off;
		stable = map_stable(m, off, len < end ? len + 1 : end);
		if (reads && m->prot && (!(m->prot & PROT_READ) || !stable))
			break;
		return (struct uptr){ (unsigned long)m->addr + off,
				      m->prot & PROT_READ ? end : 0,
				      m->prot & PROT_WRITE ? end : 0, false, stable };
	}
	/* Somewhere in the scratch buffer, with @need bytes after it. */
	if (need > SCRATCH_PAGES * page_size)
		need = SCRATCH_PAGES * page_size;
	return scratch_ptr(w, below(&w->rng, SCRATCH_PAGES * page_size - need + 1));
}

/* One of our areas, or a bad fd (*@a NULL); never someone else's descriptor. */
static int rnd_fd(struct worker *w, struct area **a)
{
	int i = below(&w->rng, MAX_AREAS), fd = w->fds[i];

	*a = w->fd_area[i];
	if (fd < 0 && chance(w, 5))
		return chance(w, 50) ? -1 : 1000 + (int)below(&w->rng, 24);
	return fd;
}

static int free_area_slot(struct worker *w)
{
	int i;

	for (i = 0; i < MAX_AREAS; i++)
		if (w->fds[i] < 0)
			return i;
	return -1;
}

static struct mapping *rnd_map(struct worker *w)
{
	struct mapping *m = &w->maps[below(&w->rng, MAX_MAPS)];

	return m->addr ? m : NULL;
}

static bool drop_map(struct worker *w, struct mapping *m)
{
	long long res = kres(munmap(m->addr, m->len));

	if (!m->shared && m->area)
		put_area(w, m->area);
	m->addr = NULL;
	m->area = NULL;
	return expect(w, res, 0, "munmap(%#zx)", m->len);
}

static bool close_slot(struct worker *w, int i)
{
	long long res = kres(close(w->fds[i]));

	put_area(w, w->fd_area[i]);
	w->fds[i] = -1;
	w->fd_area[i] = NULL;
	return expect(w, res, 0, "close()");
}

/* Touches every page of @m its protection allows; a fault is a failure. */
static void touch(struct worker *w, struct mapping *m)
{
	long bad;

	if (!(m->prot & PROT_READ))
		return;
	bad = touch_pages(m->addr, m->len / page_size, m->prot & PROT_WRITE);
	if (bad < 0)
		return;
	failure(w, "fault touching %p + %#zx (len %#zx, prot %d)",
		m->addr, bad * page_size, m->len, m->prot);
	/* The mapping is not trustworthy any more. */
	drop_map(w, m);
}

/*
 * fdinfo against the model: position, size, name, inode, and page counts
 * that add up to the size in pages.  A name with a newline would make lines
 * of its own: then only what comes before it is compared.
 */
static bool check_fdinfo(struct worker *w, int fd, struct area *a)
{
	char buf[2048], val[ASHMEM_NAME_LEN + 8];
	const char *name = a->name + strspn(a->name, " \t");
	uint64_t pages = area_pages(a), unpinned = runs_pages(a);
	size_t len = strcspn(name, "\n");
	struct page_counts c;

	if (fdinfo_read(fd, buf, sizeof(buf)))
		return failure(w, "fdinfo of fd %d cannot be read", fd);
	if (key_string(buf, "name", val, sizeof(val)))
		val[0] = '\0';
	if (strncmp(val, name, len) || strlen(val) != len)
		return failure(w, "fdinfo name \"%s\", the model says \"%s\"",
			       val, a->name);
	if (strchr(a->name, '\n'))
		return true;
	if (!expect(w, key_value(buf, "inode"), a->mapped ? (long long)a->ino : -1,
		    "fdinfo inode") ||
	    !expect(w, key_value(buf, "pos"), a->pos, "fdinfo pos") ||
	    !expect(w, key_value(buf, "size"), a->size, "fdinfo size"))
		return false;
	if (page_counts_of(buf, &c))
		return failure(w, "fdinfo has no page counts");
	if (c.pinned + c.unpinned + c.purged != (long long)pages ||
	    c.pinned < 0 || c.unpinned < 0 || c.purged < 0)
		return failure(w, "fdinfo pages %lld + %lld + %lld, the area has %llu",
			       c.pinned, c.unpinned, c.purged,
			       (unsigned long long)pages);
	if (!a->runs_lost && c.pinned != (long long)(pages - unpinned))
		return failure(w, "fdinfo pinned %lld, unpinned %lld + %lld; model: %llu",
			       c.pinned, c.unpinned, c.purged,
			       (unsigned long long)unpinned);
	return true;
}

/* /proc/self/maps: the protection, the backing file's name and inode. */
static bool check_maps(struct worker *w, struct mapping *m, struct area *a)
{
	char path[ASHMEM_NAME_LEN + 32], perms[5];
	struct maps_entry e;

	if (maps_find(m->addr, &e))
		return failure(w, "mapping %p is not in /proc/self/maps", m->addr);
	snprintf(perms, sizeof(perms), "%c%c%c%c", m->prot & PROT_READ ? 'r' : '-',
		 m->prot & PROT_WRITE ? 'w' : '-', m->prot & PROT_EXEC ? 'x' : '-',
		 m->shared ? 's' : 'p');
	if (strcmp(e.perms, perms))
		return failure(w, "mapping %p is %s in /proc/self/maps, the model says %s",
			       m->addr, e.perms, perms);
	if (!m->shared || strchr(a->name, '\n'))
		return true;
	snprintf(path, sizeof(path), "/%s%s%s (deleted)", ASHMEM_NAME_DEF,
		 a->name[0] ? "/" : "", a->name);
	if (strcmp(e.path, path) || e.inode != a->ino)
		return failure(w, "maps: %p is %s, inode %llu; the model says %s, %llu",
			       m->addr, e.path, e.inode, path, a->ino);
	return true;
}

/*
 * Before an UNPIN of @pages: the most the areas of the worker may have
 * unpinned, for other workers' PURGE_ALL_CACHES.
 */
static void unpinning(struct worker *w, uint64_t pages)
{
	uint64_t n = pages;
	int i;

	for (i = 0; i < MAX_MODELS; i++)
		if (w->refs[i])
			n += w->areas[i].runs_lost ? area_pages(&w->areas[i]) :
						      runs_pages(&w->areas[i]);
	if (n > w->st->unpinned)
		__atomic_store_n(&w->st->unpinned, n, __ATOMIC_RELEASE);
}

/* The ashmem ioctls, each checked against the model of a valid area. */

/* The name SET_NAME finds at @p as strncpy_from_user() reads it, or -1. */
static int user_name(const struct uptr *p, char *name)
{
	size_t max = p->rd < ASHMEM_NAME_LEN ? p->rd : ASHMEM_NAME_LEN;
	size_t len = max ? strnlen((const char *)p->addr, max) : 0;

	if (len == max && max < ASHMEM_NAME_LEN)
		return -1;
	if (len > ASHMEM_NAME_LEN - 1)
		len = ASHMEM_NAME_LEN - 1;
	memcpy(name, (const char *)p->addr, len);
	name[len] = '\0';
	return 0;
}

static bool ioctl_set_name(struct worker *w, int fd, struct area *a, unsigned long cmd)
{
	struct uptr p = rnd_ptr(w, ASHMEM_NAME_LEN + 8, true);
	char name[ASHMEM_NAME_LEN];
	long long res, want;

	if (in_scratch(w, p.addr)) {
		size_t len = below(&w->rng, p.wr < 300 ? p.wr : 300);
		char *s = (char *)p.addr;

		memset(s, 'a' + below(&w->rng, 26), len);
		if (chance(w, 90) && len)
			s[len - 1] = '\0';
	}
	want = user_name(&p, name) ? -EFAULT : a->mapped ? -EINVAL : 0;
	res = kres(xioctl(fd, ASHMEM_SET_NAME, p.addr));
	/* Both wrong: the documentation does not say which error comes first. */
	if (want == -EFAULT && a->mapped && res == -EINVAL)
		return false;
	if (!expect(w, res, want, "SET_NAME(%#lx)%s", p.addr,
		    a->mapped ? " after mmap" : "") || res)
		return false;
	memcpy(a->name, name, sizeof(name));
	return true;
}

static bool ioctl_get_name(struct worker *w, int fd, struct area *a, unsigned long cmd)
{
	struct uptr p = rnd_ptr(w, ASHMEM_NAME_LEN, false);
	const char *name = a->name[0] ? a->name : ASHMEM_NAME_DEF;
	size_t len = strlen(name) + 1;
	char *buf = (char *)p.addr;
	long long res;

	if (p.stable && p.wr > len)
		buf[len] = CANARY;
	res = kres(xioctl(fd, ASHMEM_GET_NAME, p.addr));
	if (!expect(w, res, p.wr < len ? -EFAULT : 0, "GET_NAME(%#lx) of %zu bytes",
		    p.addr, len))
		return false;
	if (res || !p.stable)
		return !res;
	if (memcmp(buf, name, len))
		return failure(w, "GET_NAME wrote \"%.*s\", the model says \"%s\"",
			       ASHMEM_NAME_LEN, buf, name);
	if (p.wr > len && buf[len] != CANARY)
		return failure(w, "GET_NAME wrote past the NUL of \"%s\"", name);
	return true;
}

static bool ioctl_set_size(struct worker *w, int fd, struct area *a, uint64_t size)
{
	long long res = kres(xioctl(fd, ASHMEM_SET_SIZE, (unsigned long)size));

	if (!expect(w, res, size > max_size || a->mapped ? -EINVAL : 0,
		    "SET_SIZE(%#llx)%s", (unsigned long long)size,
		    a->mapped ? " after mmap" : "") || res)
		return false;
	a->size = size;
	return true;
}

static bool ioctl_set_rnd_size(struct worker *w, int fd, struct area *a,
			       unsigned long cmd)
{
	return ioctl_set_size(w, fd, a, (size_t)rnd_size(w));
}

/*
 * GET_SIZE returns the size, but ioctl(2) returns an int, in the kernel
 * already: only the low 32 bits come back, and when they are -4095 to -1
 * they look like an error.  fdinfo has the whole size.
 */
static bool ioctl_get_size(struct worker *w, int fd, struct area *a, unsigned long cmd)
{
	long long res = kres(xioctl(fd, ASHMEM_GET_SIZE, rnd(&w->rng)));

	if ((uint32_t)res != (uint32_t)a->size)
		return failure(w, "GET_SIZE: %#x, the model says %#llx",
			       (uint32_t)res, (unsigned long long)a->size);
	return true;
}

static bool ioctl_get_prot_mask(struct worker *w, int fd, struct area *a,
				unsigned long cmd)
{
	return expect(w, kres(xioctl(fd, cmd, rnd(&w->rng))), a->prot_mask,
		      "GET_PROT_MASK");
}

static bool ioctl_set_prot_mask(struct worker *w, int fd, struct area *a,
				unsigned long cmd)
{
	unsigned long prot = chance(w, 80) ? below(&w->rng, 8) : (unsigned long)rnd(&w->rng);
	long long res = kres(xioctl(fd, ASHMEM_SET_PROT_MASK, prot));

	if (!expect(w, res, prot & ~a->prot_mask ? -EINVAL : 0,
		    "SET_PROT_MASK(%#lx) of mask %#lx", prot, a->prot_mask) || res)
		return false;
	if (read_implies_exec && (prot & PROT_READ))
		prot |= a->prot_mask & PROT_EXEC;
	a->prot_mask = prot;
	return true;
}

/* PIN, UNPIN and GET_PIN_STATUS. */
static bool ioctl_pin(struct worker *w, int fd, struct area *a, unsigned long cmd)
{
	const char *what = cmd == ASHMEM_PIN ? "PIN" : cmd == ASHMEM_UNPIN ?
			   "UNPIN" : "GET_PIN_STATUS";
	uint64_t first = 0, last = 0, pages = area_pages(a);
	struct ashmem_pin pin = {};
	long long res, want;
	struct uptr p;
	bool any;

	if (chance(w, 80))
		p = scratch_ptr(w, below(&w->rng, page_size / 8) * 8);
	else
		p = rnd_ptr(w, sizeof(pin), true);
	if (in_scratch(w, p.addr) && p.wr >= sizeof(pin)) {
		pin.offset = rnd_pin_field(w);
		pin.len = chance(w, 20) ? 0 : rnd_pin_field(w);
		if (a->mapped && pages <= MAX_MAP_PAGES && chance(w, 50)) {
			/* A range in the area; a length of 0 reaches its end. */
			first = below(&w->rng, pages);
			pin.offset = first * page_size;
			pin.len = below(&w->rng, pages - first + 1) * page_size;
		}
		memcpy((void *)p.addr, &pin, sizeof(pin));
	}
	if (p.rd < sizeof(pin)) {
		want = -EFAULT;
	} else {
		memcpy(&pin, (void *)p.addr, sizeof(pin));
		want = pin_range(a, &pin, &first, &last) ? 0 : -EINVAL;
	}
	if (!want && cmd == ASHMEM_UNPIN)
		unpinning(w, last - first + 1);
	res = kres(xioctl(fd, cmd, p.addr));
	if (want)
		return expect(w, res, want, "%s(%#x, %#x) of %#llx bytes%s", what,
			      pin.offset, pin.len, (unsigned long long)a->size,
			      a->mapped ? "" : ", not mapped") && false;

	any = a->runs_lost || runs_any(a, first, last);
	if (cmd == ASHMEM_GET_PIN_STATUS) {
		if (a->runs_lost && (res == ASHMEM_IS_PINNED || res == ASHMEM_IS_UNPINNED))
			return true;
		return expect(w, res, any ? ASHMEM_IS_UNPINNED : ASHMEM_IS_PINNED,
			      "GET_PIN_STATUS of pages %#llx-%#llx",
			      (unsigned long long)first, (unsigned long long)last);
	}
	/*
	 * Unpinning may allocate a range, and so may pinning the middle of a
	 * run, for its second half.
	 */
	if (res == -ENOMEM && (cmd == ASHMEM_UNPIN || a->runs_lost ||
			       runs_inside(a, first, last))) {
		w->st->enomem++;
		return false;
	}
	if (cmd == ASHMEM_UNPIN) {
		if (!expect(w, res, 0, "UNPIN of pages %#llx-%#llx",
			    (unsigned long long)first, (unsigned long long)last))
			return false;
	} else if ((res != ASHMEM_WAS_PURGED || !any) &&
		   !expect(w, res, ASHMEM_NOT_PURGED, "PIN of pages %#llx-%#llx%s",
			   (unsigned long long)first, (unsigned long long)last,
			   any ? "" : ", all pinned")) {
		return false;	/* only a page unpinned may have been purged */
	}
	if (cmd == ASHMEM_UNPIN)
		runs_unpin(a, first, last);
	else
		runs_pin(a, first, last);
	return chance(w, 75) || check_fdinfo(w, fd, a);
}

static bool ioctl_get_file_id(struct worker *w, int fd, struct area *a,
			      unsigned long cmd)
{
	struct uptr p = rnd_ptr(w, sizeof(unsigned long), false);
	unsigned long id;
	long long res, want;

	if (!a->mapped)
		want = -EINVAL;
	else if (a->ino != (unsigned long)a->ino)
		want = -EOVERFLOW;
	else
		want = p.wr < sizeof(id) ? -EFAULT : 0;
	res = kres(xioctl(fd, ASHMEM_GET_FILE_ID, p.addr));
	if (!expect(w, res, want, "GET_FILE_ID(%#lx)%s", p.addr,
		    a->mapped ? "" : ", not mapped"))
		return false;
	if (res || !p.stable)
		return !res;
	memcpy(&id, (void *)p.addr, sizeof(id));
	return id == a->ino ||
	       failure(w, "GET_FILE_ID stored %lu, the inode is %llu", id, a->ino);
}

/*
 * PURGE_ALL_CACHES returns the pages it purged: no more than all workers'
 * areas ever had unpinned at once (their areas are all there are).  Through
 * ioctl(2)'s int, as GET_SIZE's size: past INT_MAX, any value.
 */
static bool ioctl_purge(struct worker *w, int fd, struct area *a, unsigned long cmd)
{
	long long res = kres(xioctl(fd, ASHMEM_PURGE_ALL_CACHES, rnd(&w->rng)));
	uint64_t most = 0;
	int i;

	if (!admin)
		return expect(w, res, -EPERM, "PURGE_ALL_CACHES without CAP_SYS_ADMIN") && false;
	for (i = 0; i < nr_workers; i++)
		most += __atomic_load_n(&workers[i].unpinned, __ATOMIC_ACQUIRE);
	if (most > INT_MAX) {
		w->st->purge_wrapped += res < 0;
		return true;
	}
	if (res < 0 || res > (long long)most)
		return failure(w, "PURGE_ALL_CACHES: %lld, there are at most %llu unpinned pages",
			       res, (unsigned long long)most);
	return true;
}

/* @cmd, one of the driver's, on one of our areas or a bad fd. */
static bool ioctl_checked(struct worker *w, unsigned long cmd)
{
	struct area *a;
	int fd = rnd_fd(w, &a);
	bool ok;

	if (a)
		ok = kinds[IOCTL_KIND(cmd)].check(w, fd, a, cmd);
	else
		ok = expect(w, kres(xioctl(fd, cmd, (unsigned long)w->scratch)),
			    -EBADF, "ioctl(%d, %#lx)", fd, cmd) && false;
	w->st->calls[IOCTL_KIND(cmd)]++;
	w->st->ok[IOCTL_KIND(cmd)] += ok;
	return ok;
}

/* The ioctl numbers of the driver: @cmd's in this process, or 0. */
static unsigned long ashmem_cmd(unsigned long cmd)
{
	/* A 64-bit kernel takes their 64-bit numbers from 32-bit processes too. */
	static const unsigned long compat[][2] = {
		{ _IOW(__ASHMEMIOC, 3, uint64_t), ASHMEM_SET_SIZE },
		{ _IOW(__ASHMEMIOC, 5, uint64_t), ASHMEM_SET_PROT_MASK },
		{ _IOR(__ASHMEMIOC, 11, uint64_t), ASHMEM_GET_FILE_ID },
	};
	unsigned int i, nr = _IOC_NR(cmd);

	if (nr >= 1 && nr <= NR_IOCTLS && cmd == kinds[NR_OPS + nr - 1].cmd)
		return cmd;
	for (i = 0; i < ARRAY_SIZE(compat); i++)
		if (cmd == compat[i][0])
			return compat[i][1];
	return 0;
}

/* Any but PURGE_ALL_CACHES, which op_purge() makes. */
static bool op_ashmem_ioctl(struct worker *w)
{
	unsigned int i = below(&w->rng, NR_IOCTLS - 1);

	if (i >= _IOC_NR(ASHMEM_PURGE_ALL_CACHES) - 1)
		i++;
	return ioctl_checked(w, kinds[NR_OPS + i].cmd);
}

/*
 * Any other number of magic 0x77 is unknown to the driver: ENOTTY.  The
 * driver's own numbers get arguments that fit, and the model's check.
 */
static bool op_random_ioctl(struct worker *w)
{
	unsigned long cmd, arg;
	unsigned int type;
	struct area *a;
	long long res;
	int fd;

	do {
		if (chance(w, 70)) {
			cmd = _IOC(below(&w->rng, 4), 0x77, below(&w->rng, 32),
				   below(&w->rng, 2) ? below(&w->rng, 0x3fff) :
				   (unsigned long)(1 << below(&w->rng, 10)));
		} else {
			cmd = (uint32_t)rnd(&w->rng);
		}
		type = _IOC_TYPE(cmd);
		/*
		 * Never the VFS's own ioctls that act on the file system
		 * under /dev: FIFREEZE and friends ('X'), FS_IOC_* ('f'),
		 * FICLONE* (0x94) and FS_IOC_GETFSUUID/SYSFSPATH (0x15).
		 */
	} while (type == 'X' || type == 'f' || type == 0x94 || type == 0x15);

	if (ashmem_cmd(cmd))
		return ioctl_checked(w, ashmem_cmd(cmd));
	arg = chance(w, 60) ? rnd_ptr(w, _IOC_SIZE(cmd), false).addr :
			      (unsigned long)rnd(&w->rng);
	/* Fully random values may hit our own memory: only use pointers. */
	if (_IOC_DIR(cmd) & _IOC_READ || type == 'T' || type == 0)
		arg = rnd_ptr(w, _IOC_SIZE(cmd) ? _IOC_SIZE(cmd) : 8, false).addr;
	fd = rnd_fd(w, &a);
	res = kres(xioctl(fd, cmd, arg));
	if (!a)
		return expect(w, res, -EBADF, "ioctl(%d, %#lx)", fd, cmd) && false;
	if (type == __ASHMEMIOC)
		return expect(w, res, -ENOTTY, "ioctl(%#lx)", cmd) && false;
	return res >= 0;
}

static bool op_open(struct worker *w)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };
	int slot = free_area_slot(w), mode = modes[below(&w->rng, 5)], fd;
	struct area *a;

	if (slot < 0) {
		slot = below(&w->rng, MAX_AREAS);
		if (!close_slot(w, slot))
			return false;
	}
	fd = open(ASHMEM_DEV, mode | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM || errno == ENFILE ||
		       failure(w, "open: %s", strerror(errno));
	a = new_area(w, mode);
	w->fds[slot] = fd;
	w->fd_area[slot] = a;
	/* Usually give it a usable size at once. */
	if (chance(w, 70))
		return ioctl_set_size(w, fd, a, (1 + below(&w->rng, MAX_MAP_PAGES)) * page_size -
				below(&w->rng, 2) * below(&w->rng, page_size));
	return true;
}

static bool op_close(struct worker *w)
{
	int i = below(&w->rng, MAX_AREAS);

	return w->fds[i] >= 0 && close_slot(w, i);
}

/* A new descriptor of an area: by dup(), or sent over a unix socket. */
static bool op_dup(struct worker *w)
{
	int slot = free_area_slot(w), fd, copy;
	struct area *a;

	fd = rnd_fd(w, &a);
	if (slot < 0)
		return false;
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (!a)
		return expect(w, kres(copy), -EBADF, "dup(%d)", fd) && false;
	if (copy < 0)
		return failure(w, "dup: %s", strerror(errno));
	w->fds[slot] = copy;
	w->fd_area[slot] = a;
	get_area(w, a);
	return true;
}

static bool op_pass_fd(struct worker *w)
{
	int slot = free_area_slot(w), fd, sv[2];
	struct area *a;
	char byte = 0;

	fd = rnd_fd(w, &a);
	if (slot < 0 || fd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	if (!send_fd(sv[0], fd, &byte, 1))
		w->fds[slot] = recv_fd(sv[1], &byte, 1);
	close(sv[0]);
	close(sv[1]);
	if (w->fds[slot] < 0)
		return a && failure(w, "passing fd %d failed", fd);
	w->fd_area[slot] = a;
	get_area(w, a);
	return true;
}

/*
 * mmap() as the documentation has it: the VFS's checks of the descriptor's
 * mode first, then the area's: a size, the mapping within it, the
 * protection within the mask.
 */
static long long mmap_want(const struct area *a, size_t len, int prot,
			   int flags, uint64_t off)
{
	uint64_t pages = area_pages(a), n = len / page_size + !!(len % page_size);

	if (!len)
		return -EINVAL;
	if ((flags & MAP_TYPE) == MAP_SHARED && (prot & PROT_WRITE) && !writable(a))
		return -EACCES;
	if (!readable(a))
		return -EACCES;
	if (noexec && (prot & PROT_EXEC))
		return -EPERM;
	if (!pages || n > pages || off / page_size > pages - n)
		return -EINVAL;
	if (prot & ~a->prot_mask)
		return -EPERM;
	return 0;
}

/* The PROT_* bits mprotect() may give the mapping at @addr, or -1. */
static int vm_may(const void *addr)
{
	static const char *const bits[] = { " mr", " mw", " me" };
	static const int prots[] = { PROT_READ, PROT_WRITE, PROT_EXEC };
	char flags[256] = " ";
	int may = 0, i;

	if (smaps_get(addr, "VmFlags", flags + 1, sizeof(flags) - 2))
		return -1;
	strcat(flags, " ");
	for (i = 0; i < 3; i++)
		if (strstr(flags, bits[i]) && strstr(flags, bits[i])[3] == ' ')
			may |= prots[i];
	return may;
}

/*
 * Did the MAP_PRIVATE mapping at @p merge with a neighbour?  mmap() merges
 * a new mapping into a private mapping of the same area, right before or
 * after it in addresses and offsets, with the same flags, before it would
 * call ->mmap: the driver does not see it, nor check its size and mask.
 * The new pages are private anonymous memory all the same.  @m->may is
 * then what the neighbour had.
 */
static bool private_merged(struct mapping *m)
{
	struct maps_entry e;

	if (m->shared || maps_find(m->addr, &e))
		return false;
	if (e.start == (unsigned long)m->addr && e.end == (unsigned long)m->addr + m->len)
		return false;
	m->may = vm_may(m->addr);
	return true;
}

static bool op_mmap(struct worker *w)
{
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE };
	struct mapping *m = NULL;
	uint64_t off, pages, n;
	int fd, prot, flags, i;
	long long res, want;
	struct area *a;
	size_t len;
	char *p;

	for (i = 0; i < MAX_MAPS && !m; i++)
		if (!w->maps[i].addr)
			m = &w->maps[i];
	if (!m) {
		m = rnd_map(w);
		if (!m || !drop_map(w, m))
			return false;
	}
	fd = rnd_fd(w, &a);
	pages = a ? area_pages(a) : 0;
	if (pages && chance(w, 50)) {
		/* One that fits in the area. */
		n = 1 + below(&w->rng, pages < MAX_MAP_PAGES ? pages : MAX_MAP_PAGES);
		len = n * page_size;
		off = below(&w->rng, chance(w, 50) ? 1 : pages - n + 1) * page_size;
	} else {
		len = below(&w->rng, MAX_MAP_PAGES + 1) * page_size;
		if (chance(w, 5))
			len += below(&w->rng, page_size);
		off = chance(w, 70) ? 0 : below(&w->rng, MAX_MAP_PAGES) * page_size;
		if (chance(w, 3))
			off = rnd(&w->rng) & ~(uint64_t)(page_size - 1) & INT64_MAX;
	}
	/* What mmap2() can pass: the C library refuses larger offsets itself. */
	if (sizeof(long) == 4)
		off &= ((uint64_t)page_size << 32) - 1;
	prot = chance(w, 80) ? PROT_READ | PROT_WRITE : (int)below(&w->rng, 8);
	flags = types[below(&w->rng, 3)] | (chance(w, 30) ? MAP_NORESERVE : 0);
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	res = p == MAP_FAILED ? -errno : 0;
	if (!a)
		return expect(w, res, -EBADF, "mmap of fd %d", fd) && false;

	if (read_implies_exec && (prot & PROT_READ) && !noexec)
		prot |= PROT_EXEC;
	want = mmap_want(a, len, prot, flags, off);
	/* The first mmap() creates the backing file, which may fail. */
	if (!want && !a->mapped && (res == -ENOMEM || res == -ENFILE)) {
		unsigned long id;

		w->st->enomem++;
		/* Did it create the backing file before it failed? */
		a->mapped = kres(xioctl(fd, ASHMEM_GET_FILE_ID, (unsigned long)&id)) != -EINVAL;
		if (a->mapped)
			a->ino = fdinfo_num(fd, "inode");
		return false;
	}
	len = (len + page_size - 1) & ~(page_size - 1);
	if (!res) {
		*m = (struct mapping){ p, len, prot, a->prot_mask,
				       (flags & MAP_TYPE) == MAP_SHARED, a,
				       off / page_size };
		if (m->shared && !writable(a))
			m->may &= ~PROT_WRITE;
		if (noexec)
			m->may &= ~PROT_EXEC;
		if (private_merged(m) && want) {
			w->st->merged++;
			want = 0;
		}
	}
	if (!expect(w, res, want, "mmap(%#zx, %d, %#x, %#llx) of %#llx bytes, mode %d, mask %#lx",
		    len, prot, flags, (unsigned long long)off,
		    (unsigned long long)a->size, a->mode, a->prot_mask)) {
		if (!res)
			munmap(p, len);
		m->addr = NULL;
		return false;
	}
	if (res)
		return false;
	if (!m->shared)
		get_area(w, a);
	if (!a->mapped) {
		a->mapped = true;
		a->ino = fdinfo_num(fd, "inode");
		if (a->ino == (unsigned long long)-1)
			return failure(w, "no inode in fdinfo after mmap");
	}
	return chance(w, 90) || check_maps(w, m, a);
}

static bool op_munmap(struct worker *w)
{
	struct mapping *m = rnd_map(w);

	return m && drop_map(w, m);
}

/* mprotect() gives a mapping nothing the mask lacked when it was made. */
static bool op_mprotect(struct worker *w)
{
	struct mapping *m = rnd_map(w);
	int prot = below(&w->rng, 8);
	long long res;

	if (!m)
		return false;
	res = kres(mprotect(m->addr, m->len, prot));
	if (m->may < 0 && res == -EACCES)
		return false;
	if (!expect(w, res, prot & ~m->may && m->may >= 0 ? -EACCES : 0,
		    "mprotect(%d) of a mapping that may have %d", prot, m->may) || res)
		return false;
	if (read_implies_exec && (prot & PROT_READ) && m->may >= 0)
		prot |= m->may & PROT_EXEC;
	m->prot = prot;
	return true;
}

static bool op_touch(struct worker *w)
{
	struct mapping *m = rnd_map(w);

	if (m)
		touch(w, m);
	return m;
}

/*
 * read(2) before the first mmap() returns 0 for an empty area and fails with
 * EBADF otherwise; after it, it reads up to the size.  A buffer that ends
 * early makes a short read, or EFAULT.
 */
static bool op_read(struct worker *w)
{
	size_t len = below(&w->rng, chance(w, 50) ? 64 : SCRATCH_PAGES * page_size);
	struct uptr p = rnd_ptr(w, len, false);
	bool positioned = chance(w, 50);
	long long res, want;
	int64_t pos = 0;
	struct area *a;
	uint64_t n;
	int fd;

	fd = rnd_fd(w, &a);
	/* Only the scratch buffer and our mappings are big enough. */
	if (in_scratch(w, p.addr))
		len = p.wr;
	else if (p.addr != (unsigned long)w->ro && len > 64)
		len = 64;
	if (positioned) {
		pos = chance(w, 80) ? (int64_t)below(&w->rng, MAX_MAP_PAGES * page_size) :
				      (int64_t)(rnd(&w->rng) >> 1);
		res = kres(pread(fd, (void *)p.addr, len, pos));
	} else {
		res = kres(read(fd, (void *)p.addr, len));
	}
	if (!a)
		return expect(w, res, -EBADF, "read of fd %d", fd) && false;
	if (!positioned)
		pos = a->pos;

	n = (uint64_t)pos >= a->size ? 0 : a->size - pos;
	n = n < len ? n : len;
	if (!readable(a))
		want = -EBADF;
	else if (p.bad && res == -EFAULT)
		want = res;	/* refused before anything else */
	else if ((uint64_t)pos + len > INT64_MAX)
		want = -EINVAL;
	else if (!a->mapped)
		want = a->size ? -EBADF : 0;
	else if (n > p.wr && (res == -EFAULT || (res > 0 && res <= (long long)p.wr)))
		want = res;	/* short, where the buffer ends */
	else
		want = n;
	if (!expect(w, res, want, "%s(%zu bytes at %lld into %#lx) of %#llx bytes%s",
		    positioned ? "pread" : "read", len, (long long)pos, p.addr,
		    (unsigned long long)a->size, a->mapped ? "" : ", not mapped"))
		return false;
	if (!positioned && res > 0)
		a->pos += res;
	return res >= 0;
}

/* Where SEEK_SET, SEEK_CUR or SEEK_END must land: a position in 64 bits. */
static long long seek_to(const struct area *a, int64_t off, int whence)
{
	uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? a->pos : a->size;
	int64_t pos = (int64_t)(base + (uint64_t)off);

	return pos < 0 ? -EINVAL : pos;
}

/*
 * lseek(2) fails with EINVAL on an empty area and with EBADF before the
 * first mmap(); then it seeks in 64 bits.  SEEK_DATA and SEEK_HOLE find the
 * pages that hold data, which purges change at any time: the model only
 * knows that the answer is at or after the offset, in the area, and on a
 * page boundary unless it is the offset or the end.
 */
static bool op_lseek(struct worker *w)
{
	int64_t off = chance(w, 70) ? (int64_t)below(&w->rng, 2 * MAX_MAP_PAGES * page_size) :
				      (int64_t)rnd(&w->rng);
	int whence = below(&w->rng, 7), fd;
	long long res, want;
	struct area *a;

	fd = rnd_fd(w, &a);
	res = kres(lseek(fd, off, whence));
	if (!a)
		return expect(w, res, -EBADF, "lseek of fd %d", fd) && false;

	if (whence > SEEK_HOLE) {
		want = -EINVAL;
	} else if (!a->mapped) {
		want = a->size ? -EBADF : -EINVAL;
	} else if (whence <= SEEK_END) {
		want = seek_to(a, off, whence);
	} else if (off < 0 || (uint64_t)off >= a->size) {
		want = -ENXIO;
	} else if (res == -ENXIO && whence == SEEK_DATA) {
		want = res;	/* no data from there on */
	} else if (res >= off && (uint64_t)res <= a->size &&
		   (res == off || !(res % page_size) || (uint64_t)res == a->size)) {
		want = res;
	} else {
		return failure(w, "lseek(%lld, %s) of %#llx bytes: %lld", (long long)off,
			       whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE",
			       (unsigned long long)a->size, res);
	}
	if (!expect(w, res, want, "lseek(%lld, %d) at %lld of %#llx bytes%s",
		    (long long)off, whence, (long long)a->pos,
		    (unsigned long long)a->size, a->mapped ? "" : ", not mapped"))
		return false;
	if (res >= 0)
		a->pos = res;
	return res >= 0;
}

static bool op_madvise(struct worker *w)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_REMOVE, MADV_FREE, MADV_WILLNEED,
		MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE,
	};
	struct mapping *m = rnd_map(w);

	return m && madvise(m->addr, m->len,
			    advice[below(&w->rng, ARRAY_SIZE(advice))]) == 0;
}

/*
 * remap_file_pages() re-mmaps with MAP_FIXED.  ashmem refuses it, and the
 * range may then be left unmapped (mincore() fails), so check before the
 * mapping is touched again.  It succeeds only where the kernel merges the
 * range into a neighbouring mapping of the same area with the same flags,
 * without asking the driver: then the pages it names are mapped, maybe past
 * the end of the area, where a touch raises SIGBUS as on any shmem file.
 * So a mapping a remap succeeded on is dropped too.
 */
static bool op_remap(struct worker *w)
{
	unsigned char vec[MAX_MAP_PAGES + 2];
	struct mapping *m = rnd_map(w);
	int ret;

	if (!m)
		return false;
	ret = remap_file_pages(m->addr, m->len, 0,
			       below(&w->rng, m->len / page_size + 2), 0);
	if (ret == 0 || mincore(m->addr, m->len, vec))
		drop_map(w, m);
	return ret == 0;
}

/*
 * A child inherits everything, touches some mappings, makes some ioctls on
 * the areas it shares with us, and exits.  The models are in shared memory:
 * what its ioctls changed, they changed for us too.
 */
static bool op_fork(struct worker *w)
{
	pid_t pid;
	int status, i;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		w->child = true;
		for (i = 0; i < MAX_MAPS && !w->failures; i++)
			if (w->maps[i].addr && chance(w, 50))
				touch(w, &w->maps[i]);
		for (i = 0; i < MAX_AREAS && !w->failures; i++)
			if (w->fds[i] >= 0 && chance(w, 50))
				op_ashmem_ioctl(w);
		_exit(w->failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return failure(w, "forked child ended with status %#x", status);
	return true;
}

static bool op_purge(struct worker *w)
{
	return ioctl_checked(w, ASHMEM_PURGE_ALL_CACHES);
}

static bool op_fdinfo(struct worker *w)
{
	struct area *a;
	int fd = rnd_fd(w, &a);

	return a && check_fdinfo(w, fd, a);
}

/*
 * The least number of successful operations of each kind a worker must
 * reach, per second of its run: about 1/50 of the lowest rate a worker
 * reached on the plain kernel in the test VM (TCG, 2 vCPUs, on a loaded
 * host: 6,000 to 10,000 operations a second).  The debug lane's kernel
 * (KASAN, lockdep) is 5 to 10 times slower.  remap_file_pages() and random
 * ioctl numbers are expected to fail.
 */
#define IOCTL(nr, rate, fn) \
	[IOCTL_KIND(ASHMEM_##nr)] = { "  " #nr, 0, rate, NULL, ASHMEM_##nr, fn }

static const struct kind kinds[NR_KINDS] = {
	[OP_OPEN] = { "open", 6, 7, op_open },
	[OP_CLOSE] = { "close", 3, 3, op_close },
	[OP_DUP] = { "dup", 1, 0.3, op_dup },
	[OP_PASS_FD] = { "pass_fd", 1, 0.3, op_pass_fd },
	[OP_ASHMEM_IOCTL] = { "ashmem_ioctl", 30, 15, op_ashmem_ioctl },
	[OP_RANDOM_IOCTL] = { "random_ioctl", 12, 0, op_random_ioctl },
	[OP_MMAP] = { "mmap", 10, 3, op_mmap },
	[OP_MUNMAP] = { "munmap", 5, 2.5, op_munmap },
	[OP_MPROTECT] = { "mprotect", 3, 1.5, op_mprotect },
	[OP_TOUCH] = { "touch", 8, 4, op_touch },
	[OP_READ] = { "read", 6, 2, op_read },
	[OP_LSEEK] = { "lseek", 4, 0.5, op_lseek },
	[OP_MADVISE] = { "madvise", 3, 1, op_madvise },
	[OP_REMAP] = { "remap_file_pages", 1, 0, op_remap },
	[OP_FORK] = { "fork", 1, 1, op_fork },
	[OP_PURGE] = { "purge_all", 1, 1, op_purge },
	[OP_FDINFO] = { "fdinfo", 4, 4, op_fdinfo },
	IOCTL(SET_NAME, 1.5, ioctl_set_name),
	IOCTL(GET_NAME, 1.5, ioctl_get_name),
	IOCTL(SET_SIZE, 2.5, ioctl_set_rnd_size),
	IOCTL(GET_SIZE, 3, ioctl_get_size),
	IOCTL(SET_PROT_MASK, 2, ioctl_set_prot_mask),
	IOCTL(GET_PROT_MASK, 3, ioctl_get_prot_mask),
	IOCTL(PIN, 0.4, ioctl_pin),
	IOCTL(UNPIN, 0.4, ioctl_pin),
	IOCTL(GET_PIN_STATUS, 0.4, ioctl_pin),
	IOCTL(PURGE_ALL_CACHES, 1, ioctl_purge),
	IOCTL(GET_FILE_ID, 0.4, ioctl_get_file_id),
};

static int run_worker(uint64_t seed, unsigned long limit, uint64_t deadline,
		      struct stats *st)
{
	unsigned int weights[NR_OPS];
	uint64_t start = now_ns();
	struct worker w = {
		.rng = seed * 0x9e3779b97f4a7c15ULL + 1, .seed = seed, .st = st,
	};
	char *p;
	int i;

	for (i = 0; i < NR_OPS; i++)
		weights[i] = kinds[i].weight;
	for (i = 0; i < MAX_AREAS; i++)
		w.fds[i] = -1;
	w.areas = mmap(NULL, MAX_MODELS * sizeof(*w.areas), PROT_RW,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* scratch | read-only | writable | inaccessible, for good */
	p = mmap(NULL, (SCRATCH_PAGES + 3) * page_size, PROT_RW,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.areas == MAP_FAILED || p == MAP_FAILED)
		return 2;
	w.scratch = p;
	w.ro = p + SCRATCH_PAGES * page_size;
	memset(w.ro, 0xcc, page_size);
	w.hole = w.ro + 2 * page_size;
	if (mprotect(w.ro, page_size, PROT_READ) || mprotect(w.hole, page_size, PROT_NONE))
		return 2;
	signal(SIGPIPE, SIG_IGN);

	for (w.n = 0; (!limit || w.n < limit) && !w.failures && now_ns() < deadline; w.n++) {
		unsigned int op = pick_weighted(&w.rng, weights, NR_OPS);
		bool ok = kinds[op].op(&w);

		st->calls[op]++;
		st->ok[op] += ok;
	}
	st->ops = w.n;

	/* Tear down in a random order too. */
	for (i = 0; i < MAX_MAPS + MAX_AREAS && !w.failures; i++) {
		if (chance(&w, 50))
			op_close(&w);
		else
			op_munmap(&w);
	}
	st->secs = (now_ns() - start) / 1e9;
	st->failures = w.failures;
	fflush(stdout);
	return w.failures ? 1 : 0;
}

/*
 * SET_SIZE takes any size whose page-aligned value fits in the kernel's
 * unsigned long and in a file size: up to 2^63 - 1 on a 64-bit kernel,
 * for 32-bit processes too.
 */
static void probe_environment(void)
{
	char buf[4096], val[32];
	struct utsname u;

	page_size = sysconf(_SC_PAGESIZE);
	if (sizeof(long) == 8 || (!uname(&u) && strstr(u.machine, "64")))
		max_size = INT64_MAX;
	else
		max_size = (uint64_t)ULONG_MAX - page_size + 1;
	read_implies_exec = personality(0xffffffff) & READ_IMPLIES_EXEC;
	noexec = dev_noexec();
	/* Whether CAP_SYS_ADMIN is in our effective set. */
	admin = !read_small("/proc/self/status", buf, sizeof(buf)) &&
		!key_string(buf, "CapEff", val, sizeof(val)) &&
		(strtoull(val, NULL, 16) & (1ULL << CAP_SYS_ADMIN));
}

/*
 * The operations of all workers, and of each kind; a worker that succeeded
 * in a kind less often than its minimum rate fails the run.
 */
static int report(const struct stats *st, int procs, uint64_t seed, bool verbose)
{
	struct stats t = {};
	int i, k, failed = 0;

	for (i = 0; i < procs; i++) {
		t.ops += st[i].ops;
		t.secs += st[i].secs;
		t.enomem += st[i].enomem;
		t.merged += st[i].merged;
		t.purge_wrapped += st[i].purge_wrapped;
		for (k = 0; k < NR_KINDS; k++) {
			t.calls[k] += st[i].calls[k];
			t.ok[k] += st[i].ok[k];
		}
		if (verbose)
			printf("# seed %llu: %lu operations in %.1f s\n",
			       (unsigned long long)seed + i, st[i].ops, st[i].secs);
	}
	if (t.secs <= 0)
		return 0;
	printf("# %lu operations in %.1f s: %.0f per second and worker\n",
	       t.ops, t.secs / procs, t.ops / t.secs);
	printf("# allowed: ENOMEM %lu, MAP_PRIVATE merges %lu, PURGE_ALL_CACHES past INT_MAX %lu\n",
	       t.enomem, t.merged, t.purge_wrapped);
	printf("# %-18s %10s %10s %9s %9s\n", "kind", "calls", "ok", "ok/s", "min ok/s");
	for (k = 0; k < NR_KINDS; k++)
		printf("# %-18s %10lu %10lu %9.1f %9.1f\n", kinds[k].name, t.calls[k],
		       t.ok[k], t.ok[k] / t.secs, kinds[k].min_rate);

	for (i = 0; i < procs; i++) {
		for (k = 0; k < NR_KINDS && !st[i].failures; k++) {
			if (st[i].ok[k] >= kinds[k].min_rate * st[i].secs)
				continue;
			printf("# seed %llu: %lu %s succeeded in %.1f s, under %.1f a second\n",
			       (unsigned long long)seed + i, st[i].ok[k],
			       kinds[k].name + strspn(kinds[k].name, " "), st[i].secs,
			       kinds[k].min_rate);
			failed = 1;
		}
	}
	fflush(stdout);
	return failed;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-s SEED] [-t SECONDS] [-n OPERATIONS] [-p PROCESSES] [-v]\n"
		"  defaults: random seed, 60 s, no limit on operations, 2 processes\n",
		prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	int procs = 2, opt, i, failed = 0;
	unsigned long limit = 0;
	bool verbose = false;
	double seconds = 60;
	uint64_t deadline;
	struct stats *st;
	int *status;
	pid_t *pids;

	while ((opt = getopt(argc, argv, "s:n:t:p:vh")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			limit = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (procs < 1 || procs > 64)
		usage(argv[0]);
	probe_environment();

	ksft_start_one();
	ksft_print_msg("ashmem_fuzz: seed %llu, %.0f s, %d processes%s\n",
		       (unsigned long long)seed, seconds, procs,
		       limit ? ", a limit on operations" : "");
	ksft_print_msg("replay one process with -p 1 -s SEED, up to operation N with -n N\n");

	deadline = now_ns() + seconds * 1e9;
	pids = calloc(procs, sizeof(*pids));
	status = calloc(procs, sizeof(*status));
	st = mmap(NULL, procs * sizeof(*st), PROT_RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!pids || !status || st == MAP_FAILED)
		ksft_exit_fail_msg("out of memory\n");
	workers = st;
	nr_workers = procs;
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (pids[i] == 0)
			_exit(run_worker(seed + i, limit, deadline, &st[i]));
	}
	/* A worker stuck in the kernel is a failure, not a hang. */
	wait_children(pids, status, procs, deadline + 60 * 1000000000ULL);
	for (i = 0; i < procs; i++) {
		if (status[i] < 0)
			ksft_print_msg("worker (seed %llu) still running 60 s past the deadline\n",
				       (unsigned long long)seed + i);
		else if (status[i] >= 128)	/* workers exit 0, 1 or 2 */
			ksft_print_msg("worker with seed %llu killed by signal %d\n",
				       (unsigned long long)seed + i, status[i] - 128);
		else if (status[i])
			ksft_print_msg("worker with seed %llu failed (exit %d)\n",
				       (unsigned long long)seed + i, status[i]);
		failed += status[i] != 0;
	}
	failed += report(st, procs, seed, verbose);
	ksft_test_result(!failed, "ashmem_fuzz seed %llu\n", (unsigned long long)seed);
	ksft_finished();
}
