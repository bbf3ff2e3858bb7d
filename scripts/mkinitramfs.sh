#!/bin/bash
# Build the VM's initramfs: static busybox, scripts/guest/init, a suites list
# and extra directories, packed with the kernel's gen_init_cpio (no root needed).
#
# usage: mkinitramfs.sh KSRC OUT.cpio SUITES [HOSTDIR=GUESTDIR ...]
#   KSRC     prepared kernel tree (for usr/gen_init_cpio.c)
#   SUITES   becomes /suites.txt: "FORMAT NAME DIR COMMAND [ARGS...]" a line
#   HOSTDIR=GUESTDIR  copies the tree HOSTDIR to GUESTDIR in the guest
# Env: BUSYBOX (default /bin/busybox, the host's); a busybox the host cannot
# run comes with its list of applets in BUSYBOX.applets
# (scripts/busybox-foreign.sh).
set -euo pipefail

ksrc=$1 out=$2 suites=$3; shift 3
here=$(dirname "$(realpath "$0")")
busybox=${BUSYBOX:-/bin/busybox}
applets() {
	if [ -f "$busybox.applets" ]; then cat "$busybox.applets"
	else "$busybox" --list-full
	fi
}
tool=$(dirname "$out")/gen_init_cpio

readelf -l "$busybox" | grep -q "program interpreter" && {
	echo "mkinitramfs: $busybox is not static: apt-get install busybox-static" >&2
	exit 1; }
mkdir -p "$(dirname "$out")"
[ "$tool" -nt "$ksrc/usr/gen_init_cpio.c" ] ||
	gcc -O2 -o "$tool" "$ksrc/usr/gen_init_cpio.c"

list=$out.list
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /etc /root; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	for app in $(applets); do
		[ "$app" = bin/busybox ] || echo "slink /$app /bin/busybox 0777 0 0"
	done
	echo "file /init $here/guest/init 0755 0 0"
	echo "file /suites.txt $(realpath "$suites") 0644 0 0"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$out.passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$out.group"
	echo "file /etc/passwd $(realpath "$out.passwd") 0644 0 0"
	echo "file /etc/group $(realpath "$out.group") 0644 0 0"

	for spec in "$@"; do
		hostdir=$(realpath "${spec%%=*}") guestdir=${spec#*=}
		d=
		for part in ${guestdir//\// }; do	# parents first
			d=$d/$part
			echo "dir $d 0755 0 0"
		done
		(cd "$hostdir" && find . -mindepth 1 -printf '%y %m %P\t%l\n') |
		while IFS=$'\t' read -r meta target; do
			read -r type mode path <<<"$meta"
			case $type in
			d) echo "dir $guestdir/$path $mode 0 0" ;;
			f) echo "file $guestdir/$path $hostdir/$path $mode 0 0" ;;
			l) echo "slink $guestdir/$path $target 0777 0 0" ;;
			esac
		done
	done
} >"$list"

"$tool" "$list" >"$out.tmp"
mv "$out.tmp" "$out"
