// SPDX-License-Identifier: GPL-2.0
/*
 * ashmem_bench: seven performance measures of /dev/ashmem, each printed as the
 * ratio of two figures measured side by side in one run, against its goal.
 *
 * Every measure compares two (or more) sides.  A repetition takes one sample
 * of each side in turn (A B A B ...), so drift of the machine cancels in the
 * per-repetition ratio; figures and ratios are the median of --reps
 * repetitions, with the minimum and maximum beside them.  A timed loop is
 * calibrated to run about --sample-ms; measures whose sample needs untimed
 * set-up (purge, faults) time exactly one operation per sample.
 *
 * Goals are reported, not asserted.  The exit status is 0 unless the device
 * misbehaves (an ioctl fails or does not do what it says): 1, or 4 (skip)
 * when the device cannot be opened at all.  Works against any ashmem with
 * Android's ABI: --device names the node.
 *
 * In a VM under qemu -icount shift=0 the guest's clock counts instructions:
 * --insn labels the figures so (kinsn for us), and leaves out measure 2,
 * since such a VM runs one vCPU at a time.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>

#include "../kselftest.h"
#include "ashmem_util.h"

#define MAX_REPS	101
#define MAX_ROWS	32
#define SETTLE_SECONDS	5
#define CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"

static const char *device = ASHMEM_DEV;
static int reps = 7;
static bool quick;
static bool insn;	/* the clock counts instructions (qemu -icount) */
static double sample_ms = 50;
static unsigned int only = ~0u;	/* bit i: run measure i */
static long page_size;
static int ncpus;

static void __noreturn __printf(1, 2)
fail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ashmem_bench: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (errno %d: %s)\n", err, strerror(err));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stats {
	double med, min, max;
};

static struct stats stats_of(const double *v, int n)
{
	double s[MAX_REPS];
	struct stats st;

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	st.min = s[0];
	st.max = s[n - 1];
	st.med = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return st;
}

/*
 * One side of a comparison.  ->run() performs @iters operations and returns
 * the nanoseconds they took; the figure of a sample is then
 *	cost: ns / (iters * per_op) / div	(lower is better), or
 *	rate: iters * per_op / ns * 1e9 / div	(higher is better).
 */
struct side {
	const char *label;
	const char *unit;
	double (*run)(struct side *s, long iters);
	void *ctx;
	bool rate;
	bool fixed;		/* one operation a sample, no calibration */
	double per_op;
	double div;
	long iters;
	double v[MAX_REPS];
};

struct row {
	char id[8];
	char name[48];
	char a_unit[24], b_unit[24];
	struct stats a_st, b_st, r_st;
	char goal[16];
	const char *met;
};

static struct row rows[MAX_ROWS];
static int nrows;
static double cpu_scaling;	/* control 2c, when measured */

static double figure(const struct side *s, double ns)
{
	double ops = s->iters * s->per_op;

	if (ns <= 0)
		ns = 1;
	return s->rate ? ops / ns * 1e9 / s->div : ns / ops / s->div;
}

static void calibrate(struct side *s)
{
	double target = sample_ms * 1e6, ns;
	long iters = 1;

	s->iters = 1;
	if (s->fixed)
		return;
	for (;;) {
		ns = s->run(s, iters);
		if (ns >= target / 10 || iters >= (1L << 28))
			break;
		iters *= ns > 0 && target / 10 / ns < 16 ? 4 : 16;
	}
	s->iters = iters * target / (ns > 0 ? ns : 1);
	if (s->iters < 1)
		s->iters = 1;
}

/*
 * With --insn a nanosecond of the guest's clock is one instruction: name
 * the units for what they count, in a buffer the next call overwrites.
 */
static const char *unit_of(const struct side *s)
{
	static const char *const map[][2] = {
		{ "us/", "kinsn/" }, { "ms/", "Minsn/" }, { "/s", "/Ginsn" },
	};
	static char out[24];
	const char *at;
	size_t i;

	if (!insn)
		return s->unit;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		at = strstr(s->unit, map[i][0]);
		if (!at)
			continue;
		snprintf(out, sizeof(out), "%.*s%s%s",
			 (int)(at - s->unit), s->unit, map[i][1],
			 at + strlen(map[i][0]));
		return out;
	}
	return s->unit;
}

static void print_side(const struct side *s)
{
	struct stats st = stats_of(s->v, reps);

	printf("    %-28s %12.4g %-10s [%.4g - %.4g]\n",
	       s->label, st.med, unit_of(s), st.min, st.max);
}

/*
 * Samples the sides in turn, @reps times, and prints their figures.  A side
 * whose ->iters is set keeps it; the others are calibrated.
 */
static void sample_sides(struct side *sides, int n)
{
	int i, r;

	/* Calibration, or one untimed sample, warms every side up. */
	for (i = 0; i < n; i++) {
		if (!sides[i].iters)
			calibrate(&sides[i]);
		if (sides[i].fixed)
			sides[i].run(&sides[i], 1);
	}
	for (r = 0; r < reps; r++)
		for (i = 0; i < n; i++)
			sides[i].v[r] = figure(&sides[i],
					       sides[i].run(&sides[i],
							    sides[i].iters));
	for (i = 0; i < n; i++)
		print_side(&sides[i]);
}

/* A side that costs microseconds an operation: @unit is "us/...". */
static struct side us_side(const char *label, const char *unit,
			   double (*run)(struct side *s, long iters), void *ctx)
{
	return (struct side){ .label = label, .unit = unit, .run = run,
			      .ctx = ctx, .per_op = 1, .div = 1e3 };
}

/*
 * Report a / b; @goal > 0 is "ratio <= goal" for costs and "ratio >= goal"
 * for rates, 0 means report only.
 */
