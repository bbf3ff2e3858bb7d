// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/ashmem on memfd files, as Android's kernels answer them
 * for userspace that moved from ashmem to memfd_create().
 */

#include <linux/ashmem.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/memfd.h>
#include <linux/mman.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * A memfd answers as an ashmem area that has been mapped already:
 *
 * - its name and size are those memfd_create() and ftruncate() gave it, so
 *   SET_NAME and SET_SIZE fail with -EINVAL as they do after a first mmap;
 * - its protection mask is its write seals: a memfd can always be mapped
 *   readable and executable, and writable unless it has F_SEAL_WRITE or
 *   F_SEAL_FUTURE_WRITE.  Taking PROT_WRITE away adds F_SEAL_FUTURE_WRITE,
 *   which leaves the writable mappings that exist alone, as a mask does;
 * - its pages are never purged: PIN, UNPIN and GET_PIN_STATUS report
 *   pinned memory and change nothing.
 *
 * Any other file and any other command get -ENOTTY, as shmem and hugetlbfs
 * files do without this code.  shmem's and hugetlbfs' file_operations are
 * built in and read-only, so these handlers are built in too, whether the
 * ashmem driver is built in, a module, or not loaded; they share nothing
 * with it but the ABI.
 */

/* The name memfd_create() was given, or NULL if @file is no memfd. */
static const char *memfd_ashmem_name(struct file *file)
{
	const char *name = file->f_path.dentry->d_name.name;

	/*
	 * memfd_create() makes its files on the kernel's internal tmpfs and
	 * hugetlbfs mounts, named "memfd:" and the name; a mounted tmpfs may
	 * hold a file of any name.  A memfd's dentry is never renamed.
	 */
	if (!(file_inode(file)->i_sb->s_flags & SB_KERNMOUNT))
		return NULL;
	if (strncmp(name, MFD_NAME_PREFIX, MFD_NAME_PREFIX_LEN))
		return NULL;
	return name + MFD_NAME_PREFIX_LEN;
}

static long memfd_ashmem_get_name(const char *name, char __user *uname)
{
	/* memfd_create() takes at most NAME_MAX bytes with the prefix. */
	BUILD_BUG_ON(NAME_MAX - MFD_NAME_PREFIX_LEN + 1 > ASHMEM_NAME_LEN);

	/* Only the name and its NUL, as /dev/ashmem writes. */
	if (copy_to_user(uname, name, strlen(name) + 1))
		return -EFAULT;
	return 0;
}

static long memfd_ashmem_get_prot_mask(struct file *file)
{
	long seals = memfd_fcntl(file, F_GET_SEALS, 0);

	if (seals < 0)
		return seals;
	if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
		return PROT_READ | PROT_EXEC;
	return PROT_READ | PROT_WRITE | PROT_EXEC;
}

static long memfd_ashmem_set_prot_mask(struct file *file, unsigned long prot)
{
	long mask = memfd_ashmem_get_prot_mask(file);

	if (mask < 0)
		return mask;

	/* No seal takes PROT_READ or PROT_EXEC away: removing them is a no-op. */
	prot |= PROT_READ | PROT_EXEC;
	if ((mask & prot) != prot)
		return -EINVAL;

	/*
	 * Like Android, even when the file is write-sealed already: a file
	 * that cannot take seals (F_SEAL_SEAL) or a descriptor that is not
	 * open for writing makes this -EPERM.
	 */
	if (!(prot & PROT_WRITE))
		return memfd_fcntl(file, F_ADD_SEALS, F_SEAL_FUTURE_WRITE);
	return 0;
}

/**
 * memfd_ashmem_ioctl - the ->unlocked_ioctl of shmem and hugetlbfs files
 * @file: the file
 * @cmd: the ioctl command
 * @arg: its argument
 *
 * Answers the ashmem ioctls of <uapi/linux/ashmem.h> on a file created by
 * memfd_create(), as Documentation/userspace-api/ashmem.rst describes.
 *
 * Return: what the ioctl returns, or -ENOTTY if @file is not a memfd or
 * @cmd not an ashmem ioctl.
 */
long memfd_ashmem_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	const char *name = memfd_ashmem_name(file);
	void __user *argp = (void __user *)arg;

	if (!name)
		return -ENOTTY;

	switch (cmd) {
	case ASHMEM_SET_NAME:
	case ASHMEM_SET_SIZE:
		return -EINVAL;
	case ASHMEM_GET_NAME:
		return memfd_ashmem_get_name(name, argp);
	case ASHMEM_GET_SIZE:
		return i_size_read(file_inode(file));
	case ASHMEM_SET_PROT_MASK:
		return memfd_ashmem_set_prot_mask(file, arg);
	case ASHMEM_GET_PROT_MASK:
		return memfd_ashmem_get_prot_mask(file);
	/* Android does not read the range either. */
	case ASHMEM_PIN:
		return ASHMEM_NOT_PURGED;
	case ASHMEM_UNPIN:
		return 0;
	case ASHMEM_GET_PIN_STATUS:
		return ASHMEM_IS_PINNED;
	case ASHMEM_PURGE_ALL_CACHES:
		return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
	case ASHMEM_GET_FILE_ID:
		return put_user(file_inode(file)->i_ino,
				(unsigned long __user *)argp);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/**
 * memfd_ashmem_compat_ioctl - the ->compat_ioctl of shmem and hugetlbfs files
 * @file: the file
 * @cmd: the ioctl command, as a 32-bit process numbers it
 * @arg: its argument
 *
 * memfd_ashmem_ioctl() for 32-bit processes: the numbers of SET_SIZE,
 * SET_PROT_MASK and GET_FILE_ID differ there, and GET_FILE_ID stores 32 bits.
 *
 * Return: what the ioctl returns, or -ENOTTY if @file is not a memfd or
 * @cmd not an ashmem ioctl.
 */
long memfd_ashmem_compat_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	switch (cmd) {
	case COMPAT_ASHMEM_SET_SIZE:
		return memfd_ashmem_ioctl(file, ASHMEM_SET_SIZE, arg);
	case COMPAT_ASHMEM_SET_PROT_MASK:
		return memfd_ashmem_ioctl(file, ASHMEM_SET_PROT_MASK, arg);
	case COMPAT_ASHMEM_GET_FILE_ID:
		if (!memfd_ashmem_name(file))
			return -ENOTTY;
		return ashmem_compat_put_file_id(file_inode(file)->i_ino,
						 compat_ptr(arg));
	}
	return memfd_ashmem_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif
