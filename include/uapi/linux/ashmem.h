/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Anonymous shared memory (ashmem): the ioctl interface of /dev/ashmem.
 *
 * The numbers and structures below are Android's ABI and never change.
 * The ioctl magic 0x77 ('w') is also used by the CERN SCI driver; the
 * command numbers in use here are 1 to 11.
 */

#ifndef _UAPI_LINUX_ASHMEM_H
#define _UAPI_LINUX_ASHMEM_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * ASHMEM_NAME_LEN - size of the name buffer of SET_NAME and GET_NAME
 *
 * A name holds at most ASHMEM_NAME_LEN - 1 bytes plus the terminating NUL.
 */
#define ASHMEM_NAME_LEN		256

/**
 * ASHMEM_NAME_DEF - the name GET_NAME reports for an area never named
 */
#define ASHMEM_NAME_DEF		"dev/ashmem"

/* Return values of ASHMEM_PIN: was any page purged while unpinned? */
#define ASHMEM_NOT_PURGED	0
#define ASHMEM_WAS_PURGED	1

/* Return values of ASHMEM_GET_PIN_STATUS: is any page unpinned? */
#define ASHMEM_IS_UNPINNED	0
#define ASHMEM_IS_PINNED	1

/**
 * struct ashmem_pin - a page range of an area, for PIN, UNPIN and
 *	GET_PIN_STATUS
 * @offset: start of the range in bytes; a multiple of the page size
 * @len: length of the range in bytes; a multiple of the page size, or 0
 *	for "from @offset to the end of the area"
 */
struct ashmem_pin {
	__u32 offset;
	__u32 len;
};

#define __ASHMEMIOC		0x77

/**
 * ASHMEM_SET_NAME - name the area; the argument points to a NUL-terminated
 *	string of at most ASHMEM_NAME_LEN bytes.  Only before the first mmap.
 */
#define ASHMEM_SET_NAME		_IOW(__ASHMEMIOC, 1, char[ASHMEM_NAME_LEN])

/**
 * ASHMEM_GET_NAME - copy the name and its NUL, and nothing more, to the
 *	argument, a buffer of ASHMEM_NAME_LEN bytes.
 */
#define ASHMEM_GET_NAME		_IOR(__ASHMEMIOC, 2, char[ASHMEM_NAME_LEN])

/**
 * ASHMEM_SET_SIZE - set the size in bytes, passed by value.  Only before
 *	the first mmap.
 */
#define ASHMEM_SET_SIZE		_IOW(__ASHMEMIOC, 3, size_t)

/**
 * ASHMEM_GET_SIZE - return the size in bytes.
 */
#define ASHMEM_GET_SIZE		_IO(__ASHMEMIOC, 4)

/**
 * ASHMEM_SET_PROT_MASK - restrict the PROT_* bits any mapping of the area
 *	may use, passed by value.  Bits can be removed, never added back.
 */
#define ASHMEM_SET_PROT_MASK	_IOW(__ASHMEMIOC, 5, unsigned long)

/**
 * ASHMEM_GET_PROT_MASK - return the PROT_* bits mappings may use.
 */
#define ASHMEM_GET_PROT_MASK	_IO(__ASHMEMIOC, 6)

/**
 * ASHMEM_PIN - pin a range of &struct ashmem_pin; return ASHMEM_WAS_PURGED
 *	if any of its pages was purged while unpinned, else ASHMEM_NOT_PURGED.
 */
#define ASHMEM_PIN		_IOW(__ASHMEMIOC, 7, struct ashmem_pin)

/**
 * ASHMEM_UNPIN - unpin a range of &struct ashmem_pin: its pages may be
 *	purged under memory pressure until they are pinned again.
 */
#define ASHMEM_UNPIN		_IOW(__ASHMEMIOC, 8, struct ashmem_pin)

/**
 * ASHMEM_GET_PIN_STATUS - return ASHMEM_IS_UNPINNED if any page of the
 *	range of &struct ashmem_pin is unpinned, else ASHMEM_IS_PINNED.
 */
#define ASHMEM_GET_PIN_STATUS	_IO(__ASHMEMIOC, 9)

/**
 * ASHMEM_PURGE_ALL_CACHES - purge every unpinned page of every area; return
 *	the number of unpinned pages found.  Needs CAP_SYS_ADMIN.
 */
#define ASHMEM_PURGE_ALL_CACHES	_IO(__ASHMEMIOC, 10)

/**
 * ASHMEM_GET_FILE_ID - store the inode number of the area's backing file,
 *	as /proc/PID/maps shows it, in the unsigned long the argument points
 *	to.  Only after the first mmap.
 */
#define ASHMEM_GET_FILE_ID	_IOR(__ASHMEMIOC, 11, unsigned long)

#endif /* _UAPI_LINUX_ASHMEM_H */
