#!/bin/bash
# Build each samples/ashmem/*.c as a static program against the installed uapi
# headers (the kernel's samples/ashmem/Makefile does the same in-tree).
#
# usage: build-samples.sh KOUT SRCDIR OUTDIR
set -euo pipefail

kout=$(realpath "$1") src=$2 out=$3
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
shopt -s nullglob
sources=("$src"/*.c)
[ ${#sources[@]} -gt 0 ] || { echo "build-samples: no .c files in $src" >&2; exit 1; }
mkdir -p "$out"
for c in "${sources[@]}"; do
	prog=$out/$(basename "$c" .c)
	echo "  CC      $prog"
	$cc -O2 -Wall -static -I "$kout/usr/include" -o "$prog" "$c" -lpthread
done
