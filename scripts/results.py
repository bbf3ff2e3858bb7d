#!/usr/bin/env python3
# Turn test logs into result files, and result files into the final summary.
"""
usage:
  results.py kunit KUNIT_OUTPUT RC KERNEL_LOG OUT.json [NAME]
      kunit.py's output, its exit status and the UML kernel log (test.log,
      checked for kernel reports from the first test on).
  results.py vm NAME SUITES LOG RC CPUS OUT.json
      one VM boot: the suites list it ran ("FORMAT NAME DIR COMMAND" lines,
      FORMAT tap or plain), LOG.console and LOG.results as
      written by vm-run.sh, qemu's exit status, the number of vCPUs.  Kernel
      reports are looked for in the console and in the guest's dmesg dump.
  results.py tap NAME LOG RC OUT.json
      a host-side check that printed TAP (lint.sh, series.py verify,
      docs.sh): each TAP result counts; no plan or totals, or an exit
      status other than 0 without a failed test, is a problem.
  results.py summary [--strict] OUT.json...
      print failures and 'N passed, N failed, N skipped'; exit 1 if anything
      failed, anything is missing, or nothing passed.  Each result file is
      held to its manifest, manifests/NAME.txt (below), if there is one;
      with --strict, a result file without a manifest is a failure too.
  results.py times TIMES
      print the time of each step of a make check and the total; TIMES has
      'STEP SECONDS' lines.
  results.py manifest OUT.json
      print a manifest for a result file as it is, for review: the
      suites, their number of results, and each skip with its reason.

A manifest lists what a lane must report:
  suite NAME MIN         the suite must run and report at least MIN results
  skip SUITE TEST: WHY   SUITE may skip TEST (WHY says why it cannot run)
A suite not listed, fewer results than MIN, or a skip not listed is a
failure.

A result file: {"name", "suites": [{"name", "passed", "failed", "skipped",
"failures": [...], "skips": [[test, reason]...]}], "problems": [...],
"logs": [...]}.  A problem (a missing
result, a timeout, a kernel report in the log) counts as one failure.
"""

import json
import os
import re
import sys

