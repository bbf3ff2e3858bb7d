#!/bin/bash
# Build the userspace API book with the kernel's htmldocs (Sphinx from Debian)
# and check ashmem's part of it.  Prints TAP.
#
# usage: docs.sh KSRC OUTDIR   (run by `make docs`)
# The book is built on its own (SPHINXDIRS=userspace-api), so references to
# other books warn for pages that are not ours: only warnings that name
# ashmem's files fail.
set -uo pipefail

ksrc=$(realpath "$1") out=$(realpath -m "$2")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"
log=$out/htmldocs.log
html=$out/Documentation/output/userspace-api
mkdir -p "$out"
# From scratch: Sphinx does not repeat the warnings of pages it does not
# read again, so an incremental build would pass after a failing one.
rm -rf "$out/Documentation/output"

# htmldocs writes some pages into the source tree (the netlink specs'
# .rst); remove what it adds, so that the tree stays the series (KSRC is
# its git checkout: what git does not track goes).
start=$(date +%s)
make -C "$ksrc" O="$out" SPHINXDIRS=userspace-api htmldocs >"$log" 2>&1
rc=$?
git -C "$ksrc" clean -fdx >"$out/files.added"
echo "# htmldocs added $(wc -l <"$out/files.added") files to $ksrc, removed again"
echo "# htmldocs: status $rc in $(($(date +%s) - start)) s (log: $log)"
if [ $rc = 0 ] && [ -s "$html/ashmem.html" ]; then
	tap_result OK "htmldocs SPHINXDIRS=userspace-api builds ashmem.html"
else
	tail -n 30 "$log" >"$out/tail"
	tap_result FAIL "htmldocs SPHINXDIRS=userspace-api (status $rc)" "$out/tail"
fi

# Sphinx and kernel-doc name the file a warning is about: ashmem.rst,
# include/uapi/linux/ashmem.h, ioctl-number.rst's line, the index entry.
grep -iE 'warning|error' "$log" | grep -i 'ashmem' >"$out/ours"
if [ ! -s "$out/ours" ]; then
	tap_result OK "no warning about ashmem's files ($(grep -ciE 'warning|error' "$log") elsewhere in the book)"
else
	tap_result FAIL "warnings about ashmem's files" "$out/ours"
fi

# The page is in the book's table of contents, and kernel-doc filled in
# the uapi header's parts.
if grep -q 'href="ashmem.html"' "$html/index.html" 2>/dev/null; then
	tap_result OK "userspace-api/index.html links to ashmem.html"
else
	tap_result FAIL "userspace-api/index.html does not link to ashmem.html"
fi
missing=
for id in ashmem_pin ASHMEM_NAME_LEN ASHMEM_NAME_DEF ASHMEM_SET_NAME ASHMEM_GET_FILE_ID; do
	grep -q "id=\"c\.$id\"" "$html/ashmem.html" 2>/dev/null || missing+=" $id"
done
if [ -z "$missing" ]; then
	tap_result OK "ashmem.html documents struct ashmem_pin and the ioctls"
else
	tap_result FAIL "ashmem.html lacks:$missing"
fi
if grep -q 'linux/ashmem.h' "$html/ioctl/ioctl-number.html" 2>/dev/null; then
	tap_result OK "ioctl-number.html lists ashmem's 'w' range"
else
	tap_result FAIL "ioctl-number.html does not list linux/ashmem.h"
fi

tap_done