static void report(const char *id, const char *name, const struct side *a,
		   const struct side *b, double goal)
{
	double r[MAX_REPS];
	struct row *row;
	int i;

	for (i = 0; i < reps; i++)
		r[i] = a->v[i] / b->v[i];
	if (nrows == MAX_ROWS)
		return;
	row = &rows[nrows++];
	snprintf(row->id, sizeof(row->id), "%s", id);
	snprintf(row->name, sizeof(row->name), "%s", name);
	snprintf(row->a_unit, sizeof(row->a_unit), "%s", unit_of(a));
	snprintf(row->b_unit, sizeof(row->b_unit), "%s", unit_of(b));
	row->a_st = stats_of(a->v, reps);
	row->b_st = stats_of(b->v, reps);
	row->r_st = stats_of(r, reps);
	if (goal > 0) {
		snprintf(row->goal, sizeof(row->goal), "%s %.2f",
			 a->rate ? ">=" : "<=", goal);
		bool med = a->rate ? row->r_st.med >= goal : row->r_st.med <= goal;
		bool all = a->rate ? row->r_st.min >= goal : row->r_st.max <= goal;
		bool any = a->rate ? row->r_st.max >= goal : row->r_st.min <= goal;

		/* '*': the goal lies within the spread of the repetitions. */
		if (med)
			row->met = all ? "yes" : "yes*";
		else
			row->met = any ? "NO*" : "NO";
	} else {
		snprintf(row->goal, sizeof(row->goal), "(no goal)");
		row->met = "-";
	}
	printf("    ratio %s: %.3f [%.3f - %.3f]  goal %s  %s\n", name,
	       row->r_st.med, row->r_st.min, row->r_st.max, row->goal,
	       goal > 0 ? (row->met[0] == 'y' ? "met" : "NOT MET") : "");
}

static void format_stats(char *buf, size_t len, const struct stats *st,
			 const char *unit)
{
	snprintf(buf, len, "%.4g %s [%.4g-%.4g]", st->med, unit, st->min,
		 st->max);
}

static void print_table(void)
{
	int i;

	printf("\n%-4s %-34s %-30s %-30s %-24s %-9s %s\n", "#", "measure",
	       "A: median [min - max]", "B: median [min - max]",
	       "ratio A/B [min - max]", "goal", "met");
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char a[64], b[64], q[48];

		format_stats(a, sizeof(a), &r->a_st, r->a_unit);
		format_stats(b, sizeof(b), &r->b_st, r->b_unit);
		snprintf(q, sizeof(q), "%.3f [%.3f-%.3f]", r->r_st.med,
			 r->r_st.min, r->r_st.max);
		printf("%-4s %-34s %-30s %-30s %-24s %-9s %s\n", r->id,
		       r->name, a, b, q, r->goal, r->met);
	}
	printf("met: the median ratio meets the goal; '*': the goal lies within the\n"
	       "spread of the repetitions, so the verdict is not firm.\n");
	if (cpu_scaling && cpu_scaling < 1.8)
		printf("warning: 2 threads that never leave userspace ran only %.2f times as\n"
		       "fast as 1 (2c): this machine did not give the benchmark 2 free CPUs,\n"
		       "so measure 2 says little about the driver in this run.\n",
		       cpu_scaling);
}