# Kernel log lines that fail a run.  Only lines with a printk timestamp are
# looked at in VM logs, so program output cannot match by accident.
KERNEL_BAD = [
    "BUG:", "BUG at", "WARNING:", "INFO:", "Kernel panic", "Call Trace",
    "general protection", "Oops", "UBSAN:", "unreferenced object",
    "suspected memory leak", "sleeping function called",
    "blocked for more than", "detected stall", "soft lockup", "hard LOCKUP",
    "Unable to handle",
]
TIMESTAMP = re.compile(r"\[\s*\d+\.\d+\] (.*)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def read_lines(path):
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        return [ANSI.sub("", line.rstrip("\r\n")).replace("\r", "")
                for line in f]


# Reports that memory pressure produces on a healthy kernel: their call
# traces are expected (the tests and the demo exhaust memory on purpose).
PRESSURE = ["invoked oom-killer", "page allocation failure"]


def scan_kernel_log(lines, need_timestamp=True):
    """Problems for kernel reports, and notes for memory-pressure reports
    (the one 'Call Trace' of such a report, a few lines after it, is
    excused; any other report line still counts)."""
    problems, notes, last_pressure = {}, {}, -100
    texts = []
    for line in lines:
        if need_timestamp:
            m = TIMESTAMP.search(line)
            if m:
                texts.append(m.group(1))
        else:
            texts.append(line)
    for i, text in enumerate(texts):
        pressure = [p for p in PRESSURE if p in text]
        if pressure:
            notes.setdefault(pressure[0], []).append(text.strip())
            last_pressure = i
            continue
        # arm64 spells it "Call trace:".
        text = text.replace("Call trace", "Call Trace")
        for pat in KERNEL_BAD:
            if pat == "Call Trace" and pat in text and i - last_pressure <= 4:
                last_pressure = -100
            elif pat in text:
                problems.setdefault(pat, []).append(text.strip())
    out = [f"kernel log: {len(hits)} line(s) with '{pat}', first: {hits[0]}"
           for pat, hits in problems.items()]
    notes = [f"kernel log: {len(hits)} x '{pat}' (expected under memory pressure), "
             f"first: {hits[0]}" for pat, hits in notes.items()]
    return out, notes


def parse_tap(name, lines, rc):
    """One kselftest program's TAP output -> suite dict, problems."""
    suite = {"name": name, "passed": 0, "failed": 0, "skipped": 0,
             "failures": [], "skips": []}
    problems = []
    plan = None
    count = 0
    totals = False
    for line in lines:
        m = re.match(r"1\.\.(\d+)$", line)
        if m:
            plan = int(m.group(1))
            continue
        if line.startswith("# Totals:"):
            totals = True
            continue
        m = re.match(r"(not ok|ok) (\d+)\s*-?\s*(.*)$", line)
        if not m:
            continue
        count += 1
        status, desc = m.group(1), m.group(3)
        directive = re.search(r"#\s*(SKIP|XFAIL|TODO|XPASS)\b", desc, re.I)
        directive = directive.group(1).upper() if directive else None
        if directive in ("SKIP", "TODO"):
            suite["skipped"] += 1
            test, _, why = desc.partition("#")
            why = re.sub(r"^\s*(SKIP|TODO)\b\s*", "", why, flags=re.I)
            suite["skips"].append([test.strip(), why.strip()])
        elif status == "ok" and directive != "XPASS":
            suite["passed"] += 1
        else:
            suite["failed"] += 1
            suite["failures"].append(f"{name}: {status} {m.group(2)} {desc}")
    if plan is None:
        problems.append(f"{name}: no TAP plan (1..N): the program did not start or crashed")
    elif count != plan:
        problems.append(f"{name}: {count} results for a plan of {plan}")
    if not totals:
        problems.append(f"{name}: no '# Totals:' line: the program did not finish")
    if rc == 137:
        problems.append(f"{name}: killed by the guest's suite_timeout")
    elif rc not in (0, 4) and suite["failed"] == 0:   # 4: KSFT_SKIP
        problems.append(f"{name}: exit status {rc} without a failed test")
    return suite, problems


def cmd_vm(name, suites_path, log, rc, cpus, out):
    rc, cpus = int(rc), int(cpus)
    result = {"name": name, "suites": [], "problems": [],
              "logs": [log + ".console", log + ".results"]}
    problems = result["problems"]
    expected = []
    with open(suites_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fmt, suite_name = line.split()[:2]
                if fmt not in ("tap", "plain"):
                    sys.exit(f"results: {suites_path}: unknown format {fmt}")
                expected.append((fmt, suite_name))

    console = read_lines(log + ".console") or []
    res = read_lines(log + ".results")
    if res is None:
        problems.append(f"{name}: no results file: the VM did not start")
        res = []

    if rc == 124:
        problems.append(f"{name}: the VM hit the host timeout (VM_TIMEOUT)")
    elif rc != 0:
        problems.append(f"{name}: qemu exited with status {rc}")

    sections, current, boot, done, dmesg = {}, None, None, False, None
    for line in res:
        if line.startswith("@@ashmem "):
            words = line.split()
            if words[1] == "boot":
                boot = dict(w.split("=", 1) for w in words[2:] if "=" in w)
            elif words[1] == "begin":
                current = words[2]
                sections[current] = {"lines": [], "rc": None}
            elif words[1] == "end" and current == words[2]:
                sections[current]["rc"] = int(words[3].split("=")[1])
                current = None
            elif words[1] == "dmesg":
                dmesg = []
            elif words[1] == "done":
                done = True
        elif current:
            sections[current]["lines"].append(line)
        elif dmesg is not None and not done:
            dmesg.append(line)

    if boot is None:
        problems.append(f"{name}: the guest never reached /init")
    elif int(boot.get("cpus", 0)) != cpus:
        problems.append(f"{name}: the guest saw {boot.get('cpus')} CPUs, expected {cpus}")
    for fmt, suite_name in expected:
        sec = sections.get(suite_name)
        if sec is None:
            problems.append(f"{suite_name}: never ran")
            result["suites"].append({"name": suite_name, "passed": 0,
                                     "failed": 0, "skipped": 0, "failures": []})
            continue
        if sec["rc"] is None:
            problems.append(f"{suite_name}: did not finish (VM died or hung)")
            sec["rc"] = -1
        if fmt == "tap":
            suite, probs = parse_tap(suite_name, sec["lines"], sec["rc"])
            problems.extend(probs)
        else:
            ok = sec["rc"] == 0
            suite = {"name": suite_name, "passed": int(ok), "failed": int(not ok),
                     "skipped": 0, "failures": [] if ok else
                     [f"{suite_name}: exit status {sec['rc']}"]}
        result["suites"].append(suite)
    if boot is not None and not done:
        problems.append(f"{name}: the guest did not finish its list (no 'done' marker)")

    # The console and the guest's dmesg dump overlap: scan each line once.
    seen, klog = set(), []
    for line in console + (dmesg or []):
        m = TIMESTAMP.search(line)
        if m and m.group(0) not in seen:
            seen.add(m.group(0))
            klog.append(m.group(0))
    kproblems, notes = scan_kernel_log(klog)
    problems.extend(kproblems)
    result["notes"] = notes
    write(out, result)


def cmd_kunit(output, rc, kernel_log, out, name="kunit"):
    rc = int(rc)
    result = {"name": name, "suites": [], "problems": [],
              "logs": [output, kernel_log]}
    lines = read_lines(output) or []
    summary = None
    for line in lines:
        m = re.search(r"Testing complete\. Ran (\d+) tests?: (.*)$", line)
        if m:
            summary = dict((k.strip(), int(v)) for k, v in
                           (kv.split(":") for kv in m.group(2).split(",") if ":" in kv))
            summary["total"] = int(m.group(1))
    failures = [l.split("[FAILED]", 1)[1].strip() for l in lines if "[FAILED]" in l]
    failures += [l.split("[CRASHED]", 1)[1].strip() for l in lines if "[CRASHED]" in l]
    if summary is None:
        result["problems"].append(
            "kunit: no 'Testing complete' line: config/build failed or the UML kernel died")
    else:
        failed = summary.get("failed", 0) + summary.get("crashed", 0)
        result["suites"].append({
            "name": name, "passed": summary.get("passed", 0), "failed": failed,
            "skipped": summary.get("skipped", 0),
            "failures": [f"kunit: {f}" for f in failures] or
                        ([f"kunit: {failed} failed"] if failed else [])})
        if summary.get("errors"):
            result["problems"].append(f"kunit: {summary['errors']} parse errors "
                                      "(missing or malformed results)")
        if rc != 0 and failed == 0 and not summary.get("errors"):
            result["problems"].append(f"kunit: kunit.py exited with status {rc}")
        if summary["total"] == 0:
            result["problems"].append("kunit: no test ran")
    klog = read_lines(kernel_log)
    if klog is not None:
        # From the first test on: UML's own boot (e.g. its virtio-PCI WARN
        # in kunit's default UML config) is not ours to judge.
        start = next((i for i, l in enumerate(klog) if "TAP version" in l), len(klog))
        kproblems, _ = scan_kernel_log(klog[start:], need_timestamp=False)
        result["problems"].extend(kproblems)
    write(out, result)


def cmd_tap(name, log, rc, out):
    lines = read_lines(log)
    result = {"name": name, "suites": [], "problems": [], "logs": [log]}
    if lines is None:
        result["problems"].append(f"{name}: no output ({log} missing)")
    else:
        suite, problems = parse_tap(name, lines, int(rc))
        result["suites"].append(suite)
        result["problems"] += problems
    write(out, result)


def write(out, result):
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


MANIFESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "manifests")


def read_manifest(name):
    """manifests/NAME.txt -> ({suite: min}, {(suite, test)}), or None."""
    path = os.path.join(MANIFESTS, name + ".txt")
    lines = read_lines(path)
    if lines is None:
        return None
    suites, skips = {}, set()
    for n, line in enumerate(lines, 1):
        words = line.split(None, 2)
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "suite" and len(words) == 3 and words[2].isdigit():
            suites[words[1]] = int(words[2])
        elif words[0] == "skip" and len(words) == 3 and ":" in words[2]:
            skips.add((words[1], words[2].split(":", 1)[0].strip()))
        else:
            sys.exit(f"results: {path}:{n}: not a manifest line: {line}")
    return suites, skips


def check_manifest(r, strict):
    """Problems of result @r against its manifest, and a totals line."""
    manifest = read_manifest(r["name"])
    if manifest is None:
        return ([f"{r['name']}: no manifest (manifests/{r['name']}.txt)"]
                if strict else [], None)
    suites, skips = manifest
    problems, got = [], {s["name"]: s for s in r["suites"]}
    for name, least in suites.items():
        s = got.get(name)
        n = s["passed"] + s["failed"] + s["skipped"] if s else 0
        if n < least:
            problems.append(f"{name}: {n} results, the manifest expects at least {least}")
    for s in r["suites"]:
        if s["name"] not in suites:
            problems.append(f"{s['name']}: not in manifests/{r['name']}.txt")
        named = s.get("skips", [])
        for test, why in named:
            if (s["name"], test) not in skips:
                problems.append(f"{s['name']}: {test} skipped ({why}), "
                                "which the manifest does not allow")
        if s["skipped"] > len(named):
            problems.append(f"{s['name']}: {s['skipped'] - len(named)} "
                            "skipped without a name, which the manifest cannot allow")
    total = (f"manifest: {len(suites)} suites, at least {sum(suites.values())} "
             f"results, {len(skips)} skips allowed")
    return problems, total


def cmd_manifest(path):
    with open(path) as f:
        r = json.load(f)
    print(f"# {r['name']}: what this lane must report (results.py)")
    for s in r["suites"]:
        print(f"suite {s['name']} {s['passed'] + s['failed'] + s['skipped']}")
    for s in r["suites"]:
        for test, why in s.get("skips", []):
            print(f"skip {s['name']} {test}: {why}")


def cmd_summary(paths, strict=False):
    passed = failed = skipped = 0
    failures, problems, logs = [], [], []
    print("---- results ----")
    for path in paths:
        if not os.path.exists(path):
            problems.append(f"{path}: missing (that step did not run to the end)")
            continue
        with open(path) as f:
            r = json.load(f)
        mproblems, mtotal = check_manifest(r, strict)
        r["problems"] = r["problems"] + mproblems
        print(f"{r['name']}:" + (f" ({mtotal})" if mtotal else ""))
        for s in r["suites"]:
            print(f"  {s['name']}: {s['passed']} passed, {s['failed']} failed, "
                  f"{s['skipped']} skipped")
            passed += s["passed"]
            failed += s["failed"]
            skipped += s["skipped"]
            failures += s["failures"]
        for n in r.get("notes", []):
            print(f"  note: {n}")
        if r["problems"] or any(s["failed"] for s in r["suites"]):
            logs += r.get("logs", [])
        problems += r["problems"]
    for f in failures:
        print(f"FAIL: {f}")
    for p in problems:
        print(f"PROBLEM: {p}")
    if passed == 0 and not failed and not problems:
        problems.append("no test passed")
        print("PROBLEM: no test passed")
    for log in logs:
        print(f"log: {log}")
    failed += len(problems)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def cmd_times(path):
    """The time of each step of a make check, and the total (STEP SECONDS a
    line, written by the Makefile)."""
    total = 0
    print("---- time by step ----")
    for line in read_lines(path):
        step, secs = line.split()
        total += int(secs)
        print(f"  {step:<16} {int(secs) // 60:3d}:{int(secs) % 60:02d}")
    print(f"  {'total':<16} {total // 60:3d}:{total % 60:02d}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "vm" and len(args) == 6:
        cmd_vm(*args)
    elif cmd == "tap" and len(args) == 4:
        cmd_tap(*args)
    elif cmd == "kunit" and len(args) in (4, 5):
        cmd_kunit(*args)
    elif cmd == "summary" and args and args[0] == "--strict" and args[1:]:
        sys.exit(cmd_summary(args[1:], strict=True))
    elif cmd == "summary" and args:
        sys.exit(cmd_summary(args))
    elif cmd == "times" and len(args) == 1:
        cmd_times(*args)
    elif cmd == "manifest" and len(args) == 1:
        cmd_manifest(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
