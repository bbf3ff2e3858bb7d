#!/bin/bash
# The checks of STYLE.md: checkpatch --strict, kernel-doc, sparse with W=1.
#
# usage: lint.sh KSRC KOUT   (run by `make lint` from the repo's top)
# checkpatch reads one diff of the prepared tree against pristine 6.12 (all
# of the project's changes: new files and patched ones).  Runs every check and
# exits non-zero if any of them complained.
set -uo pipefail

ksrc=$(realpath "$1") kout=$(realpath "$2")
b=$(dirname "$ksrc")
status=0

diff=$b/project.diff
: >"$diff"
while read -r f; do
	old=$b/pristine/$f
	[ -f "$old" ] || old=/dev/null
	diff -u --label "a/$f" --label "b/$f" "$old" "$ksrc/$f" >>"$diff"
done <"$b/tree-changed.txt"
echo "== checkpatch --strict on $diff"
"$ksrc/scripts/checkpatch.pl" --strict --no-tree --no-signoff --ignore COMMIT_MESSAGE --show-types -q "$diff" || status=1

echo "== kernel-doc -none -Wall"
"$ksrc/scripts/kernel-doc" -none -Wall mm/ashmem.c include/uapi/linux/ashmem.h || status=1

echo "== sparse (C=2) + W=1: mm/ashmem.o"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
out=$(make -C "$ksrc" O="$kout" CC="$cc" C=2 W=1 mm/ashmem.o 2>&1) || status=1
echo "$out" | grep -E "warning|error" && status=1
exit $status
