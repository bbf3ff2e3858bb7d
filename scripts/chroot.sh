#!/bin/bash
# A Debian root of a release and an architecture, for what must run in
# that userland (DKMS with Debian's headers, whose fixdep and modpost are
# programs of the headers' release and architecture): made once with
# debootstrap (under qemu-user, binfmt_misc and qemu-user-static, for
# arm64) and kept, then each command runs in it with chroot, in a mount
# namespace of its own with /proc and /dev, so nothing stays mounted after
# it.  The root gets the Debian repositories of its release (SUITE,
# SUITE-updates, SUITE-security: Debian 12's 6.12 kernels are in the last;
# and trixie-backports, with Debian 13's 7.x kernels) from the host's
# Debian mirror, and apt's downloads stay in it.
#
# usage: chroot.sh SUITE ARCH ROOT [COMMAND [ARGS...]]
#   SUITE   bookworm (Debian 12) or trixie (Debian 13)
#   ARCH    amd64 (the host's) or arm64
#   without COMMAND, only makes ROOT (if it is not made yet)
set -euo pipefail

suite=$1 arch=$2 root=$(realpath -m "$3")
shift 3
here=$(dirname "$(realpath "$0")")
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

case $suite in
bookworm|trixie) ;;
*)	echo "chroot: SUITE must be bookworm or trixie" >&2; exit 2 ;;
esac
case $arch in
amd64)	qemu= ;;
arm64)	qemu=aarch64 ;;
*)	echo "chroot: ARCH must be amd64 or arm64" >&2; exit 2 ;;
esac

if [ -z "$qemu" ]; then
	bash "$here/deps.sh" debootstrap
else
	bash "$here/deps.sh" debootstrap qemu-user-static binfmt-support

# qemu-user-static registers its interpreters with binfmt_misc ("F": the
# kernel opens the interpreter once, so the root needs no copy of it); in a
# container binfmt_misc may not be mounted when the package is installed.
binfmt=/proc/sys/fs/binfmt_misc
	if [ ! -e "$binfmt/qemu-$qemu" ]; then
		[ -e "$binfmt/register" ] || $sudo mount -t binfmt_misc binfmt_misc "$binfmt"
		$sudo update-binfmts --enable "qemu-$qemu"
	fi
	grep -qx enabled "$binfmt/qemu-$qemu" || {
		echo "chroot: binfmt_misc's qemu-$qemu is not enabled" >&2; exit 1; }
fi

# The URI of the host's Debian repository of a suite, as apt has it; the
# same mirror serves the other release.
repo() {	# SUITE
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
		awk -v s="$1" '$2 == s { print $1; exit }'
}

ready=$root/.made-by-chroot.sh
if [ ! -e "$ready" ]; then
	main=$(repo bookworm) security=$(repo bookworm-security)
	if [ -z "$main" ] || [ -z "$security" ]; then
		$sudo apt-get update -q
		main=$(repo bookworm) security=$(repo bookworm-security)
	fi
	[ -n "$main" ] && [ -n "$security" ] || {
		echo "chroot: apt has no bookworm and bookworm-security repositories" >&2
		exit 1; }
	# A root left half made (mounts are never left: see run below).
	$sudo rm -rf --one-file-system "$root"
	echo "chroot: debootstrap --arch=$arch $suite $root $main"
	# Its own mount namespace, as below, for the mounts of its second stage.
	$sudo unshare --mount --propagation private -- \
		debootstrap --arch="$arch" --variant=minbase "$suite" "$root" "$main"
	{
		echo "deb $main $suite main"
		echo "deb $main $suite-updates main"
		[ "$suite" = bookworm ] || echo "deb $main $suite-backports main"
		echo "deb $security $suite-security main"
	} | $sudo tee "$root/etc/apt/sources.list" >/dev/null
	# No services start in the root; no recommended packages.
	printf '#!/bin/sh\nexit 101\n' | $sudo tee "$root/usr/sbin/policy-rc.d" >/dev/null
	$sudo chmod 0755 "$root/usr/sbin/policy-rc.d"
	echo 'APT::Install-Recommends "false";' |
		$sudo tee "$root/etc/apt/apt.conf.d/90norecommends" >/dev/null
	# Nothing boots from the root: a kernel's install makes no initramfs
	# (minutes under qemu-user), update-initramfs being a stub.
	$sudo chroot "$root" dpkg-divert --local --rename \
		--divert /usr/sbin/update-initramfs.distrib --add /usr/sbin/update-initramfs
	printf '#!/bin/sh\necho "update-initramfs: not in this root (scripts/chroot.sh)"\n' |
		$sudo tee "$root/usr/sbin/update-initramfs" >/dev/null
	$sudo chmod 0755 "$root/usr/sbin/update-initramfs"
	$sudo touch "$ready"
fi
[ $# = 0 ] && exit 0

# /proc and /dev (bound from the host) inside a mount namespace that ends
# with the command.
$sudo unshare --mount --propagation private -- /bin/sh -euc '
	root=$1; shift
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
' sh "$root" "$@"
