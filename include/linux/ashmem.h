/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ashmem's ioctls as the kernel sees them: the uapi numbers, and what
 * differs for 32-bit processes.  Shared by /dev/ashmem and by the ashmem
 * ioctls of memfd files.
 */

#ifndef _LINUX_ASHMEM_H
#define _LINUX_ASHMEM_H

#include <linux/compat.h>
#include <linux/uaccess.h>
#include <uapi/linux/ashmem.h>

struct file;

/* The name of an area as ashmem_area_name() gives it: "dev/ashmem/NAME". */
#define ASHMEM_FULL_NAME_LEN	(sizeof("dev/ashmem/") - 1 + ASHMEM_NAME_LEN)

/* For other kernel code, such as memory accounting: see mm/ashmem.c. */
bool is_ashmem_file(struct file *file);
int ashmem_area_name(struct file *file, char *name);
long ashmem_area_size(struct file *file);
struct file *ashmem_area_vmfile(struct file *file);

#ifdef CONFIG_COMPAT
/* size_t and unsigned long are 32 bits wide there: other numbers. */
#define COMPAT_ASHMEM_SET_SIZE		_IOW(__ASHMEMIOC, 3, compat_size_t)
#define COMPAT_ASHMEM_SET_PROT_MASK	_IOW(__ASHMEMIOC, 5, compat_ulong_t)
#define COMPAT_ASHMEM_GET_FILE_ID	_IOR(__ASHMEMIOC, 11, compat_ulong_t)

/* ASHMEM_GET_FILE_ID for a 32-bit process: an inode number that fits. */
static inline long ashmem_compat_put_file_id(unsigned long ino,
					     compat_ulong_t __user *uid)
{
	if (ino != (compat_ulong_t)ino)
		return -EOVERFLOW;
	return put_user(ino, uid);
}
#endif

#endif /* _LINUX_ASHMEM_H */
