// SPDX-License-Identifier: GPL-2.0
/*
 * A randomized fuzzer for /dev/ashmem: ioctls with random command numbers
 * (around magic 0x77 and elsewhere) and random arguments, including bad
 * pointers and edge sizes, mixed with mmap, munmap, mprotect, madvise,
 * remap_file_pages, read, lseek, dup, fd passing, fork and close.
 *
 *   ashmem_fuzz [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PROCESSES] [-v]
 *
 * Each of PROCESSES workers runs at most ITERATIONS operations and stops
 * after SECONDS; worker i uses SEED + i, so "-p 1 -s SEED" replays one.
 * Pointers the kernel may write through always point into a scratch buffer
 * or into the fuzzer's own ashmem mappings, never into its state.
 *
 * It fails if a worker dies of a signal, if touching a mapping the driver
 * accepted faults, or if a well-formed ashmem ioctl fails with an errno the
 * driver never returns.  Kernel reports (KASAN, lockdep, BUG, WARNING) are
 * for the harness to find in the kernel log.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "../kselftest.h"
#include "ashmem_util.h"

#define MAX_AREAS	8
#define MAX_MAPS	16
#define MAX_MAP_PAGES	64
#define SCRATCH_PAGES	4

struct mapping {
	char *addr;
	size_t len;		/* bytes, a multiple of the page size */
	int prot;
};

enum op {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_PASS_FD, OP_ASHMEM_IOCTL, OP_RANDOM_IOCTL,
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_TOUCH, OP_READ, OP_LSEEK,
	OP_MADVISE, OP_REMAP, OP_FORK, OP_PURGE, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"open", "close", "dup", "pass_fd", "ashmem_ioctl", "random_ioctl",
	"mmap", "munmap", "mprotect", "touch", "read", "lseek", "madvise",
	"remap_file_pages", "fork", "purge_all",
};

/* Relative weights of the operations. */
static const unsigned int op_weights[NR_OPS] = {
	[OP_OPEN] = 6, [OP_CLOSE] = 3, [OP_DUP] = 1, [OP_PASS_FD] = 1,
	[OP_ASHMEM_IOCTL] = 30, [OP_RANDOM_IOCTL] = 12, [OP_MMAP] = 10,
	[OP_MUNMAP] = 5, [OP_MPROTECT] = 3, [OP_TOUCH] = 8, [OP_READ] = 6,
	[OP_LSEEK] = 4, [OP_MADVISE] = 3, [OP_REMAP] = 1, [OP_FORK] = 1,
	[OP_PURGE] = 1,
};

struct worker {
	uint64_t rng;
	int fds[MAX_AREAS];
	struct mapping maps[MAX_MAPS];
	char *scratch;		/* SCRATCH_PAGES writable pages */
	char *ro;		/* one read-only page */
	char *hole;		/* end of a page followed by an unmapped one */
	char *unmapped;
	unsigned long ops[NR_OPS], ok[NR_OPS];
	unsigned long bad_errno, faults;
	bool verbose;
};

static size_t page_size;

static bool chance(struct worker *w, unsigned int percent)
{
	return below(&w->rng, 100) < percent;
}

