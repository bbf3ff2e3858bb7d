#!/bin/sh
# Debug lane: the detectors whose reports the harness looks for in the
# kernel log are in the kernel that runs, each seen from userspace (a file
# it creates, or a function only it builds).  A detector dropped from
# configs/debug.config fails here instead of staying silent.  Prints TAP.
#
# usage: detectors.sh

. "$(dirname "$0")/tap.sh"

symbol() {	# DETECTOR FUNCTION
	grep -q " $2\$" /proc/kallsyms
	result $? "$1: $2() is in the kernel"
}

exists() {	# DETECTOR PATH
	[ -e "$2" ]
	result $? "$1: $2 exists"
}

symbol KASAN kasan_report
symbol KFENCE __kfence_alloc
exists PROVE_LOCKING /proc/lockdep_chains
symbol DEBUG_ATOMIC_SLEEP __might_sleep
exists DEBUG_KMEMLEAK /sys/kernel/debug/kmemleak
symbol DEBUG_LIST __list_add_valid_or_report
symbol DEBUG_VM dump_vma
exists SOFTLOCKUP_DETECTOR /proc/sys/kernel/soft_watchdog
timeout=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)
[ "$timeout" = 60 ]
result $? "DETECT_HUNG_TASK: hung_task_timeout_secs is 60 (${timeout:-missing})"
symbol UBSAN __ubsan_handle_out_of_bounds
exists FAILSLAB /sys/kernel/debug/failslab

done_tap
