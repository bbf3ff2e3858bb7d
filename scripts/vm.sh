#!/bin/bash
# Boot the VM once to run a list of programs, and parse what they printed.
#
# usage: vm.sh BZIMAGE NAME SUITES [HOSTDIR=GUESTDIR...]
#   NAME    names the outputs: build/initramfs/NAME.cpio, build/logs/NAME.*
#           and build/results/NAME.json
#   SUITES  "FORMAT NAME DIR COMMAND [ARGS...]" a line (see scripts/guest/init):
#           FORMAT tap: the program prints TAP (kselftest_harness), each test
#           counts; plain: the program counts as one test, passed if it
#           exits 0
# Env: KERNEL_ARGS (extra kernel command line), VM_* (see vm-run.sh).
# Exits 0 once the result file is written, whatever the tests said.
set -euo pipefail

bzimage=$1 name=$2 suites=$3; shift 3
here=$(dirname "$(realpath "$0")")
b=${BUILD_DIR:-build}

rm -f "$b/results/$name.json"
bash "$here/mkinitramfs.sh" "$b/linux" "$b/initramfs/$name.cpio" "$suites" "$@"
rc=0
bash "$here/vm-run.sh" "$bzimage" "$b/initramfs/$name.cpio" "$b/logs/$name" ${KERNEL_ARGS:-} || rc=$?
python3 "$here/results.py" vm "$name" "$suites" "$b/logs/$name" "$rc" \
	"${VM_SMP:-2}" "$b/results/$name.json"
