/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the ashmem selftests (ashmem_util.c). */
#ifndef ASHMEM_UTIL_H
#define ASHMEM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kselftest.h"	/* __noreturn, __printf, ARRAY_SIZE */

#define ASHMEM_DEV	"/dev/ashmem"
#define PROT_RW		(PROT_READ | PROT_WRITE)

/* @n pages in bytes, and @size rounded up to whole pages. */
size_t pages(size_t n);
size_t page_align(size_t size);

/* ioctl() without glibc's int return value, for results past 2 GiB. */
long xioctl(int fd, unsigned long cmd, unsigned long arg);
int set_size(int fd, size_t size);
/* ASHMEM_PIN, _UNPIN or _GET_PIN_STATUS on bytes, or on pages. */
int pin_op(int fd, unsigned long cmd, uint32_t offset, uint32_t len);
int pin_pages(int fd, unsigned long cmd, size_t first, size_t n);
int set_prot_mask(int fd, unsigned long mask);
/* SET_SIZE then mmap() the whole area; MAP_FAILED on either error. */
void *area_map(int fd, size_t size, int prot, int flags);
/* An address with nothing mapped at it, for the EFAULT tests. */
void *unmapped_addr(void);

/* Page @i of an area filled by fill_pages() holds page_byte(@i). */
bool all_bytes(const void *buf, int c, size_t len);
int page_byte(size_t i);
void fill_pages(char *p, size_t n);

/* The value of the "<key>:\t<value>" line of fd's fdinfo, 0 or -1. */
int fdinfo_get(int fd, const char *key, char *val, size_t len);
/* A number field ("pinned", "purged"...) of fd's fdinfo, -1 if missing. */
long long fdinfo_num(int fd, const char *key);

/* The /proc/self/maps line of the mapping that contains an address. */
struct maps_entry {
	unsigned long start, end;
	unsigned long long inode;
	char perms[8];
	char path[512];
};

int maps_find(const void *addr, struct maps_entry *e);
long meminfo_kb(const char *key);
/* A counter of /proc/vmstat ("oom_kill"...), or -1. */
long long vm_event(const char *key);
/* A small file read whole and NUL-terminated, or written in one write(). */
int read_small(const char *path, char *buf, size_t len);
int write_str(const char *path, const char *val);
/* write_str() for best-effort writes: a failure is only logged. */
void write_file(const char *path, const char *val);

pid_t start_memory_hog(void);
void stop_child(pid_t pid);
/* The exit code of a child, or 128 + the signal that killed it. */
int wait_child(pid_t pid);

#endif /* ASHMEM_UTIL_H */
