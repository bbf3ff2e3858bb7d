// SPDX-License-Identifier: GPL-2.0
/*
 * ashmem-demo: a narrated tour of anonymous shared memory (/dev/ashmem).
 *
 * Process A creates a named area, writes into it and passes the file
 * descriptor to process B over a unix socket.  B maps the area, reads A's
 * data and finds the area's name in its /proc/PID/maps.  A then unpins
 * the part of the area it uses as a cache.  A memory hog makes the kernel
 * reclaim memory for real, and ashmem's shrinker purges the unpinned
 * pages.  When A pins its cache again, the driver reports that it was
 * purged and A rebuilds it; the pinned part was never touched.  Last, A
 * asks the same ioctls of a memfd, as Android 16 code does of the memfds
 * that replace ashmem areas there.
 *
 * It is the program "make run" starts in its virtual machine, linked
 * statically (gcc -static -I usr/include) so that it needs nothing but
 * the kernel.
 *
 * Exit status 0 means every step did what the text says.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>

/* send_fd() and recv_fd(), shared with the ashmem selftests. */
#include "../../tools/testing/selftests/ashmem/ashmem_util.h"

#define AREA_NAME	"demo-viewer"
#define AREA_SIZE	(64UL << 20)
/* The first part of the area is a document A must never lose... */
#define DOC_SIZE	(16UL << 20)
/* ...the rest is a cache A can rebuild, so it lets the kernel drop it. */
#define CACHE_OFFSET	DOC_SIZE
#define CACHE_SIZE	(AREA_SIZE - DOC_SIZE)

/*
 * The hog takes memory in chunks, and once free memory runs low in small
 * steps with a nap after each, as pressure builds on a real system: kswapd
 * then gets to purge before the hog's own page faults must reclaim, and
 * the OOM killer stays out of the picture.
 */
#define HOG_CHUNK	(4UL << 20)
#define HOG_STEP	(256UL << 10)
#define HOG_SLOW_BELOW	(32UL << 20)
#define HOG_NAP_US	10000
#define HOG_REPORT	(64UL << 20)

#define DOC_SALT	0xd0c0d0c0d0c0d0c0ULL
#define CACHE_SALT	0xcace0cace0cace0cULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MIB(bytes)	((unsigned long long)(bytes) >> 20)

static const char *who = "A:  ";	/* who is speaking: A, B or the hog */
static unsigned long page_size;

/* The page counts ashmem adds to /proc/PID/fdinfo/FD. */
struct area_info {
	unsigned long long pinned;
	unsigned long long unpinned;
	unsigned long long purged;
};

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("%s ", who);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s FAILED: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

static void stage(const char *title)
{
	static int n;

	printf("\n== %d. %s\n", ++n, title);
}

/* Word @i of page @page: easy to write again and to check later. */
static uint64_t pattern(uint64_t salt, unsigned long page, unsigned long i)
{
	return salt ^ ((uint64_t)page << 32 | i);
}

static void write_pages(char *base, unsigned long first, unsigned long count,
			uint64_t salt)
{
	unsigned long words = page_size / sizeof(uint64_t);
	unsigned long page, i;

	for (page = first; page < first + count; page++) {
		uint64_t *p = (uint64_t *)(base + page * page_size);

		for (i = 0; i < words; i++)
			p[i] = pattern(salt, page, i);
	}
}

enum page_state { PAGE_INTACT, PAGE_ZEROED, PAGE_CORRUPT };

static enum page_state check_page(const char *base, unsigned long page,
				  uint64_t salt)
{
	const uint64_t *p = (const uint64_t *)(base + page * page_size);
	unsigned long words = page_size / sizeof(uint64_t);
	bool intact = true, zeroed = true;
	unsigned long i;

	for (i = 0; i < words; i++) {
		intact &= p[i] == pattern(salt, page, i);
		zeroed &= p[i] == 0;
	}
	if (intact)
		return PAGE_INTACT;
	return zeroed ? PAGE_ZEROED : PAGE_CORRUPT;
}

/* FNV-1a over 64-bit words: enough to tell whether two views agree. */
static uint64_t checksum(const void *buf, size_t len)
{
	const uint64_t *p = buf;
	uint64_t sum = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len / sizeof(*p); i++) {
		sum ^= p[i];
		sum *= 0x100000001b3ULL;
	}
	return sum;
}

