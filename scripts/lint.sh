#!/bin/bash
# The lint gate (STYLE.md): checkpatch on every patch of the series,
# kernel-doc, sparse with W=1, the driver built =y, =m and =n, the uapi
# header compiled on its own and exported by headers_install, the
# self-test of results.py, and that every bug of mutants/ashmem.txt still
# applies to the driver.
#
# usage: lint.sh KSRC KOUT PATCHDIR   (run by `make lint` from the repo's top)
#   KSRC      the prepared tree (build/linux); KOUT its x86_64 build (=y)
#   PATCHDIR  the series `make patches` wrote (build/patches)
# Prints TAP, one test per check, with what a failing check said; exits
# non-zero if any check failed.  Builds the =m and =n variants of KOUT's
# configuration in KOUT-lint-m and KOUT-lint-n.  Env: JOBS (default nproc).
set -uo pipefail

ksrc=$(realpath "$1") kout=$(realpath "$2") patchdir=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"
jobs=${JOBS:-$(nproc)}
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
kmake() { make -C "$ksrc" ARCH=x86_64 CC="$cc" -j"$jobs" "$@"; }
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# 1. checkpatch --strict on each patch, commit message included.  Errors and
#    warnings always fail.  Userspace code (selftests, samples) gets some
#    kernel-only advice; these CHECKs, and only these, are accepted in a
#    patch that only touches tools/testing/selftests/, samples/ and
#    MAINTAINERS:
#    CHECK PREFER_KERNEL_TYPES  u64 and friends are kernel-only types.
#    CHECK MACRO_ARG_REUSE      test helpers called with plain variables, as
#                               kselftest_harness.h's EXPECT_*() are.
#    CHECK COMPARISON_TO_NULL   ASSERT_TRUE(p != NULL): the harness casts its
#                               argument to uintmax_t, which for a pointer
#                               warns in the -m32 build.
#    Kernel code (the other patches) gets no exception at all.
userspace_ok="CHECK:PREFER_KERNEL_TYPES CHECK:MACRO_ARG_REUSE CHECK:COMPARISON_TO_NULL"

shopt -s nullglob
patches=("$patchdir"/[0-9][0-9][0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 1 ] || tap_result FAIL "checkpatch: no series in $patchdir (make patches)"
for p in "${patches[@]}"; do
	name=$(basename "$p")
	case $name in 0000-cover-letter.patch) continue ;; esac
	ok=
	if ! grep '^diff --git' "$p" | grep -qvE ' a/(tools/testing/selftests/|samples/|MAINTAINERS)'; then
		ok=$userspace_ok
	fi
	# From the tree's top: checkpatch finds its spelling list, and the
	# commit message is checked as a real commit's.  In a git tree it
	# checks SPDX tags with scripts/spdxcheck.py, which needs Debian's
	# python3 (python3-git, python3-ply), first in PATH.
	(cd "$ksrc" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --show-types \
		--summary-file "$p") >"$log/cp" 2>&1
	bad=$(grep -oE '^(ERROR|WARNING|CHECK):[A-Z0-9_]+' "$log/cp" |
		while IFS=: read -r level type; do
			[[ " $ok " = *" $level:$type "* ]] || echo "$level:$type"
		done | sort | uniq -c)
	total=$(grep -oE "total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks" "$log/cp")
	accepted=$(grep -oE '^(ERROR|WARNING|CHECK):[A-Z0-9_]+' "$log/cp" | sort | uniq -c |
		tr -s ' ' | paste -sd, -)
	if [ -z "$total" ]; then
		tap_result FAIL "checkpatch --strict $name: no summary" "$log/cp"
	elif [ -n "$bad" ]; then
		tap_result FAIL "checkpatch --strict $name: $total" "$log/cp"
	else
		tap_result OK "checkpatch --strict $name: $total${accepted:+ (accepted:$accepted)}"
	fi
done

# checkpatch caches the tree's CamelCase words in the tree it ran from;
# that file is no part of the series (make series checks the tree is clean).
rm -f "$ksrc"/.checkpatch-camelcase.*

