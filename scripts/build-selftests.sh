#!/bin/bash
# Build and install the ashmem kselftests statically, 64-bit or 32-bit (-m32),
# and write the list of test programs for the VM (see scripts/guest/init).
#
# usage: build-selftests.sh KSRC KOUT BITS OUTDIR [TARGET...]
#   KOUT    kernel object dir whose usr/include has the installed uapi headers
#   BITS    64 or 32
#   OUTDIR  gets build/, install/ and suites.txt ("tap NAME DIR COMMAND"
#           lines, with DIR as the guest sees it: /selftests/BITS/TARGET)
#   TARGET  selftest directories, default: ashmem
# Everything is rebuilt each time (a few seconds with ccache): lib.mk does
# not track header dependencies.
set -euo pipefail

ksrc=$(realpath "$1") kout=$(realpath "$2") bits=$3 out=$(realpath -m "$4")
shift 4
targets=${*:-ashmem}
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
flags="-static"
[ "$bits" = 32 ] && flags="-static -m32"

[ -f "$kout/usr/include/linux/ashmem.h" ] || {
	echo "build-selftests: no uapi headers in $kout/usr/include (build the kernel first)" >&2
	exit 1; }
for t in $targets; do
	[ -f "$ksrc/tools/testing/selftests/$t/Makefile" ] || {
		echo "build-selftests: missing tools/testing/selftests/$t/Makefile" >&2
		exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
make -C "$ksrc/tools/testing/selftests" -j"${JOBS:-$(nproc)}" \
	TARGETS="$targets" O="$kout" BUILD="$out/build" \
	KSFT_INSTALL_PATH="$out/install" \
	CC="$cc" USERCFLAGS="$flags" USERLDFLAGS="$flags" install >"$out/make.log" 2>&1 || {
	cat "$out/make.log" >&2
	echo "build-selftests: $bits-bit build failed (log: $out/make.log)" >&2
	exit 1; }
grep -iE "warning|error" "$out/make.log" || true

# kselftest-list.txt has "TARGET:PROGRAM" lines.
list=$out/install/kselftest-list.txt
[ -s "$list" ] || { echo "build-selftests: $list is empty" >&2; exit 1; }
while IFS=: read -r target prog; do
	echo "tap kselftest-$bits/$target/$prog /selftests/$bits/$target ./$prog"
done <"$list" >"$out/suites.txt"
echo "build-selftests: $bits-bit: $(wc -l <"$out/suites.txt") programs in $out/install"