static int area_open(size_t size)
{
	int fd = open(device, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fail("open %s", device);
	if (ioctl(fd, ASHMEM_SET_SIZE, size) < 0)
		fail("ASHMEM_SET_SIZE %zu", size);
	return fd;
}

static void *map_shared(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		fail("mmap MAP_SHARED of %zu bytes", len);
	return p;
}

/* An area of @pages pages whose backing exists (mapped once, unmapped). */
static int area_ready(unsigned long pages)
{
	int fd = area_open(pages * page_size);

	munmap(map_shared(fd, page_size), page_size);
	return fd;
}

/* PIN, UNPIN or GET_PIN_STATUS of pages, which must not fail. */
static int pin_check(int fd, unsigned long cmd, unsigned long page,
		     unsigned long n)
{
	int ret = pin_pages(fd, cmd, page, n);

	if (ret < 0 || ret > 1 || (cmd == ASHMEM_UNPIN && ret))
		fail("%s of page %lu returned %d",
		     cmd == ASHMEM_PIN ? "ASHMEM_PIN" :
		     cmd == ASHMEM_UNPIN ? "ASHMEM_UNPIN" :
		     "ASHMEM_GET_PIN_STATUS", page, ret);
	return ret;
}

static void expect_status(int fd, unsigned long page, int want)
{
	int ret = pin_check(fd, ASHMEM_GET_PIN_STATUS, page, 1);

	if (ret != want) {
		errno = 0;
		fail("page %lu is %s, expected %s", page,
		     ret == ASHMEM_IS_PINNED ? "pinned" : "unpinned",
		     want == ASHMEM_IS_PINNED ? "pinned" : "unpinned");
	}
}

static int memfd_sized(size_t size)
{
	int fd = memfd_create("ashmem_bench", MFD_CLOEXEC);

	if (fd < 0)
		fail("memfd_create");
	if (ftruncate(fd, size) < 0)
		fail("ftruncate memfd to %zu", size);
	return fd;
}

static void dirty_pages(char *p, size_t len, char c)
{
	size_t off;

	for (off = 0; off < len; off += page_size)
		__atomic_store_n(p + off, c, __ATOMIC_RELAXED);
}

/* How many pages of [p, p + len) are resident. */
static unsigned long resident(void *p, size_t len)
{
	unsigned long n = len / page_size, i, count = 0;
	unsigned char *vec = malloc(n);

	if (!vec || mincore(p, len, vec) < 0)
		fail("mincore");
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

#define ANY	(-1L)

/*
 * Rounds of one or two ioctls with the same argument, each of which must
 * return @want, or with ANY whatever is not an error.
 */
struct ioctls {
	char what[48];		/* names them when one fails */
	int fd;
	unsigned long cmd[2];	/* cmd[1] 0: one ioctl a round */
	unsigned long arg;
	long want;
	struct ashmem_pin pin;
};

/* @cmd0, then @cmd1 if it is not 0, on page @page of @fd. */
static void on_page(struct ioctls *io, const char *what, int fd,
		    unsigned long page, unsigned long cmd0, unsigned long cmd1)
{
	*io = (struct ioctls){
		.fd = fd, .cmd = { cmd0, cmd1 }, .want = ANY,
		.pin = { .offset = page * page_size, .len = page_size },
	};
	io->arg = (unsigned long)&io->pin;
	snprintf(io->what, sizeof(io->what), "%s of page %lu", what, page);
}

/*
 * The fields are copied into locals, which stay in registers across the
 * calls: the loop adds as little as it can to the ioctls it times.
 */
static void ioctl_rounds(const struct ioctls *io, long iters)
{
	unsigned long cmd0 = io->cmd[0], cmd1 = io->cmd[1], arg = io->arg;
	long i, ret, want = io->want;
	int fd = io->fd;

	for (i = 0; i < iters; i++) {
		ret = ioctl(fd, cmd0, arg);
		if (ret < 0 || (want != ANY && ret != want))
			break;
		if (!cmd1)
			continue;
		ret = ioctl(fd, cmd1, arg);
		if (ret < 0 || (want != ANY && ret != want))
			break;
	}
	if (i < iters)
		fail("%s returned %ld", io->what, ret);
}

static double ioctls_run(struct side *s, long iters)
{
	uint64_t t0 = now_ns();

	ioctl_rounds(s->ctx, iters);
	return now_ns() - t0;
}

/* An area of @pages pages, odd pages unpinned: one-page ranges. */
static int area_odd_unpinned(unsigned long pages)
{
	int fd = area_ready(pages);
	unsigned long p;

	for (p = 1; p < pages; p += 2)
		pin_check(fd, ASHMEM_UNPIN, p, 1);
	return fd;
}

/*
 * An area of 2n + 1 pages with the odd pages unpinned: n separate one-page
 * ranges.  The target is the unpinned page 2 * (n / 2) + 1 near the middle
 * (PIN deletes its range, UNPIN inserts it again), or for the merge variant
 * the pinned page 2 * (n / 2) between two unpinned ones (UNPIN merges three
 * ranges into one, PIN splits it back).
 */
static void measure_ranges(bool merge)
{
	static const unsigned long all_ns[2][3] = {
		{ 1, 100, 10000 }, { 2, 100, 10000 },
	};
	const unsigned long *ns = all_ns[merge];
	struct side sides[3];
	struct ioctls io[3];
	const char *what = merge ? "merge/split" : "range scaling";
	char labels[3][32], name[48];
	unsigned long target;
	int i, fd;

	if (!merge)
		printf("\n[1] range scaling: PIN+UNPIN of the unpinned page near the middle\n"
		       "    of an area of 2n+1 pages whose odd pages are unpinned (n ranges)\n");
	else
		printf("\n[1m] range scaling, merge/split: UNPIN+PIN of the pinned page\n"
		       "    between two unpinned ones (UNPIN merges 3 ranges into 1, PIN\n"
		       "    splits it again)\n");
	for (i = 0; i < 3; i++) {
		fd = area_odd_unpinned(2 * ns[i] + 1);
		target = 2 * (ns[i] / 2) + !merge;
		expect_status(fd, target, merge ? ASHMEM_IS_PINNED : ASHMEM_IS_UNPINNED);
		if (merge)
			on_page(&io[i], "UNPIN+PIN", fd, target, ASHMEM_UNPIN, ASHMEM_PIN);
		else
			on_page(&io[i], "PIN+UNPIN", fd, target, ASHMEM_PIN, ASHMEM_UNPIN);
		snprintf(labels[i], sizeof(labels[i]), "n=%lu (page %lu)", ns[i],
			 target);
		sides[i] = us_side(labels[i], "us/pair", ioctls_run, &io[i]);
	}
	sample_sides(sides, 3);
	snprintf(name, sizeof(name), "%s cost(%lu)/cost(%lu)", what, ns[2], ns[0]);
	report(merge ? "1m" : "1", name, &sides[2], &sides[0], merge ? 0 : 2.0);
	snprintf(name, sizeof(name), "%s cost(%lu)/cost(%lu)", what, ns[1], ns[0]);
	report(merge ? "1m'" : "1'", name, &sides[1], &sides[0], 0);
	for (i = 0; i < 3; i++)
		close(io[i].fd);
}

/* A thread of a side: the ioctls it times, or a CPU loop if they are none. */
struct worker {
	pthread_t thread;
	pthread_barrier_t *barrier;
	const struct ioctls *io;
	int cpu;
	long iters;
	uint64_t t0, t1;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long x = 0;
	cpu_set_t set;
	long i;
	int j;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(w->barrier);
	w->t0 = now_ns();
	if (w->io->cmd[0]) {
		ioctl_rounds(w->io, w->iters);
	} else {
		for (i = 0; i < w->iters; i++) {
			/* The empty asm keeps the compiler from folding the loop. */
			for (j = 0; j < 1000; j++) {
				x += j;
				asm volatile("" : "+r" (x));
			}
		}
	}
	w->t1 = now_ns();
	return NULL;
}

/* The threads of one side, and what each times. */
struct team {
	int nthreads;
	struct ioctls io[2];
};

static double team_run(struct side *s, long iters)
{
	struct team *team = s->ctx;
	struct worker w[2];
	pthread_barrier_t barrier;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int i;

	pthread_barrier_init(&barrier, NULL, team->nthreads);
	for (i = 0; i < team->nthreads; i++) {
		w[i] = (struct worker){
			.barrier = &barrier, .io = &team->io[i],
			.cpu = i % ncpus, .iters = iters,
		};
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			fail("pthread_create");
	}
	for (i = 0; i < team->nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		t0 = w[i].t0 < t0 ? w[i].t0 : t0;
		t1 = w[i].t1 > t1 ? w[i].t1 : t1;
	}
	pthread_barrier_destroy(&barrier);
	return t1 - t0;
}

/*
 * Areas of 65 pages, odd pages unpinned (32 ranges); thread 0 works on page
 * 17 and thread 1 on page 49, each PIN then UNPIN of its unpinned page.
 * The controls show what scales without the driver's shared state: a lookup
 * under the area's lock only (GET_PIN_STATUS), an ioctl that takes no lock
 * (GET_SIZE), a loop that never leaves userspace.
 */
static void measure_parallel(void)
{
	static const struct {
		const char *label, *unit;
		unsigned long cmd[2];	/* none: the CPU loop */
		int nthreads;
		bool same_area;
	} def[] = {
		{ "PIN+UNPIN, 1 thread", "kpair/s", { ASHMEM_PIN, ASHMEM_UNPIN }, 1 },
		{ "PIN+UNPIN, 2 thr, 2 areas", "kpair/s", { ASHMEM_PIN, ASHMEM_UNPIN }, 2 },
		{ "PIN+UNPIN, 2 thr, 1 area", "kpair/s", { ASHMEM_PIN, ASHMEM_UNPIN }, 2, true },
		{ "GET_PIN_STATUS, 1 thread", "kioctl/s", { ASHMEM_GET_PIN_STATUS }, 1 },
		{ "GET_PIN_STATUS, 2 thr, 2 ar", "kioctl/s", { ASHMEM_GET_PIN_STATUS }, 2 },
		{ "GET_SIZE, 1 thread", "kioctl/s", { ASHMEM_GET_SIZE }, 1 },
		{ "GET_SIZE, 2 thr, 2 areas", "kioctl/s", { ASHMEM_GET_SIZE }, 2 },
		{ "CPU loop, 1 thread", "kloop/s", { 0 }, 1 },
		{ "CPU loop, 2 threads", "kloop/s", { 0 }, 2 },
	};
	enum { N = ARRAY_SIZE(def) };
	static const unsigned long page[2] = { 17, 49 };
	struct side sides[N];
	struct team teams[N];
	long iters = 0;
	int fd[2], i, t;

	printf("\n[2] parallel scaling: operations per second, threads pinned to CPUs 0 and 1\n"
	       "    (areas of 65 pages with 32 unpinned ranges; PIN+UNPIN pairs of page 17 in\n"
	       "    thread 0, of page 49 in thread 1; every thread does the same work)\n");
	if (ncpus < 2)
		printf("    note: only %d CPU online: 2 threads cannot run in parallel\n",
		       ncpus);
	fd[0] = area_odd_unpinned(65);
	fd[1] = area_odd_unpinned(65);
	for (i = 0; i < N; i++) {
		teams[i].nthreads = def[i].nthreads;
		for (t = 0; t < def[i].nthreads; t++)
			on_page(&teams[i].io[t], def[i].label,
				fd[def[i].same_area ? 0 : t], page[t],
				def[i].cmd[0], def[i].cmd[1]);
		sides[i] = (struct side){
			.label = def[i].label, .unit = def[i].unit,
			.run = team_run, .ctx = &teams[i], .rate = true,
			.per_op = def[i].nthreads, .div = 1e3,
		};
		/* A thread of a 2-thread side does what the 1 thread does. */
		if (def[i].nthreads == 1) {
			calibrate(&sides[i]);
			iters = sides[i].iters;
		}
		sides[i].iters = iters;
	}
	sample_sides(sides, N);
	report("2", "parallel: 2 thr 2 areas / 1 thr", &sides[1], &sides[0], 1.7);
	report("2s", "parallel: 2 thr 1 area / 1 thr", &sides[2], &sides[0], 0);
	report("2p", "ctl: GET_PIN_STATUS 2 thr / 1", &sides[4], &sides[3], 0);
	report("2g", "ctl: GET_SIZE 2 thr / 1", &sides[6], &sides[5], 0);
	report("2c", "ctl: CPU loop 2 thr / 1", &sides[8], &sides[7], 0);
	cpu_scaling = rows[nrows - 1].r_st.med;
	close(fd[0]);
	close(fd[1]);
}

#define LIFECYCLE_SIZE	(64 * 1024)

/* The steps of a lifecycle, ashmem or memfd: create and size, map, unmap. */
static int new_fd(bool ashmem)
{
	return ashmem ? open(device, O_RDWR | O_CLOEXEC) :
			memfd_create("ashmem_bench", MFD_CLOEXEC);
}

static int set_fd_size(bool ashmem, int fd)
{
	return ashmem ? ioctl(fd, ASHMEM_SET_SIZE, (size_t)LIFECYCLE_SIZE) :
			ftruncate(fd, LIFECYCLE_SIZE);
}

/* ctx NULL: ashmem, else memfd */
static double lifecycle(struct side *s, long iters)
{
	bool ashmem = !s->ctx;
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		int fd = new_fd(ashmem);
		char *p;

		if (fd < 0 || set_fd_size(ashmem, fd) < 0)
			fail("create and size %s", ashmem ? "an area" : "a memfd");
		p = mmap(NULL, LIFECYCLE_SIZE, PROT_RW, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			fail("mmap of %s", ashmem ? "an area" : "a memfd");
		__atomic_store_n(p, 1, __ATOMIC_RELAXED);
		munmap(p, LIFECYCLE_SIZE);
		close(fd);
	}
	return now_ns() - t0;
}

static double open_close(struct side *s, long iters)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		int fd = new_fd(!s->ctx);

		if (fd < 0)
			fail("open of the device or memfd_create");
		close(fd);
	}
	return now_ns() - t0;
}