# 2. kernel-doc: not a word on stderr or stdout.
for f in mm/ashmem.c mm/memfd_ashmem.c include/uapi/linux/ashmem.h; do
	"$ksrc/scripts/kernel-doc" -none -Wall "$ksrc/$f" >"$log/kd" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$log/kd" ]; then
		tap_result OK "kernel-doc -none -Wall $f: no warnings"
	else
		tap_result FAIL "kernel-doc -none -Wall $f: $(grep -c . "$log/kd") lines, status $rc" "$log/kd"
	fi
done

# 3. sparse and W=1 on the =y build.  C=2 checks the file even when the
#    object is up to date (C=1 would check nothing then); the CHECK line
#    proves sparse ran.
if grep -qx CONFIG_ASHMEM=y "$kout/.config" && grep -q ' ashmem_ioctl$' "$kout/System.map"; then
	tap_result OK "CONFIG_ASHMEM=y: the driver is built into $(basename "$kout")/vmlinux"
else
	tap_result FAIL "CONFIG_ASHMEM=y: no ashmem_ioctl in $kout/System.map"
fi
if grep -qx CONFIG_MEMFD_ASHMEM=y "$kout/.config" &&
   grep -q ' memfd_ashmem_ioctl$' "$kout/System.map"; then
	tap_result OK "CONFIG_MEMFD_ASHMEM=y: the memfd ioctls are built into $(basename "$kout")/vmlinux"
else
	tap_result FAIL "CONFIG_MEMFD_ASHMEM=y: no memfd_ashmem_ioctl in $kout/System.map"
fi
for o in mm/ashmem.o mm/memfd_ashmem.o; do
	kmake O="$kout" C=2 W=1 "$o" >"$log/sparse" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "CHECK .*${o%.o}.c" "$log/sparse" &&
	   ! grep -qE '(warning|error):' "$log/sparse"; then
		tap_result OK "sparse (C=2) + W=1: $o: no warnings"
	else
		tap_result FAIL "sparse (C=2) + W=1: $o (status $rc)" "$log/sparse"
	fi
done

# 4. headers_install exported the header, guard renamed for userspace.
hdr=$kout/usr/include/linux/ashmem.h
if [ -f "$hdr" ] && grep -q '^#define _LINUX_ASHMEM_H' "$hdr" &&
   grep -q 'ASHMEM_GET_FILE_ID' "$hdr"; then
	tap_result OK "headers_install exports linux/ashmem.h"
else
	tap_result FAIL "headers_install: $hdr missing or not the uapi header"
fi

# 5. The =m and =n variants of KOUT's configuration, each in its own
#    object directory (cheap after the first time: ccache, and only what
#    changed is rebuilt).
variant() {	# DIR scripts/config-ARGS...
	local dir=$1
	shift
	mkdir -p "$dir"
	cp "$kout/.config" "$dir/.config"
	"$ksrc/scripts/config" --file "$dir/.config" "$@"
	kmake O="$dir" -s olddefconfig
}
want() {	# DIR OPTION=VALUE...: all in DIR/.config?
	local dir=$1 o
	shift
	for o in "$@"; do
		case $o in
		*=n) ! grep -q "^${o%=n}=" "$dir/.config" || return 1 ;;
		*) grep -qx "$o" "$dir/.config" || return 1 ;;
		esac
	done
}

# =m: the object compiled as a module, with W=1.  It is linked, loaded and
# unloaded in the debug lane (make debug-results); modpost needs a vmlinux
# for that, which this quick build does not make.  The memfd ioctls stay
# built in: shmem and hugetlbfs call them.
m=$kout-lint-m
variant "$m" -e MODULES -e MODULE_UNLOAD -m ASHMEM -m KUNIT -m ASHMEM_KUNIT_TEST >"$log/m" 2>&1
if want "$m" CONFIG_MODULES=y CONFIG_ASHMEM=m CONFIG_KUNIT=m CONFIG_ASHMEM_KUNIT_TEST=m &&
   kmake O="$m" W=1 mm/ashmem.o >>"$log/m" 2>&1 &&
   ! grep -qE '(warning|error):' "$log/m" &&
   grep -q -- '-DMODULE' "$m/mm/.ashmem.o.cmd"; then
	tap_result OK "CONFIG_ASHMEM=m, ASHMEM_KUNIT_TEST=m: mm/ashmem.o builds as a module with W=1, no warnings"