static bool is_ashmem_key(const char *key)
{
	static const char * const keys[] = {
		"inode", "name", "size", "pinned", "unpinned", "purged",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/*
 * Read the page counts from /proc/self/fdinfo/@fd and, if @show, print the
 * lines ashmem adds there (the generic pos/flags/mnt_id/ino lines are left
 * out: "ino" is the inode of /dev/ashmem, not of the area).
 */
static void read_fdinfo(int fd, struct area_info *info, bool show)
{
	char path[64], line[512], *value, *end;
	unsigned int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	if (show)
		say("%s (page counts are in %lu KiB pages):", path,
		    page_size >> 10);

	memset(info, 0, sizeof(*info));
	while (fgets(line, sizeof(line), f)) {
		value = strchr(line, ':');
		if (!value)
			continue;
		*value++ = '\0';
		value += strspn(value, " \t");
		end = value + strcspn(value, "\n");
		*end = '\0';
		if (!is_ashmem_key(line))
			continue;
		if (show)
			printf("\t%s:%*s%s\n", line, (int)(9 - strlen(line)), "",
			       value);

		if (!strcmp(line, "pinned")) {
			info->pinned = strtoull(value, NULL, 10);
			found |= 1;
		} else if (!strcmp(line, "unpinned")) {
			info->unpinned = strtoull(value, NULL, 10);
			found |= 2;
		} else if (!strcmp(line, "purged")) {
			info->purged = strtoull(value, NULL, 10);
			found |= 4;
		}
	}
	fclose(f);
	if (found != 7)
		die("%s lacks the pinned:, unpinned: and purged: lines", path);
}

static pid_t spawn(void (*fn)(int), int arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		fn(arg);
		exit(EXIT_SUCCESS);
	}
	return pid;
}

/* Return 0 if @pid exited with status 0, else describe what happened. */
static int reap(pid_t pid, const char *name)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		die("waitpid(%s): %s", name, strerror(errno));
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFSIGNALED(status))
		say("%s was killed by signal %d%s", name, WTERMSIG(status),
		    WTERMSIG(status) == SIGKILL ? " (the OOM killer?)" : "");
	else
		say("%s exited with status %d", name, WEXITSTATUS(status));
	return -1;
}

static void *map_area(int fd, size_t size, int prot)
{
	void *map = mmap(NULL, size, prot, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED)
		die("mmap of the area: %s", strerror(errno));
	return map;
}

static int pin_ioctl(int fd, unsigned long cmd, unsigned long offset,
		     unsigned long len)
{
	struct ashmem_pin pin = { .offset = offset, .len = len };
	int ret = ioctl(fd, cmd, &pin);

	if (ret < 0)
		die("ioctl 0x%lx on [%llu MiB, %llu MiB): %s", cmd,
		    MIB(offset), MIB(offset + len), strerror(errno));
	return ret;
}

/* Print the line of our own /proc/PID/maps that names the area. */
static void show_maps_line(const char *name)
{
	char path[64], line[512], needle[ASHMEM_NAME_LEN + 16];
	bool found = false;
	FILE *f;

	snprintf(needle, sizeof(needle), "/dev/ashmem/%s", name);
	snprintf(path, sizeof(path), "/proc/%d/maps", getpid());
	f = fopen(path, "re");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, needle))
			continue;
		if (!found)
			say("My mapping, as %s shows it, carries the area's name:",
			    path);
		printf("\t%s", line);
		found = true;
	}
	fclose(f);
	if (!found)
		die("no line of %s mentions %s", path, needle);
}

/* Process B: gets the area from A, maps it and reads what A wrote. */
static void run_b(int sock)
{
	char name[ASHMEM_NAME_LEN];
	uint64_t a_sum, b_sum;
	const char *map;
	long size;
	int fd;

	who = "B:  ";
	fd = recv_fd(sock, &a_sum, sizeof(a_sum));
	if (fd < 0)
		die("no fd came with A's message: %s", strerror(errno));
	close(sock);
	say("I am pid %d. A's fd arrived over the unix socket (SCM_RIGHTS) as my fd %d.",
	    getpid(), fd);

	if (ioctl(fd, ASHMEM_GET_NAME, name) < 0)
		die("ASHMEM_GET_NAME: %s", strerror(errno));
	size = ioctl(fd, ASHMEM_GET_SIZE);
	if (size < 0)
		die("ASHMEM_GET_SIZE: %s", strerror(errno));
	say("The driver says the area is named \"%s\" and holds %llu MiB.",
	    name, MIB(size));

	map = map_area(fd, size, PROT_READ);
	say("I mapped it read-only. Its first bytes say:");
	printf("\t\"%.*s\"\n", (int)strnlen(map, 100), map);

	b_sum = checksum(map, size);
	say("Checksum of all %llu MiB: %016llx; A's was %016llx: %s.",
	    MIB(size), (unsigned long long)b_sum, (unsigned long long)a_sum,
	    b_sum == a_sum ? "same memory, same data" : "MISMATCH");
	if (b_sum != a_sum)
		die("B does not see the data A wrote");

	show_maps_line(name);
	munmap((void *)map, size);
	close(fd);
	say("Done: I unmap the area, close my fd and exit.");
}

