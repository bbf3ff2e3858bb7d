#!/bin/bash
# Build and install the ashmem kselftests statically, 64-bit or 32-bit, and
# write the list of test programs for the VM (see scripts/guest/init).
# x86_64: gcc, 32-bit with -m32.  arm64: clang and lld against Debian's
# cross libraries (libc6-dev-arm64-cross, libc6-dev-armhf-cross), 32-bit as
# armhf, with the uapi headers of 32-bit arm (KOUT's are arm64's).
#
# usage: build-selftests.sh KSRC KOUT BITS OUTDIR [TARGET...]
#   KOUT    kernel object dir whose usr/include has the installed uapi headers
#   BITS    64 or 32
#   OUTDIR  gets build/, install/ and suites.txt ("tap NAME DIR COMMAND"
#           lines, with DIR as the guest sees it: /selftests/BITS/TARGET)
#   TARGET  selftest directories, default: ashmem
# Everything is rebuilt each time (a few seconds with ccache): lib.mk does
# not track header dependencies.
# Env: KARCH (x86_64 or arm64, default x86_64), JOBS.
set -euo pipefail

ksrc=$(realpath "$1") kout=$(realpath "$2") bits=$3 out=$(realpath -m "$4")
shift 4
targets=${*:-ashmem}
ccache=
command -v ccache >/dev/null && ccache="ccache "
khdr=$kout/usr/include
case ${KARCH:-x86_64}/$bits in
x86_64/64) cc=gcc flags="-static" ldflags=$flags ;;
x86_64/32) cc=gcc flags="-static -m32" ldflags=$flags ;;
arm64/64)  triple=aarch64-linux-gnu ;;
arm64/32)  triple=arm-linux-gnueabihf khdr=$out/usr/include ;;
*)	echo "build-selftests: KARCH must be x86_64 or arm64, BITS 64 or 32" >&2
	exit 2 ;;
esac
if [ -n "${triple:-}" ]; then
	cc="clang --target=$triple --sysroot=/usr/$triple"
	flags="-static" ldflags="-static -fuse-ld=lld"
fi
cc=$ccache$cc
extra=()
[ "$khdr" = "$kout/usr/include" ] || extra=(KHDR_INCLUDES="-isystem $khdr")

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
if [ ${#extra[@]} -gt 0 ]; then
	make -C "$ksrc" O="$out/headers" ARCH=arm LLVM=1 INSTALL_HDR_PATH="$out/usr" \
		-s headers_install >"$out/headers.log" 2>&1 || {
		cat "$out/headers.log" >&2
		echo "build-selftests: installing arm's uapi headers failed" >&2
		exit 1; }
fi
make -C "$ksrc/tools/testing/selftests" -j"${JOBS:-$(nproc)}" \
	TARGETS="$targets" O="$kout" BUILD="$out/build" "${extra[@]}" \
	KSFT_INSTALL_PATH="$out/install" \
	CC="$cc" USERCFLAGS="$flags" USERLDFLAGS="$ldflags" install >"$out/make.log" 2>&1 || {
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