static void failure(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	printf("# worker %d: ", getpid());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
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

/*
 * A pointer argument: bad ones, or one into memory the kernel may read and
 * write (scratch, our ashmem mappings), or the read-only page.
 */
static unsigned long rnd_ptr(struct worker *w, size_t need)
{
	struct mapping *m;

	switch (below(&w->rng, 10)) {
	case 0:
		return 0;
	case 1:
		return (unsigned long)w->unmapped;
	case 2:
		return kernel_addr();
	case 3:
		return ~0UL - below(&w->rng, 16);
	case 4:
		return (unsigned long)w->ro + below(&w->rng, page_size);
	case 5:
		return (unsigned long)w->hole - 1 - below(&w->rng, 300);
	case 6:
		m = &w->maps[below(&w->rng, MAX_MAPS)];
		if (m->addr)
			return (unsigned long)m->addr + below(&w->rng, m->len);
		break;
	default:
		break;
	}
	/* Somewhere in the scratch buffer, with @need bytes after it. */
	if (need > SCRATCH_PAGES * page_size)
		need = SCRATCH_PAGES * page_size;
	return (unsigned long)w->scratch +
	       below(&w->rng, SCRATCH_PAGES * page_size - need + 1);
}

/* One of our areas, or a bad fd; never someone else's descriptor. */
static int rnd_fd(struct worker *w)
{
	int fd = w->fds[below(&w->rng, MAX_AREAS)];

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

static struct mapping *free_map_slot(struct worker *w)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (!w->maps[i].addr)
			return &w->maps[i];
	return NULL;
}

static struct mapping *rnd_map(struct worker *w)
{
	struct mapping *m = &w->maps[below(&w->rng, MAX_MAPS)];

	return m->addr ? m : NULL;
}

static void drop_map(struct mapping *m)
{
	munmap(m->addr, m->len);
	m->addr = NULL;
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
	w->faults++;
	failure(w, "fault touching %p + %#zx (len %#zx, prot %d)",
		m->addr, bad * page_size, m->len, m->prot);
	/* The mapping is not trustworthy any more. */
	drop_map(m);
}

/* Is all of [addr, addr + len) still mapped? */
static bool still_mapped(char *addr, size_t len)
{
	unsigned char vec[MAX_MAP_PAGES + 2];

	return mincore(addr, len, vec) == 0;
}

static bool op_open(struct worker *w)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };
	int slot = free_area_slot(w);

	if (slot < 0) {
		close(w->fds[below(&w->rng, MAX_AREAS)]);
		slot = free_area_slot(w);
	}
	w->fds[slot] = open(ASHMEM_DEV, modes[below(&w->rng, 5)] | O_CLOEXEC);
	/* Usually give it a usable size at once. */
	if (w->fds[slot] >= 0 && chance(w, 70))
		ioctl(w->fds[slot], ASHMEM_SET_SIZE,
		      (size_t)((1 + below(&w->rng, MAX_MAP_PAGES)) * page_size -
			       below(&w->rng, 2) * below(&w->rng, page_size)));
	return true;
}

static bool op_close(struct worker *w)
{
	int i = below(&w->rng, MAX_AREAS);

	if (w->fds[i] >= 0) {
		close(w->fds[i]);
		w->fds[i] = -1;
	}
	return true;
}

static bool op_dup(struct worker *w)
{
	int slot = free_area_slot(w), fd = rnd_fd(w);

	if (slot < 0 || fd < 0)
		return false;
	w->fds[slot] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return w->fds[slot] >= 0;
}