/* Free memory, or with @total all of it. */
static unsigned long long ram(bool total)
{
	struct sysinfo si;

	if (sysinfo(&si))
		die("sysinfo: %s", strerror(errno));
	return (unsigned long long)(total ? si.totalram : si.freeram) * si.mem_unit;
}

/* If the OOM killer has to act, it should pick the hog, not A. */
static void volunteer_for_oom_killer(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "1000", 4) != 4)
		say("(could not raise my oom_score_adj: %s)", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Take @len bytes of anonymous memory for good, touching every page. */
static void hog_take(unsigned long len)
{
	unsigned long off;
	char *chunk;

	chunk = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chunk == MAP_FAILED)
		die("mmap of %llu MiB: %s", MIB(len), strerror(errno));
	for (off = 0; off < len; off += page_size)
		chunk[off] = 1;
}

/*
 * The memory hog: takes anonymous memory until the area's fdinfo shows
 * purged pages.  There is no swap, so the kernel can only make room by
 * shrinking its caches, ashmem's unpinned pages among them.  Exiting gives
 * everything back at once.
 */
static void run_hog(int fd)
{
	unsigned long long taken = 0, limit = ram(true);
	struct area_info info;
	unsigned long len;

	who = "hog:";
	volunteer_for_oom_killer();
	say("I am pid %d. RAM: %llu MiB, free: %llu MiB.", getpid(),
	    MIB(limit), MIB(ram(false)));
	say("I take memory %llu MiB at a time until ashmem pages get purged,",
	    MIB(HOG_CHUNK));
	say("and go more slowly once less than %llu MiB is free.",
	    MIB(HOG_SLOW_BELOW));

	while (taken < limit) {
		len = ram(false) > HOG_SLOW_BELOW ? HOG_CHUNK : HOG_STEP;
		hog_take(len);
		taken += len;
		if (len == HOG_STEP)
			usleep(HOG_NAP_US);

		read_fdinfo(fd, &info, false);
		if (info.purged) {
			say("Holding %llu MiB: the kernel purged %llu ashmem pages to make room.",
			    MIB(taken), info.purged);
			say("Free memory is back up to %llu MiB. Job done: I exit, freeing it all.",
			    MIB(ram(false)));
			return;
		}
		if (!(taken % HOG_REPORT))
			say("Holding %llu MiB (free: %llu MiB); nothing purged yet.",
			    MIB(taken), MIB(ram(false)));
	}
	die("took %llu MiB and the kernel purged nothing", MIB(taken));
}

/* Process A's first steps: a new area, named and sized, not yet mapped. */
static int create_area(void)
{
	struct area_info info;
	unsigned long mask;
	int fd;

	fd = open("/dev/ashmem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("cannot open /dev/ashmem: %s (is CONFIG_ASHMEM enabled?)",
		    strerror(errno));
	say("I am pid %d. I opened /dev/ashmem as fd %d: a new, empty area.",
	    getpid(), fd);

	if (ioctl(fd, ASHMEM_SET_NAME, AREA_NAME) < 0)
		die("ASHMEM_SET_NAME: %s", strerror(errno));
	if (ioctl(fd, ASHMEM_SET_SIZE, (size_t)AREA_SIZE) < 0)
		die("ASHMEM_SET_SIZE: %s", strerror(errno));
	if (ioctl(fd, ASHMEM_GET_SIZE) != (long)AREA_SIZE)
		die("ASHMEM_GET_SIZE does not return the size just set");
	mask = ioctl(fd, ASHMEM_GET_PROT_MASK);
	say("Named it \"%s\" (ASHMEM_SET_NAME), made it %llu MiB (ASHMEM_SET_SIZE).",
	    AREA_NAME, MIB(AREA_SIZE));
	say("Its mappings may use PROT_READ%s%s (ASHMEM_GET_PROT_MASK).",
	    mask & PROT_WRITE ? "|PROT_WRITE" : "",
	    mask & PROT_EXEC ? "|PROT_EXEC" : "");
	say("No memory is used yet, and every page starts out pinned.");
	read_fdinfo(fd, &info, true);
	return fd;
}

/* Fill the document (with a greeting on top) and the cache. */
static void write_data(char *map)
{
	write_pages(map, 0, DOC_SIZE / page_size, DOC_SALT);
	snprintf(map, 100,
		 "Hello B, this is process A (pid %d), writing through ashmem.",
		 getpid());
	write_pages(map, CACHE_OFFSET / page_size, CACHE_SIZE / page_size,
		    CACHE_SALT);
}