else
	tap_result FAIL "CONFIG_ASHMEM=m, ASHMEM_KUNIT_TEST=m: mm/ashmem.o" "$log/m"
fi
if want "$m" CONFIG_MEMFD_ASHMEM=y &&
   kmake O="$m" W=1 mm/memfd_ashmem.o >"$log/mm" 2>&1 &&
   ! grep -qE '(warning|error):' "$log/mm" &&
   ! grep -q -- '-DMODULE' "$m/mm/.memfd_ashmem.o.cmd"; then
	tap_result OK "CONFIG_ASHMEM=m: CONFIG_MEMFD_ASHMEM=y, mm/memfd_ashmem.o builds into the kernel with W=1, no warnings"
else
	tap_result FAIL "CONFIG_ASHMEM=m: CONFIG_MEMFD_ASHMEM=y, mm/memfd_ashmem.o built in" "$log/mm"
fi

# =n, with the uapi header test: usr/include compiles every exported
# header on its own; ours must be among them.  Without ashmem there are no
# memfd ioctls either: shmem and hugetlbfs files have no ioctl method, as
# upstream (the nomemfd lane checks the same at run time, with ashmem on).
n=$kout-lint-n
variant "$n" -d ASHMEM -e HEADERS_INSTALL -e UAPI_HEADER_TEST >"$log/n" 2>&1
rm -f "$n/usr/include/linux/ashmem.hdrtest"
if want "$n" CONFIG_ASHMEM=n CONFIG_ASHMEM_KUNIT_TEST=n CONFIG_MEMFD_ASHMEM=n &&
   kmake O="$n" mm/ fs/hugetlbfs/ >>"$log/n" 2>&1 &&
   [ ! -e "$n/mm/ashmem.o" ] && [ ! -e "$n/mm/memfd_ashmem.o" ] &&
   [ -s "$n/mm/built-in.a" ] && [ -f "$n/fs/hugetlbfs/inode.o" ] &&
   ! nm "$n/mm/shmem.o" "$n/fs/hugetlbfs/inode.o" | grep -q memfd_ashmem; then
	tap_result OK "CONFIG_ASHMEM=n: mm/ and fs/hugetlbfs/ build without the driver and the memfd ioctls"
else
	tap_result FAIL "CONFIG_ASHMEM=n: mm/, fs/hugetlbfs/" "$log/n"
fi
if want "$n" CONFIG_UAPI_HEADER_TEST=y &&
   kmake O="$n" usr/ >"$log/u" 2>&1 &&
   [ -f "$n/usr/include/linux/ashmem.hdrtest" ]; then
	tap_result OK "CONFIG_UAPI_HEADER_TEST=y compiles include/uapi/linux/ashmem.h on its own"
else
	tap_result FAIL "CONFIG_UAPI_HEADER_TEST=y: usr/include/linux/ashmem.hdrtest not built" "$log/u"
fi

# 6. results.py, which judges every lane, on canned logs and manifests.
if python3 "$here/test-results.py" >"$log/r" 2>&1; then
	tap_result OK "results.py: $(grep -c '^ok' "$log/r") checks on canned kernel logs and manifests"
else
	tap_result FAIL "results.py self-test" "$log/r"
fi

# 7. The deliberate bugs of make mutants still apply to the driver.
if python3 "$here/mutants.py" check "$here/../mutants/ashmem.txt" "$here/.." >"$log/m" 2>&1; then
	tap_result OK "$(tail -1 "$log/m")"
else
	tap_result FAIL "mutants/ashmem.txt no longer applies to the driver" "$log/m"
fi

tap_done