/* Sends an area over a unix socket to ourselves: a new fd, same area. */
static bool op_pass_fd(struct worker *w)
{
	int slot = free_area_slot(w), fd = rnd_fd(w), sv[2];
	char byte = 0;

	if (slot < 0 || fd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	if (!send_fd(sv[0], fd, &byte, 1))
		w->fds[slot] = recv_fd(sv[1], &byte, 1);
	close(sv[0]);
	close(sv[1]);
	return w->fds[slot] >= 0;
}

/* Errors the driver may return for a well-formed ashmem ioctl. */
static bool expected_errno(int err)
{
	return err == EINVAL || err == EFAULT || err == EPERM ||
	       err == ENOMEM || err == EOVERFLOW || err == EBADF ||
	       err == ENOTTY;
}

static bool op_ashmem_ioctl(struct worker *w)
{
	static const unsigned long cmds[] = {
		ASHMEM_SET_NAME, ASHMEM_GET_NAME, ASHMEM_SET_SIZE,
		ASHMEM_GET_SIZE, ASHMEM_SET_PROT_MASK, ASHMEM_GET_PROT_MASK,
		ASHMEM_PIN, ASHMEM_UNPIN, ASHMEM_GET_PIN_STATUS,
		ASHMEM_GET_FILE_ID,
	};
	unsigned long cmd = cmds[below(&w->rng, ARRAY_SIZE(cmds))];
	int fd = rnd_fd(w);
	unsigned long arg;
	struct ashmem_pin *pin;
	long ret;
	char *s;

	switch (cmd) {
	case ASHMEM_SET_NAME:
		arg = rnd_ptr(w, ASHMEM_NAME_LEN + 8);
		if (arg >= (unsigned long)w->scratch &&
		    arg < (unsigned long)w->scratch + SCRATCH_PAGES * page_size) {
			size_t room = (unsigned long)w->scratch +
				      SCRATCH_PAGES * page_size - arg;
			size_t len = below(&w->rng, room < 300 ? room : 300);

			s = (char *)arg;
			memset(s, 'a' + below(&w->rng, 26), len);
			if (chance(w, 90) && len)
				s[len - 1] = '\0';
		}
		break;
	case ASHMEM_SET_SIZE:
		arg = (unsigned long)rnd_size(w);
		break;
	case ASHMEM_SET_PROT_MASK:
		arg = chance(w, 80) ? below(&w->rng, 8) : (unsigned long)rnd(&w->rng);
		break;
	case ASHMEM_PIN:
	case ASHMEM_UNPIN:
	case ASHMEM_GET_PIN_STATUS:
		arg = chance(w, 80) ? (unsigned long)w->scratch +
				      below(&w->rng, page_size / 8) * 8 :
				      rnd_ptr(w, sizeof(*pin));
		if (arg >= (unsigned long)w->scratch &&
		    arg <= (unsigned long)w->scratch +
			   SCRATCH_PAGES * page_size - sizeof(*pin)) {
			pin = (struct ashmem_pin *)arg;
			pin->offset = rnd_pin_field(w);
			pin->len = chance(w, 20) ? 0 : rnd_pin_field(w);
		}
		break;
	default:
		arg = rnd_ptr(w, ASHMEM_NAME_LEN);
		break;
	}

	ret = syscall(SYS_ioctl, fd, cmd, arg);
	/*
	 * GET_SIZE returns data through ioctl(2)'s int: a size whose low 32
	 * bits are in -4095..-1 looks like an error.  Not the driver's fault.
	 */
	if (cmd == ASHMEM_GET_SIZE)
		return true;
	if (ret < 0 && fd >= 0 && !expected_errno(errno)) {
		w->bad_errno++;
		failure(w, "ioctl(%#lx, %#lx) failed with errno %d (%s)",
			cmd, arg, errno, strerror(errno));
	}
	return ret >= 0;
}

static bool op_random_ioctl(struct worker *w)
{
	unsigned long cmd, arg;
	unsigned int type;

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

	arg = chance(w, 60) ? rnd_ptr(w, _IOC_SIZE(cmd)) : (unsigned long)rnd(&w->rng);
	/* Fully random values may hit our own memory: only use pointers. */
	if (_IOC_DIR(cmd) & _IOC_READ || type == 'T' || type == 0)
		arg = rnd_ptr(w, _IOC_SIZE(cmd) ? _IOC_SIZE(cmd) : 8);
	return syscall(SYS_ioctl, rnd_fd(w), cmd, arg) >= 0;
}

static bool op_mmap(struct worker *w)
{
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE };
	struct mapping *m = free_map_slot(w);
	int fd = rnd_fd(w), prot, flags;
	size_t len;
	off_t off;
	char *p;

	if (!m) {
		m = rnd_map(w);
		if (!m)
			return false;
		drop_map(m);
	}
	len = below(&w->rng, MAX_MAP_PAGES + 1) * page_size;
	if (chance(w, 5))
		len += below(&w->rng, page_size);
	off = chance(w, 70) ? 0 : (off_t)below(&w->rng, MAX_MAP_PAGES) * page_size;
	if (chance(w, 3))
		off = (off_t)rnd(&w->rng) & ~(off_t)(page_size - 1) & INT64_MAX;
	prot = chance(w, 80) ? PROT_READ | PROT_WRITE : (int)below(&w->rng, 8);
	flags = types[below(&w->rng, 3)] | (chance(w, 30) ? MAP_NORESERVE : 0);
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return false;
	m->addr = p;
	m->len = (len + page_size - 1) & ~(page_size - 1);
	m->prot = prot;
	return true;
}

static bool op_munmap(struct worker *w)
{
	struct mapping *m = rnd_map(w);

	if (m)
		drop_map(m);
	return m;
}