/* Count cache pages that survived and pages that were purged (zeros). */
static void check_cache(const char *map, unsigned long *intact,
			unsigned long *zeroed)
{
	unsigned long page, first = CACHE_OFFSET / page_size;
	unsigned long last = first + CACHE_SIZE / page_size;

	*intact = 0;
	*zeroed = 0;
	for (page = first; page < last; page++) {
		switch (check_page(map, page, CACHE_SALT)) {
		case PAGE_INTACT:
			(*intact)++;
			break;
		case PAGE_ZEROED:
			(*zeroed)++;
			break;
		default:
			die("cache page %lu is neither intact nor zeroed", page);
		}
	}
}

/*
 * Android 16 creates its shared memory with memfd_create() where the kernel
 * answers ASHMEM_GET_SIZE on a memfd (CONFIG_MEMFD_ASHMEM), and code that
 * gets such a memfd may call any ashmem ioctl on it.
 */
static void ask_a_memfd(void)
{
	char name[ASHMEM_NAME_LEN];
	unsigned long id;
	struct stat st;
	long size;
	int fd;

	fd = memfd_create(AREA_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, DOC_SIZE) || fstat(fd, &st))
		die("memfd_create: %s", strerror(errno));
	say("memfd_create(\"%s\") gave me fd %d, %llu MiB after ftruncate().",
	    AREA_NAME, fd, MIB(DOC_SIZE));
	size = ioctl(fd, ASHMEM_GET_SIZE);
	if (size < 0 && errno == ENOTTY) {
		say("It answers ASHMEM_GET_SIZE with ENOTTY: this kernel has no ashmem");
		say("ioctls on memfds (CONFIG_MEMFD_ASHMEM), so Android would stay");
		say("on /dev/ashmem.");
		close(fd);
		return;
	}
	if (size != (long)DOC_SIZE)
		die("ASHMEM_GET_SIZE on the memfd returned %ld", size);
	if (ioctl(fd, ASHMEM_GET_NAME, name) || strcmp(name, AREA_NAME) ||
	    ioctl(fd, ASHMEM_GET_FILE_ID, &id) || id != st.st_ino)
		die("ASHMEM_GET_NAME or ASHMEM_GET_FILE_ID on the memfd disagree");
	say("ASHMEM_GET_SIZE says %llu MiB, ASHMEM_GET_NAME \"%s\", ASHMEM_GET_FILE_ID %lu:",
	    MIB(size), name, id);
	say("the memfd answers like an ashmem area that is already mapped.");

	if (ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ) ||
	    ioctl(fd, ASHMEM_GET_PROT_MASK) != (PROT_READ | PROT_EXEC) ||
	    !(fcntl(fd, F_GET_SEALS) & F_SEAL_FUTURE_WRITE) ||
	    mmap(NULL, DOC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) !=
	    MAP_FAILED)
		die("ASHMEM_SET_PROT_MASK did not seal the memfd against writing");
	say("ASHMEM_SET_PROT_MASK without PROT_WRITE added the seal F_SEAL_FUTURE_WRITE:");
	say("a new writable mapping now fails, and the mask reads PROT_READ|PROT_EXEC.");

	if (pin_ioctl(fd, ASHMEM_UNPIN, 0, 0) ||
	    pin_ioctl(fd, ASHMEM_GET_PIN_STATUS, 0, 0) != ASHMEM_IS_PINNED ||
	    pin_ioctl(fd, ASHMEM_PIN, 0, 0) != ASHMEM_NOT_PURGED)
		die("pinning a memfd does not answer as Android does");
	say("ASHMEM_UNPIN succeeds but changes nothing: a memfd is never purged,");
	say("so it stays pinned and ASHMEM_PIN reports ASHMEM_NOT_PURGED.");
	close(fd);
}