/*
 * Where a lifecycle spends its time, step by step: @iters lifecycles with
 * the clock stamped between the steps, each step's time added to @ns.
 */
enum {
	STEP_CREATE, STEP_SIZE, STEP_MMAP, STEP_TOUCH, STEP_MUNMAP, STEP_CLOSE,
	NSTEPS
};

static void lifecycle_steps(bool ashmem, long iters, double *ns)
{
	uint64_t t[NSTEPS + 1];
	long i;
	int k;

	for (i = 0; i < iters; i++) {
		int fd, ret;
		char *p;

		t[0] = now_ns();
		fd = new_fd(ashmem);
		t[1] = now_ns();
		ret = set_fd_size(ashmem, fd);
		t[2] = now_ns();
		p = mmap(NULL, LIFECYCLE_SIZE, PROT_RW, MAP_SHARED, fd, 0);
		t[3] = now_ns();
		if (fd < 0 || ret < 0 || p == MAP_FAILED)
			fail("lifecycle of %s", ashmem ? "an area" : "a memfd");
		__atomic_store_n(p, 1, __ATOMIC_RELAXED);
		t[4] = now_ns();
		munmap(p, LIFECYCLE_SIZE);
		t[5] = now_ns();
		close(fd);
		t[6] = now_ns();
		for (k = 0; k < NSTEPS; k++)
			ns[k] += t[k + 1] - t[k];
	}
}