static bool op_mprotect(struct worker *w)
{
	struct mapping *m = rnd_map(w);
	int prot = below(&w->rng, 8);

	if (!m || mprotect(m->addr, m->len, prot))
		return false;
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

static bool op_read(struct worker *w)
{
	size_t len = below(&w->rng, chance(w, 50) ? 64 : SCRATCH_PAGES * page_size);
	unsigned long buf = rnd_ptr(w, len);
	int fd = rnd_fd(w);

	/* Only the scratch buffer and our mappings are big enough. */
	if (buf >= (unsigned long)w->scratch &&
	    buf < (unsigned long)w->scratch + SCRATCH_PAGES * page_size)
		len = (unsigned long)w->scratch + SCRATCH_PAGES * page_size - buf;
	else if (buf != (unsigned long)w->ro && len > 64)
		len = 64;
	if (chance(w, 50))
		return pread(fd, (void *)buf, len, chance(w, 80) ?
			     (off_t)below(&w->rng, MAX_MAP_PAGES * page_size) :
			     (off_t)(rnd(&w->rng) >> 1)) >= 0;
	return read(fd, (void *)buf, len) >= 0;
}

static bool op_lseek(struct worker *w)
{
	off_t off = chance(w, 70) ? (off_t)below(&w->rng, 2 * MAX_MAP_PAGES * page_size) :
				    (off_t)rnd(&w->rng);

	return lseek(rnd_fd(w), off, below(&w->rng, 7)) >= 0;
}

static bool op_madvise(struct worker *w)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_REMOVE, MADV_FREE, MADV_WILLNEED,
		MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE,
	};
	struct mapping *m = rnd_map(w);

	if (!m)
		return false;
	return madvise(m->addr, m->len,
		       advice[below(&w->rng, ARRAY_SIZE(advice))]) == 0;
}

/*
 * remap_file_pages() re-mmaps with MAP_FIXED.  ashmem refuses it, and the
 * range may then be left unmapped, so check before the mapping is touched
 * again.  It succeeds only where the kernel merges the range into a
 * neighbouring mapping of the same area with the same flags, without
 * asking the driver: then the pages it names are mapped, maybe past the
 * end of the area, where a touch raises SIGBUS as on any shmem file.  So
 * a mapping a remap succeeded on is dropped too.
 */
static bool op_remap(struct worker *w)
{
	struct mapping *m = rnd_map(w);
	size_t pages;
	int ret;

	if (!m)
		return false;
	pages = m->len / page_size;
	ret = remap_file_pages(m->addr, m->len, 0, below(&w->rng, pages + 2), 0);
	if (ret == 0 || !still_mapped(m->addr, m->len))
		drop_map(m);
	return ret == 0;
}

/* A child inherits everything, touches and closes some, and exits. */
static bool op_fork(struct worker *w)
{
	pid_t pid;
	int status, i;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		w->faults = 0;
		w->bad_errno = 0;
		for (i = 0; i < MAX_MAPS; i++)
			if (w->maps[i].addr && chance(w, 50))
				touch(w, &w->maps[i]);
		for (i = 0; i < MAX_AREAS; i++)
			if (w->fds[i] >= 0 && chance(w, 50))
				op_ashmem_ioctl(w);
		_exit(w->faults || w->bad_errno ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		w->faults++;
		failure(w, "forked child ended with status %#x", status);
	}
	return true;
}

static bool op_purge(struct worker *w)
{
	int fd = rnd_fd(w);

	return fd >= 0 && ioctl(fd, ASHMEM_PURGE_ALL_CACHES) >= 0;
}

static bool (*const op_fns[NR_OPS])(struct worker *w) = {
	op_open, op_close, op_dup, op_pass_fd, op_ashmem_ioctl, op_random_ioctl,
	op_mmap, op_munmap, op_mprotect, op_touch, op_read, op_lseek,
	op_madvise, op_remap, op_fork, op_purge,
};

