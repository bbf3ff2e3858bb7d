#!/bin/bash
# Build each samples/ashmem/*.c as a static program against the installed uapi
# headers (the kernel's samples/ashmem/Makefile does the same in-tree).
#
# usage: build-samples.sh KOUT SRCDIR OUTDIR
# Env: KARCH (x86_64, with gcc, or arm64, with clang and lld against
# libc6-dev-arm64-cross; default x86_64).
set -euo pipefail

kout=$(realpath "$1") src=$2 out=$3
case ${KARCH:-x86_64} in
x86_64)	cc=gcc ld= ;;
arm64)	cc="clang --target=aarch64-linux-gnu --sysroot=/usr/aarch64-linux-gnu"
	ld=-fuse-ld=lld ;;
*)	echo "build-samples: KARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
command -v ccache >/dev/null && cc="ccache $cc"
shopt -s nullglob
sources=("$src"/*.c)
[ ${#sources[@]} -gt 0 ] || { echo "build-samples: no .c files in $src" >&2; exit 1; }
mkdir -p "$out"
for c in "${sources[@]}"; do
	prog=$out/$(basename "$c" .c)
	echo "  CC      $prog"
	$cc -O2 -Wall -static $ld -I "$kout/usr/include" -o "$prog" "$c" -lpthread
done