static void print_lifecycle_steps(long iters)
{
	static const char *const step[NSTEPS] = {
		"open|memfd_create", "SET_SIZE|ftruncate", "mmap", "touch",
		"munmap", "close",
	};
	double a[NSTEPS] = { 0 }, m[NSTEPS] = { 0 }, ta = 0, tm = 0;
	long n = (iters / 4 + 1) * 4;
	int k, round;

	/* Four alternating rounds, so drift hits both alike. */
	for (round = 0; round < 4; round++) {
		lifecycle_steps(true, n / 4, a);
		lifecycle_steps(false, n / 4, m);
	}
	printf("    step by step (%s, mean of %ld areas each):\n",
	       insn ? "kinsn" : "us", n);
	for (k = 0; k < NSTEPS; k++) {
		a[k] /= 1e3 * n;
		m[k] /= 1e3 * n;
		printf("      %-20s ashmem %8.2f   memfd %8.2f\n", step[k],
		       a[k], m[k]);
		ta += a[k];
		tm += m[k];
	}
	printf("      %-20s ashmem %8.2f   memfd %8.2f\n", "total", ta, tm);
}

static void measure_lifecycle(void)
{
	int memfd;		/* a ctx that is not NULL */
	struct side sides[4];

	printf("\n[3] area lifecycle: create + size + mmap(MAP_SHARED, 64 KiB) +\n"
	       "    touch 1 page + munmap + close; for reference, create + close alone\n");
	sides[0] = us_side("ashmem: open+SET_SIZE+...", "us/area", lifecycle, NULL);
	sides[1] = us_side("memfd: create+ftruncate+...", "us/area", lifecycle, &memfd);
	sides[2] = us_side("ashmem: open+close only", "us/area", open_close, NULL);
	sides[3] = us_side("memfd: create+close only", "us/area", open_close, &memfd);
	sample_sides(sides, 4);
	report("3", "lifecycle: ashmem / memfd", &sides[0], &sides[1], 1.10);
	report("3o", "ctl: open+close / create+close", &sides[2], &sides[3], 0);
	print_lifecycle_steps(sides[1].iters);
}

/*
 * On page 8 of an area of 16, all pinned: UNPIN then PIN; GET_SIZE; PIN of
 * the pinned page (everything but the range work); SET_PROT_MASK to the
 * mask the area has (the area's lock, no copy-in).
 */
static void measure_floor(void)
{
	struct ioctls io[4];
	struct side sides[4];
	int fd = area_ready(16);

	printf("\n[4] ioctl floor: UNPIN+PIN of one page (of 16, all pinned) vs one GET_SIZE;\n"
	       "    for reference, PIN of a pinned page (copy-in, lock, look-up, no change)\n"
	       "    and SET_PROT_MASK to the same mask (lock only)\n");
	on_page(&io[0], "UNPIN+PIN", fd, 8, ASHMEM_UNPIN, ASHMEM_PIN);
	on_page(&io[1], "GET_SIZE", fd, 8, ASHMEM_GET_SIZE, 0);
	io[1].want = 16 * page_size;
	on_page(&io[2], "PIN of pinned", fd, 8, ASHMEM_PIN, 0);
	io[2].want = ASHMEM_NOT_PURGED;
	on_page(&io[3], "SET_PROT_MASK", fd, 8, ASHMEM_SET_PROT_MASK, 0);
	io[3].arg = PROT_RWX;
	sides[0] = us_side("UNPIN+PIN pair", "us/pair", ioctls_run, &io[0]);
	sides[1] = us_side("GET_SIZE", "us/ioctl", ioctls_run, &io[1]);
	sides[2] = us_side("PIN of a pinned page", "us/ioctl", ioctls_run, &io[2]);
	sides[3] = us_side("SET_PROT_MASK, same mask", "us/ioctl", ioctls_run, &io[3]);
	sample_sides(sides, 4);
	report("4", "ioctl floor: pair / GET_SIZE", &sides[0], &sides[1], 2.5);
	report("4n", "ctl: no-op PIN / GET_SIZE", &sides[2], &sides[1], 0);
	report("4m", "ctl: SET_PROT_MASK / GET_SIZE", &sides[3], &sides[1], 0);
	close(fd);
}

/*
 * An area (or memfd) of @size bytes, mapped shared and fully populated, cut
 * in strides of @stride pages: the first @stride - 1 pages of each stride
 * unpinned, the last one pinned, so the ranges stay separate.  ashmem frees
 * them with one PURGE_ALL_CACHES, the memfd with one fallocate(PUNCH_HOLE)
 * per range.
 */
struct purge {
	size_t size;
	unsigned long stride;
	unsigned long pages;	/* pages to be freed */
};

static int purge_fd = -1;	/* any area, to call PURGE_ALL_CACHES on */

static double purge_ashmem(struct side *s, long iters)
{
	struct purge *pg = s->ctx;
	unsigned long npages = pg->size / page_size, p, res;
	uint64_t t0, t1;
	long found;
	char *map;
	int fd;

	/* Whatever else is unpinned is purged now, not with our ranges. */
	if (ioctl(purge_fd, ASHMEM_PURGE_ALL_CACHES) < 0)
		fail("ASHMEM_PURGE_ALL_CACHES");
	fd = area_open(pg->size);
	map = map_shared(fd, pg->size);
	dirty_pages(map, pg->size, 0x5a);
	for (p = 0; p < npages; p += pg->stride)
		pin_check(fd, ASHMEM_UNPIN, p, pg->stride - 1);
	res = resident(map, pg->size);
	if (res != npages)
		printf("    note: %lu of %lu pages resident before the purge\n",
		       res, npages);

	t0 = now_ns();
	found = ioctl(fd, ASHMEM_PURGE_ALL_CACHES);
	t1 = now_ns();
	if (found < 0)
		fail("ASHMEM_PURGE_ALL_CACHES");
	if ((unsigned long)found != pg->pages)
		printf("    note: PURGE_ALL_CACHES found %ld unpinned pages, %lu expected\n",
		       found, pg->pages);
	res = resident(map, pg->size);
	if (res != npages - pg->pages) {
		errno = 0;
		fail("%lu pages resident after PURGE_ALL_CACHES, %lu expected",
		     res, npages - pg->pages);
	}
	if (pin_check(fd, ASHMEM_PIN, 0, 0) != ASHMEM_WAS_PURGED) {
		errno = 0;
		fail("ASHMEM_PIN after PURGE_ALL_CACHES: not ASHMEM_WAS_PURGED");
	}
	munmap(map, pg->size);
	close(fd);
	return t1 - t0;
}

