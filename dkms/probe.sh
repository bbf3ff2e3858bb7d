#!/bin/sh
# What a kernel must have for ashmem, which ashmem_compat.h cannot stand in
# for: the options ASHMEM depends on (Kconfig), and the exports of mm that
# the driver and every stand-in call.  Prints what the kernel whose build
# tree is KDIR (its .config and Module.symvers: /lib/modules/KVER/build)
# lacks, on one line, and exits 1; prints nothing and exits 0 if it lacks
# nothing, or if KDIR has no .config (headers not installed: DKMS says so).
# Read by dkms.conf, which skips such a kernel, and by Kbuild.
#
# usage: probe.sh KDIR
kdir=$1
configs="CONFIG_SHMEM CONFIG_TMPFS CONFIG_MMU"
exports="__list_lru_init list_lru_walk_one list_lru_count_one register_oom_notifier"

[ -f "$kdir/.config" ] || exit 0
missing=
for c in $configs; do
	grep -qx "$c=y" "$kdir/.config" || missing="$missing $c"
done
for s in $exports; do
	awk -v s="$s" '$2 == s { found = 1; exit } END { exit !found }' \
		"$kdir/Module.symvers" 2>/dev/null || missing="$missing $s"
done
[ -z "$missing" ] && exit 0
echo "${missing# }"
exit 1