static int setup_worker(struct worker *w, uint64_t seed, bool verbose)
{
	char *p;
	int i;

	memset(w, 0, sizeof(*w));
	w->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	w->verbose = verbose;
	for (i = 0; i < MAX_AREAS; i++)
		w->fds[i] = -1;
	/* scratch | read-only | writable | hole */
	p = mmap(NULL, (SCRATCH_PAGES + 3) * page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	w->scratch = p;
	w->ro = p + SCRATCH_PAGES * page_size;
	memset(w->ro, 0xcc, page_size);
	if (mprotect(w->ro, page_size, PROT_READ))
		return -1;
	w->hole = w->ro + 2 * page_size;
	munmap(w->hole, page_size);
	w->unmapped = w->hole;
	return 0;
}

static int run_worker(uint64_t seed, unsigned long iterations, uint64_t deadline,
		      bool verbose)
{
	uint64_t start = now_ns();
	unsigned long n, total_ok = 0;
	struct worker w;
	int i;

	if (setup_worker(&w, seed, verbose))
		return 2;
	signal(SIGPIPE, SIG_IGN);

	for (n = 0; n < iterations && now_ns() < deadline; n++) {
		unsigned int op = pick_weighted(&w.rng, op_weights, NR_OPS);
		bool ok = op_fns[op](&w);

		w.ops[op]++;
		w.ok[op] += ok;
		total_ok += ok;
	}

	/* Tear down in a random order too. */
	for (i = 0; i < MAX_MAPS + MAX_AREAS; i++) {
		if (chance(&w, 50))
			op_close(&w);
		else
			op_munmap(&w);
	}

	printf("# seed %llu: %lu iterations, %.1f s, %lu ok; faults %lu, bad errno %lu\n",
	       (unsigned long long)seed, n, (now_ns() - start) / 1e9, total_ok, w.faults,
	       w.bad_errno);
	if (verbose)
		for (i = 0; i < NR_OPS; i++)
			printf("#   %-16s %8lu (%lu ok)\n", op_names[i], w.ops[i], w.ok[i]);
	fflush(stdout);
	return w.faults || w.bad_errno ? 1 : 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PROCESSES] [-v]\n"
		"  defaults: random seed, 20000 iterations, 60 s, 2 processes\n",
		prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long iterations = 20000;
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	double seconds = 60;
	uint64_t deadline;
	int procs = 2, opt, i, failed = 0;
	bool verbose = false;
	pid_t *pids;

	while ((opt = getopt(argc, argv, "s:n:t:p:vh")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			iterations = strtoul(optarg, NULL, 0);
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
	page_size = sysconf(_SC_PAGESIZE);

	ksft_start_one();
	ksft_print_msg("ashmem_fuzz: seed %llu, %lu iterations per process, %.0f s, %d processes\n",
		       (unsigned long long)seed, iterations, seconds, procs);
	ksft_print_msg("replay one process with -p 1 -s SEED\n");

	deadline = now_ns() + seconds * 1e9;
	pids = calloc(procs, sizeof(*pids));
	if (!pids)
		ksft_exit_fail_msg("out of memory\n");
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (pids[i] == 0)
			_exit(run_worker(seed + i, iterations, deadline, verbose));
	}
	for (i = 0; i < procs; i++) {
		int status;
		pid_t r;

		/* A worker stuck in the kernel is a failure, not a hang. */
		while ((r = waitpid(pids[i], &status, WNOHANG)) == 0 &&
		       now_ns() < deadline + 60 * 1000000000ULL)
			usleep(50 * 1000);
		if (r != pids[i]) {
			ksft_print_msg("worker (seed %llu) still running 60 s past the deadline\n",
				       (unsigned long long)seed + i);
			kill(pids[i], SIGKILL);
			failed++;
			continue;
		}
		if (WIFSIGNALED(status)) {
			ksft_print_msg("worker with seed %llu killed by signal %d\n",
				       (unsigned long long)seed + i, WTERMSIG(status));
			failed++;
		} else if (WEXITSTATUS(status)) {
			ksft_print_msg("worker with seed %llu failed (exit %d)\n",
				       (unsigned long long)seed + i, WEXITSTATUS(status));
			failed++;
		}
	}
	ksft_test_result(!failed, "ashmem_fuzz seed %llu\n", (unsigned long long)seed);
	ksft_finished();
}