int main(void)
{
	unsigned long cache_pages, intact, zeroed;
	uint64_t area_sum, doc_sum;
	struct area_info info;
	int sock[2], fd, ret;
	pid_t b, hog;
	char *map;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	cache_pages = CACHE_SIZE / page_size;

	printf("ashmem demo: two processes share memory through /dev/ashmem, and the\n"
	       "kernel takes back the part one of them marked as a disposable cache.\n");

	/* B exists before the area does: the fd A sends is its only way in. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock))
		die("socketpair: %s", strerror(errno));
	b = spawn(run_b, sock[1]);
	close(sock[1]);

	stage("Process A creates an ashmem area");
	fd = create_area();

	stage("A maps the area and writes its data");
	map = map_area(fd, AREA_SIZE, PROT_READ | PROT_WRITE);
	write_data(map);
	doc_sum = checksum(map, DOC_SIZE);
	area_sum = checksum(map, AREA_SIZE);
	say("Mapped all %llu MiB with MAP_SHARED.", MIB(AREA_SIZE));
	say("Wrote a document in the first %llu MiB and a cache in the other %llu MiB.",
	    MIB(DOC_SIZE), MIB(CACHE_SIZE));
	say("The document must never be lost; the cache can be computed again.");
	say("The first mmap created the backing file, so fdinfo now has an inode:");
	read_fdinfo(fd, &info, true);

	stage("A passes the area to process B");
	say("B (pid %d) was started before the area existed: the fd is its only way in.",
	    b);
	say("Sending fd %d and my checksum %016llx to B.", fd,
	    (unsigned long long)area_sum);
	if (send_fd(sock[0], fd, &area_sum, sizeof(area_sum)))
		die("sendmsg: %s", strerror(errno));
	close(sock[0]);
	if (reap(b, "process B"))
		die("process B failed");

	stage("A unpins its cache");
	pin_ioctl(fd, ASHMEM_UNPIN, CACHE_OFFSET, CACHE_SIZE);
	say("ASHMEM_UNPIN of the cache, bytes %llu MiB to %llu MiB.",
	    MIB(CACHE_OFFSET), MIB(AREA_SIZE));
	say("The kernel may now drop these pages when memory runs short.");
	if (pin_ioctl(fd, ASHMEM_GET_PIN_STATUS, CACHE_OFFSET, CACHE_SIZE) !=
	    ASHMEM_IS_UNPINNED ||
	    pin_ioctl(fd, ASHMEM_GET_PIN_STATUS, 0, DOC_SIZE) != ASHMEM_IS_PINNED)
		die("ASHMEM_GET_PIN_STATUS disagrees with what A did");
	say("ASHMEM_GET_PIN_STATUS agrees: cache unpinned, document pinned.");
	read_fdinfo(fd, &info, true);

	stage("Memory pressure");
	say("Starting a memory hog in a process of its own. There is no swap,");
	say("so to make room the kernel has to shrink its caches, ashmem among them.");
	hog = spawn(run_hog, fd);
	ret = reap(hog, "the hog");
	read_fdinfo(fd, &info, false);
	if (ret && !info.purged)
		die("the hog failed before any page was purged");
	/* Unpinned pages are there to be purged before anyone is killed. */
	if (ret && info.unpinned)
		die("the hog died while %llu unpinned pages were left to purge",
		    info.unpinned);
	say("The hog is gone. %llu of the %lu unpinned cache pages were purged:",
	    info.purged, cache_pages);
	read_fdinfo(fd, &info, true);

	stage("A pins its cache again");
	ret = pin_ioctl(fd, ASHMEM_PIN, CACHE_OFFSET, CACHE_SIZE);
	if (ret != ASHMEM_WAS_PURGED)
		die("ASHMEM_PIN returned %d, expected ASHMEM_WAS_PURGED (%d)",
		    ret, ASHMEM_WAS_PURGED);
	say("ASHMEM_PIN of the cache returned ASHMEM_WAS_PURGED:");
	say("the kernel dropped some or all of it while it was unpinned.");
	check_cache(map, &intact, &zeroed);
	say("Looking at it: %lu pages read back as zeros, %lu still hold my data.",
	    zeroed, intact);
	if (zeroed != info.purged)
		die("%lu pages are zeros but fdinfo counted %llu purged",
		    zeroed, info.purged);

	write_pages(map, CACHE_OFFSET / page_size, cache_pages, CACHE_SALT);
	check_cache(map, &intact, &zeroed);
	if (intact != cache_pages)
		die("the rebuilt cache does not read back");
	say("Rebuilt the cache: all %llu MiB hold my data again.",
	    MIB(CACHE_SIZE));

	if (checksum(map, DOC_SIZE) != doc_sum)
		die("the pinned document changed");
	say("The pinned document is untouched: checksum %016llx, as written.",
	    (unsigned long long)doc_sum);
	read_fdinfo(fd, &info, true);
	if (info.pinned != AREA_SIZE / page_size || info.unpinned || info.purged)
		die("fdinfo should count every page as pinned");

	munmap(map, AREA_SIZE);
	close(fd);
	say("Unmapped and closed my last fd: the area is freed.");

	stage("A asks a memfd the same questions");
	ask_a_memfd();

	printf("\nashmem demo: every step worked.\n");
	return EXIT_SUCCESS;
}
