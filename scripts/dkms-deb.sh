#!/bin/bash
# Build the DKMS package of ashmem, OUTDIR/ashmem-dkms_VERSION_all.deb: the
# repo's mm/ashmem.c and its three headers as they are, with dkms/ (Kbuild,
# ashmem_compat.h, compat/, probe.sh, dkms.conf, the package's control file and scripts), and
# /usr/lib/modules-load.d/ashmem.conf, which loads the module at boot.
# DKMS builds the module on the machine that installs the package.
#
# usage: dkms-deb.sh REPO OUTDIR
# The version is 1.0+git<date and time of the last commit>.<its hash>, so
# that a later commit upgrades the package; the path of the package is the
# last line printed.
set -euo pipefail

repo=$(realpath "$1") out=$(realpath -m "$2")
version=1.0
if git -C "$repo" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	version+=+git$(git -C "$repo" log -1 --format=%cd --date=format:%Y%m%d.%H%M%S)
	version+=.$(git -C "$repo" rev-parse --short=8 HEAD)
fi
maintainer=$(sed -n 's/^+M:\t//p' "$repo/patches/ashmem-maintainers.diff" | head -1)
[ -n "$maintainer" ] || { echo "dkms-deb: no maintainer in patches/ashmem-maintainers.diff" >&2; exit 1; }

stage=$out/stage
src=$stage/usr/src/ashmem-$version
rm -rf "$stage" "$out"/ashmem-dkms_*.deb
mkdir -p "$src/include/linux" "$src/include/uapi/linux" "$src/include/trace/events" "$stage/DEBIAN"
mkdir -p "$src/compat/linux"
mkdir -p "$stage/usr/lib/modules-load.d"
install -m 0644 "$repo/mm/ashmem.c" "$repo/dkms/Kbuild" "$repo/dkms/ashmem_compat.h" \
	"$repo/dkms/probe.sh" "$src/"
install -m 0644 "$repo/dkms/compat/linux/folio_batch.h" "$src/compat/linux/"
install -m 0644 "$repo/include/linux/ashmem.h" "$src/include/linux/"
install -m 0644 "$repo/include/uapi/linux/ashmem.h" "$src/include/uapi/linux/"
install -m 0644 "$repo/include/trace/events/ashmem.h" "$src/include/trace/events/"
install -m 0644 "$repo/dkms/modules-load.conf" "$stage/usr/lib/modules-load.d/ashmem.conf"
subst() { sed -e "s|@VERSION@|$version|g" -e "s|@MAINTAINER@|$maintainer|g" "$@"; }
subst "$repo/dkms/dkms.conf" >"$src/dkms.conf"
subst "$repo/dkms/debian/control" >"$stage/DEBIAN/control"
for script in postinst prerm; do
	subst "$repo/dkms/debian/$script" >"$stage/DEBIAN/$script"
	chmod 0755 "$stage/DEBIAN/$script"
done
chmod 0644 "$src/dkms.conf" "$stage/DEBIAN/control"

deb=$out/ashmem-dkms_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "dkms-deb: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), $(dpkg-deb -c "$deb" | grep -c '^-') files"
echo "$deb"
