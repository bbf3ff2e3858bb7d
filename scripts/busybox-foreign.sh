#!/bin/bash
# Unpack Debian's static busybox of another architecture for that
# architecture's initramfs, without installing it: `apt-get download
# busybox-static:ARCH` (the architecture is added to dpkg's list first, if
# it is not there) and `dpkg-deb -x`.  The busybox cannot run on the host, so
# its list of applets, which mkinitramfs.sh needs, is the host's own
# busybox-static's, whose source version must be the same.
#
# usage: busybox-foreign.sh ARCH OUTDIR
#   writes OUTDIR/bin/busybox and OUTDIR/bin/busybox.applets
set -euo pipefail

arch=$1 out=$(realpath -m "$2")
[ -x "$out/bin/busybox" ] && [ -s "$out/bin/busybox.applets" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	echo "busybox-foreign: adding $arch to dpkg's architectures (apt-get update)"
	$sudo dpkg --add-architecture "$arch"
	$sudo apt-get update -q
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "busybox-static:$arch")
deb=$(echo "$tmp"/busybox-static_*.deb)

host=$(dpkg-query -W -f='${Version}' busybox-static)
their=$(dpkg-deb -f "$deb" Version)
[ "${host%+b*}" = "${their%+b*}" ] || {
	echo "busybox-foreign: busybox-static $their ($arch) and $host (host) differ:" \
		"upgrade both to list the $arch applets" >&2
	exit 1; }
rm -rf "$out"
dpkg-deb -x "$deb" "$out"
/bin/busybox --list-full >"$out/bin/busybox.applets"
echo "busybox-foreign: $out/bin/busybox ($arch, $their)"