static double purge_memfd(struct side *s, long iters)
{
	struct purge *pg = s->ctx;
	unsigned long npages = pg->size / page_size, p;
	uint64_t t0, t1;
	char *map;
	int fd;

	fd = memfd_sized(pg->size);
	map = map_shared(fd, pg->size);
	dirty_pages(map, pg->size, 0x5a);

	t0 = now_ns();
	for (p = 0; p < npages; p += pg->stride) {
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)p * page_size,
			      (off_t)(pg->stride - 1) * page_size) < 0)
			fail("fallocate(PUNCH_HOLE) on a memfd");
	}
	t1 = now_ns();
	if (resident(map, pg->size) != npages - pg->pages)
		printf("    note: the memfd kept pages it punched out\n");
	munmap(map, pg->size);
	close(fd);
	return t1 - t0;
}

static void measure_purge(unsigned long stride, const char *id)
{
	struct purge pg;
	struct side sd[2];
	char label[48], name[48];

	pg.size = (quick ? 8 : 32) << 20;
	pg.stride = stride;
	pg.pages = pg.size / page_size / stride * (stride - 1);
	printf("\n[%s] purge throughput: %zu MiB mapped shared and populated, %lu ranges of %lu\n"
	       "    unpinned page(s) with 1 pinned page between them; %lu pages freed per sample\n",
	       id, pg.size >> 20, pg.size / page_size / stride, stride - 1,
	       pg.pages);
	if (purge_fd < 0)
		purge_fd = area_open(page_size);
	if (ioctl(purge_fd, ASHMEM_PURGE_ALL_CACHES) < 0) {
		if (errno != EPERM)
			fail("ASHMEM_PURGE_ALL_CACHES");
		printf("    skipped: PURGE_ALL_CACHES needs CAP_SYS_ADMIN\n");
		return;
	}
	snprintf(label, sizeof(label), "memfd: %lu fallocate(PUNCH)",
		 pg.size / page_size / stride);
	sd[0] = (struct side){ .label = "ashmem: 1 PURGE_ALL_CACHES",
			       .unit = "kpage/s", .run = purge_ashmem, .ctx = &pg,
			       .rate = true, .fixed = true,
			       .per_op = pg.pages, .div = 1e3 };
	sd[1] = sd[0];
	sd[1].label = label;
	sd[1].run = purge_memfd;
	sample_sides(sd, 2);
	snprintf(name, sizeof(name), "purge, %lu-page ranges: ashmem/memfd",
		 stride - 1);
	report(id, name, &sd[0], &sd[1], stride == 2 ? 0 : 0.8);
}

static size_t fault_size;

/* Maps @fd, writes a byte to each page, unmaps and closes it: ns of the writes. */
static double touch_all(int fd, size_t size)
{
	char *map = map_shared(fd, size);
	uint64_t t0 = now_ns();

	dirty_pages(map, size, 1);
	t0 = now_ns() - t0;
	munmap(map, size);
	close(fd);
	return t0;
}

/* ctx NULL: ashmem, else memfd */
static double faults(struct side *s, long iters)
{
	return touch_all(s->ctx ? memfd_sized(fault_size) : area_open(fault_size),
			 fault_size);
}

static void measure_faults(void)
{
	struct side sides[2];
	char unit[24];

	fault_size = (quick ? 16 : 64) << 20;
	snprintf(unit, sizeof(unit), "ms/%zuMiB", fault_size >> 20);
	printf("\n[6] fault cost: write one byte to every page of a fresh %zu MiB\n"
	       "    MAP_SHARED mapping\n", fault_size >> 20);
	sides[0] = (struct side){ .label = "ashmem", .unit = unit,
				  .run = faults, .fixed = true,
				  .per_op = 1, .div = 1e6 };
	sides[1] = sides[0];
	sides[1].label = "memfd";
	sides[1].ctx = &fault_size;
	sample_sides(sides, 2);
	report("6", "faults: ashmem / memfd", &sides[0], &sides[1], 1.05);
}

/*
 * Measure 7: reclaim itself.  A child in a memory cgroup of its own holds
 * N MiB of what reclaim can take back, then asks for N MiB more than its
 * memory.max leaves it; the sample is the time the child takes to obtain
 * them.  One side holds clean page cache (the cheapest memory the kernel
 * reclaims: a read of --cache), the other N MiB of unpinned ashmem.  The
 * ashmem side also counts the pages purged against those the cgroup had to
 * give back, and a third child, holding the same unpinned area, asks
 * memory.reclaim for a quarter of it: purged against asked, the over-purge.
 * A fourth side, for reference, holds the clean page cache mapped, so that
 * reclaim has to unmap it as a purge unmaps the ashmem pages.
 */
#define RECLAIM_CG	CG_ROOT "/ashmem_bench"
#define RECLAIM_SLACK	(8 << 20)	/* memory.max: N MiB and this */

static const char *cache_path;	/* --cache */
static size_t reclaim_size;

struct reclaim_sample {
	uint64_t ns;		/* to obtain reclaim_size bytes */
	long purged, needed;	/* pages */
};

static long cg_current(void)
{
	char buf[64];

	if (read_small(RECLAIM_CG "/memory.current", buf, sizeof(buf)))
		fail("read %s/memory.current", RECLAIM_CG);
	return atol(buf);
}

