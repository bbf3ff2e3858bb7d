#!/bin/bash
# Install the Debian 12 packages the build and the VM need, if any is missing.
#
# usage: deps.sh [PACKAGE...]   (more packages, e.g. for the distro lane)
set -euo pipefail

packages=(
	make gcc libc6-dev gcc-multilib ccache flex bison bc perl
	libelf-dev libssl-dev patch xz-utils rsync cpio git python3
	busybox-static qemu-system-x86 linux-source-6.12 sparse
	python3-sphinx
	# checkpatch checks SPDX tags with spdxcheck.py in a git tree (build/linux)
	python3-git python3-ply
	"$@"
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || {
		echo "deps: missing packages: ${missing[*]}; run as root or install sudo" >&2
		exit 1; }
	sudo=sudo
fi
echo "deps: installing missing Debian packages: ${missing[*]}"
echo "deps: running: ${sudo:+sudo }apt-get update && apt-get install -y --no-install-recommends ..."
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
