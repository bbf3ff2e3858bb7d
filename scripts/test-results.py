#!/usr/bin/env python3
# A self-test of results.py on canned logs: each kind of kernel report must
# fail a run, the reports of memory pressure must not, and a manifest must
# catch a missing suite, a short one and a skip it does not allow.
# Prints TAP.

import importlib.util
import json
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("results", os.path.join(here, "results.py"))
results = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results)

OOM = """\
[   40.100000] ashmem_test invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=1000
[   40.100100] CPU: 1 UID: 0 PID: 321 Comm: ashmem_test Not tainted 6.12.118 #1
[   40.100200] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)
[   40.100300] Call Trace:
[   40.100400]  <TASK>
[   40.100500]  dump_stack_lvl+0x5d/0x80
[   40.100600]  dump_header+0x43/0x1a0
[   40.100700]  oom_kill_process+0x10d/0x1c0
[   40.100800]  </TASK>
[   40.100900] Mem-Info:
[   40.101000] Out of memory: Killed process 321 (ashmem_test) total-vm:500000kB
[   40.101100] oom_reaper: reaped process 321 (ashmem_test), now anon-rss:0kB
[   41.000000] hog: page allocation failure: order:0, mode:0x140cca(GFP_HIGHUSER_MOVABLE), nodemask=(null)
[   41.000100] CPU: 0 UID: 0 PID: 330 Comm: hog Not tainted 6.12.118 #1
[   41.000200] Call Trace:
[   41.000300]  warn_alloc+0x120/0x1a0
"""

REPORTS = {
    "KASAN": "[ 12.000000] BUG: KASAN: slab-use-after-free in ashmem_purge_batch+0x1c/0x2a0",
    "KFENCE": "[ 12.000000] BUG: KFENCE: out-of-bounds read in ashmem_get_name+0x3/0x40",
    "lockdep cycle": "[ 12.000000] WARNING: possible circular locking dependency detected",
    "lockdep info": "[ 12.000000] INFO: trying to register non-static key.",
    "lockdep off": "[ 12.000000] INFO: lockdep is turned off.",
    "hung task": "[ 12.000000] INFO: task ashmem_test:123 blocked for more than 30 seconds.",
    "soft lockup": "[ 12.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [ashmem_test:99]",
    "hard lockup": "[ 12.000000] Watchdog detected hard LOCKUP on cpu 1",
    "RCU stall": "[ 12.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "UBSAN": "[ 12.000000] UBSAN: shift-out-of-bounds in mm/ashmem.c:321:17",
    "kmemleak": "[ 12.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "kmemleak object": "[ 12.000000] unreferenced object 0xffff888003d0a000 (size 64):",
    "WARN_ON": "[ 12.000000] WARNING: CPU: 1 PID: 88 at mm/ashmem.c:400 ashmem_punch+0x1/0x2",
    "BUG_ON": "[ 12.000000] kernel BUG at mm/ashmem.c:512!",
    "might_sleep": "[ 12.000000] BUG: sleeping function called from invalid context at mm/ashmem.c:77",
    "GPF": "[ 12.000000] Oops: general protection fault, probably for non-canonical address",
    "NULL": "[ 12.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "panic": "[ 12.000000] Kernel panic - not syncing: Fatal exception",
    "bare trace": "[ 12.000000] Call Trace:",
    "arm64 trace": "[ 12.000000] Call trace:",
    "arm64 oops": "[ 12.000000] Internal error: Oops: 0000000096000004 [#1] SMP",
}

n = 0
failed = 0


def check(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} {what}")


def problems_of(text):
    return results.scan_kernel_log(text.splitlines())


print("TAP version 13")
print(f"1..{len(REPORTS) + 6}")
problems, notes = problems_of(OOM)
check(not problems and len(notes) == 2,
      f"memory pressure: no problem, 2 notes ({problems or notes})")
for kind, line in REPORTS.items():
    problems, _ = problems_of(line)
    check(len(problems) >= 1, f"{kind} fails the run")
# A second trace after an OOM report is no part of it.
problems, _ = problems_of(OOM + "[ 41.000400] Call Trace:\n")
check(len(problems) == 1, "a second Call Trace after a pressure report fails the run")
# Program output, without a printk timestamp, is not a kernel report.
problems, _ = problems_of("# BUG: the test prints this\nWARNING: so does this\n")
check(not problems, "lines without a timestamp are not kernel reports")

# Manifests.
with tempfile.TemporaryDirectory() as d:
    results.MANIFESTS = d
    with open(os.path.join(d, "lane.txt"), "w") as f:
        f.write("# canned\nsuite a 3\nsuite b 1\nskip a t2: needs a feature\n")

    def run(suites):
        return results.check_manifest({"name": "lane", "suites": suites}, True)[0]

    def suite(name, passed, skips=()):
        return {"name": name, "passed": passed, "failed": 0,
                "skipped": len(skips), "failures": [],
                "skips": [[t, "why"] for t in skips]}

    check(run([suite("a", 2, ["t2"]), suite("b", 1)]) == [],
          "manifest: the expected suites, results and skip pass")
    bad = run([suite("a", 1, ["t3"])])
    check(len(bad) == 3,
          f"manifest: a missing suite, too few results and a skip not allowed fail ({bad})")
    check(run([suite("a", 3), suite("b", 1), suite("c", 1)]) != [] and
          results.check_manifest({"name": "none", "suites": []}, True)[0] != [],
          "manifest: a suite not listed, and a lane without a manifest, fail")
sys.exit(1 if failed else 0)