/* Fills the page cache with @len bytes of --cache, from its start. */
static void read_cache(size_t len)
{
	size_t chunk = 1 << 20, done;
	char *buf = malloc(chunk);
	int fd = open(cache_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		fail("open %s", cache_path);
	for (done = 0; done < len; done += chunk)
		if (read(fd, buf, chunk) != (ssize_t)chunk)
			fail("read %zu bytes of %s at %zu", chunk, cache_path,
			     done);
	close(fd);
	free(buf);
}

/*
 * Maps @len bytes of --cache shared and populated: clean page cache, in
 * the page tables as the ashmem side's pages are.
 */
static void map_cache(size_t len)
{
	int fd = open(cache_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open %s", cache_path);
	if (mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0) ==
	    MAP_FAILED)
		fail("mmap of %zu bytes of %s", len, cache_path);
	close(fd);
}

/* Drops what read_cache() or map_cache() left in the page cache. */
static void drop_cache(void)
{
	int fd = open(cache_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		fail("POSIX_FADV_DONTNEED on %s", cache_path);
	close(fd);
}

/* An area of reclaim_size bytes, mapped at *@map, populated and unpinned. */
static int area_unpinned(char **map)
{
	int fd = area_open(reclaim_size);

	*map = map_shared(fd, reclaim_size);
	dirty_pages(*map, reclaim_size, 1);
	pin_check(fd, ASHMEM_UNPIN, 0, 0);
	return fd;
}

enum reclaim_from {
	FROM_CACHE, FROM_ASHMEM, FROM_MEMORY_RECLAIM, FROM_MAPPED_CACHE,
};

/* The child's part of a sample of @from: its results in *@out. */
static void reclaim_child(enum reclaim_from from, struct reclaim_sample *out)
{
	unsigned long npages = reclaim_size / page_size;
	char *map = NULL, *hog, ask[32];
	uint64_t t0;
	long used;

	if (cg_enter(RECLAIM_CG))
		fail("enter %s", RECLAIM_CG);
	if (from == FROM_CACHE)
		read_cache(reclaim_size);
	else if (from == FROM_MAPPED_CACHE)
		map_cache(reclaim_size);
	else
		area_unpinned(&map);
	if (from == FROM_MEMORY_RECLAIM) {
		out->needed = npages / 4;
		snprintf(ask, sizeof(ask), "%zu", reclaim_size / 4);
		if (cg_reclaim(RECLAIM_CG, ask))
			fail("write %s to memory.reclaim", ask);
		out->purged = npages - resident(map, reclaim_size);
		return;
	}
	used = cg_current();
	hog = mmap(NULL, reclaim_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hog == MAP_FAILED)
		fail("mmap of %zu bytes", reclaim_size);
	t0 = now_ns();
	dirty_pages(hog, reclaim_size, 1);
	out->ns = now_ns() - t0;
	/* What the cgroup had to give back: usage + new - memory.max. */
	out->needed = (used + (long)reclaim_size -
		       (long)(reclaim_size + RECLAIM_SLACK)) / page_size;
	if (map)
		out->purged = npages - resident(map, reclaim_size);
}

/* One sample of @from, in a child; an OOM kill of the child is a failure. */
static struct reclaim_sample reclaim_sample(enum reclaim_from from)
{
	static const char *const what[] = {
		"clean page cache", "unpinned ashmem", "memory.reclaim",
		"mapped clean page cache",
	};
	struct reclaim_sample *res, out;
	pid_t pid;
	int st;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		fail("mmap of the results");
	memset(res, 0, sizeof(*res));
	pid = fork_child();
	if (pid < 0)
		fail("fork");
	if (!pid) {
		reclaim_child(from, res);
		_exit(0);
	}
	st = wait_child(pid);
	if (from == FROM_CACHE || from == FROM_MAPPED_CACHE)
		drop_cache();
	if (st) {
		errno = 0;
		fail("the child holding %s ended with status %d%s", what[from],
		     st, st == 128 + SIGKILL ? " (OOM-killed?)" : "");
	}
	out = *res;
	munmap(res, sizeof(*res));
	return out;
}

static void measure_reclaim(void)
{
	struct side sd[3], po[2], pr[2];
	char unit[24], max[32], cg[PATH_MAX];
	int r;

	reclaim_size = (quick ? 16 : 64) << 20;
	printf("\n[7] reclaim: a child in a cgroup with memory.max %zu MiB + %d MiB holds %zu MiB\n"
	       "    that reclaim can take, then writes to %zu MiB of new anonymous memory\n",
	       reclaim_size >> 20, RECLAIM_SLACK >> 20, reclaim_size >> 20,
	       reclaim_size >> 20);
	if (!cache_path) {
		printf("    skipped: needs --cache, a file or block device for clean page cache\n");
		return;
	}
	if (!cgroup2_memory()) {
		printf("    skipped: needs cgroup v2 with the memory controller\n");
		return;
	}
	write_file(CG_ROOT "/cgroup.subtree_control", "+memory");
	rmdir(RECLAIM_CG);
	snprintf(max, sizeof(max), "%zu", reclaim_size + RECLAIM_SLACK);
	if (cg_make(CG_ROOT, "ashmem_bench", max, cg))
		fail("make %s with memory.max %s", RECLAIM_CG, max);
	drop_cache();

	snprintf(unit, sizeof(unit), "ms/%zuMiB", reclaim_size >> 20);
	sd[0] = (struct side){ .label = "from unpinned ashmem", .unit = unit,
			       .fixed = true, .per_op = 1, .div = 1e6,
			       .iters = 1 };
	sd[1] = sd[0];
	sd[1].label = "from clean page cache";
	sd[2] = sd[0];
	sd[2].label = "from mapped clean page cache";
	po[0] = (struct side){ .label = "pages purged", .unit = "pages",
			       .fixed = true, .per_op = 1, .div = 1,
			       .iters = 1 };
	po[1] = po[0];
	po[1].label = "pages beyond memory.max";
	pr[0] = po[0];
	pr[1] = po[0];
	pr[1].label = "pages asked by memory.reclaim";
	for (r = 0; r < reps; r++) {
		struct reclaim_sample c = reclaim_sample(FROM_CACHE);
		struct reclaim_sample a = reclaim_sample(FROM_ASHMEM);
		struct reclaim_sample m = reclaim_sample(FROM_MEMORY_RECLAIM);
		struct reclaim_sample k = reclaim_sample(FROM_MAPPED_CACHE);

		sd[0].v[r] = figure(&sd[0], a.ns);
		sd[1].v[r] = figure(&sd[1], c.ns);
		sd[2].v[r] = figure(&sd[2], k.ns);
		po[0].v[r] = a.purged;
		po[1].v[r] = a.needed > 0 ? a.needed : 1;
		pr[0].v[r] = m.purged;
		pr[1].v[r] = m.needed;
	}
	rmdir(RECLAIM_CG);
	print_side(&sd[0]);
	print_side(&sd[1]);
	print_side(&sd[2]);
	report("7", "reclaim: ashmem / page cache", &sd[0], &sd[1], 1.2);
	report("7m", "reclaim: ashmem / mapped cache", &sd[0], &sd[2], 0);
	print_side(&po[0]);
	print_side(&po[1]);
	report("7b", "over-purge at memory.max", &po[0], &po[1], 1.5);
	print_side(&pr[0]);
	print_side(&pr[1]);
	report("7c", "over-purge, memory.reclaim", &pr[0], &pr[1], 1.5);
}

static void print_file(const char *label, const char *path)
{
	char buf[256];

	if (read_small(path, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "?");
	buf[strcspn(buf, "\n")] = '\0';
	printf("%-12s %s\n", label, buf);
}

/* The smallest step CLOCK_MONOTONIC is seen to take, in ns. */
static uint64_t clock_step(void)
{
	uint64_t best = UINT64_MAX, a, b;
	int i;

	for (i = 0; i < 200; i++) {
		a = now_ns();
		while ((b = now_ns()) == a)
			;
		if (b - a < best)
			best = b - a;
	}
	return best;
}

/*
 * Right after boot the kernel is still settling (a VM switches its
 * clocksource a second or two in), and a VM's memory is backed by the host
 * only once touched: let the first seconds pass, and touch half the free
 * memory once, so that no side pays for what the other did not.
 */
static void settle(void)
{
	size_t size = meminfo_kb("MemAvailable") / 1024 / 2;
	double up = 1e9;
	char buf[64];

	if (!read_small("/proc/uptime", buf, sizeof(buf)))
		up = strtod(buf, NULL);

	if (up < SETTLE_SECONDS) {
		printf("%-12s waiting until %d s after boot\n", "settle",
		       SETTLE_SECONDS);
		usleep((SETTLE_SECONDS - up) * 1e6);
	}
	if (size > 1024)
		size = 1024;
	if (size < 16)
		return;
	size <<= 20;
	touch_all(memfd_sized(size), size);
	printf("%-12s touched %zu MiB once\n", "warm-up", size >> 20);
}

static void __noreturn usage(const char *prog, int status)
{
	printf("Usage: %s [--device PATH] [--reps N] [--quick] [--sample-ms MS]\n"
	       "          [--only LIST] [--insn] [--cache PATH]\n"
	       "  --device PATH    the ashmem device node (default /dev/ashmem)\n"
	       "  --reps N         repetitions of every sample, 1..%d (default 7; 3 with --quick)\n"
	       "  --quick          short samples and small sizes, for a smoke run\n"
	       "  --sample-ms MS   length of a calibrated sample (default 50; 10 with --quick)\n"
	       "  --only LIST      run only these measures, e.g. 1,4 (default 1-7)\n"
	       "  --insn           the clock counts instructions (a VM under qemu -icount\n"
	       "                   shift=0): label figures so; measure 2 is left out\n"
	       "  --cache PATH     a file or block device of at least 64 MiB whose reads\n"
	       "                   give measure 7 its clean page cache\n",
	       prog, MAX_REPS);
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "reps", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },
		{ "sample-ms", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "insn", no_argument, NULL, 'i' },
		{ "cache", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c, user_reps = 0, fd;
	double user_ms = 0;
	struct utsname u;
	uint64_t step;
	char *tok;

	while ((c = getopt_long(argc, argv, "d:r:qs:o:ic:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
			break;
		case 'r':
			user_reps = atoi(optarg);
			if (user_reps < 1 || user_reps > MAX_REPS)
				usage(argv[0], 2);
			break;
		case 'q':
			quick = true;
			break;
		case 's':
			user_ms = atof(optarg);
			if (user_ms <= 0)
				usage(argv[0], 2);
			break;
		case 'o':
			only = 0;
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				c = atoi(tok);
				if (c < 1 || c > 7)
					usage(argv[0], 2);
				only |= 1u << c;
			}
			break;
		case 'i':
			insn = true;
			break;
		case 'c':
			cache_path = optarg;
			break;
		case 'h':
			usage(argv[0], 0);
		default:
			usage(argv[0], 2);
		}
	}
	if (quick) {
		reps = 3;
		sample_ms = 10;
	}
	if (user_reps)
		reps = user_reps;
	if (user_ms)
		sample_ms = user_ms;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;

	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("ashmem_bench: SKIP: cannot open %s: %s\n", device,
		       strerror(errno));
		return KSFT_SKIP;
	}
	close(fd);

	uname(&u);
	printf("ashmem_bench: %s, %d repetitions, samples of %.0f ms%s\n",
	       device, reps, sample_ms, quick ? ", quick" : "");
	printf("%-12s %s %s %s, %d CPUs online, page size %ld\n", "system",
	       u.sysname, u.release, u.machine, ncpus, page_size);
	print_file("meltdown", "/sys/devices/system/cpu/vulnerabilities/meltdown");
	settle();
	print_file("clocksource", CLOCKSOURCE);
	step = clock_step();
	printf("%-12s CLOCK_MONOTONIC steps by %llu ns\n", "clock",
	       (unsigned long long)step);
	/* A coarse clock needs longer samples to stay within 1%. */
	if (step * 100 > sample_ms * 1e6) {
		sample_ms = step * 100 / 1e6;
		printf("%-12s samples lengthened to %.0f ms\n", "", sample_ms);
	}
	printf("Figures: median [min - max] of the repetitions; a ratio is the median of\n"
	       "the per-repetition ratios of two sides sampled one after the other.\n");
	if (insn) {
		printf("Clock: counts instructions (--insn): kinsn, Minsn are thousands and\n"
		       "millions of instructions, /Ginsn per billion instructions.\n");
		/* One vCPU runs at a time under -icount: nothing runs in parallel. */
		if (only & 1 << 2)
			printf("measure 2 left out: it needs CPUs that run in parallel\n");
		only &= ~(1u << 2);
	}

	if (only & 1 << 1) {
		measure_ranges(false);
		measure_ranges(true);
	}
	if (only & 1 << 2)
		measure_parallel();
	if (only & 1 << 3)
		measure_lifecycle();
	if (only & 1 << 4)
		measure_floor();
	if (only & 1 << 5) {
		measure_purge(8, "5");
		measure_purge(2, "5b");
	}
	if (only & 1 << 6)
		measure_faults();
	if (only & 1 << 7)
		measure_reclaim();
	if (purge_fd >= 0)
		close(purge_fd);

	print_table();
	print_file("\nclocksource", CLOCKSOURCE);
	return 0;
}
