#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Deliberate bugs in the driver, each of which a selftest must catch.

usage: mutants.py check LIST REPO
       mutants.py run LIST REPO KVER SELFTESTS KSRC OUT [NAME...]

LIST (mutants/ashmem.txt) names each mutant, the test that must fail on it
and the lines it changes:

    mutant NAME
    run: PROGRAM [ARGS...]        a 64-bit selftest program and its arguments
    kunit: GLOB                   or: the KUnit cases (kunit.py's filter) that
                                  must fail under UML
    debug: PROGRAM [ARGS...]      or: a 64-bit selftest on the debug kernel
    debug-kunit: GLOB             or: the KUnit cases (SUITE.CASE) of which one
                                  at least must fail when the debug kernel
                                  loads the module
    file: PATH                    optional, mm/ashmem.c by default
    - a line as it is             the '- ' or '+ ' is followed by the line
    + the line that replaces it   itself, tabs included

The '-' lines, in a row, must occur exactly once in the file.  A '-' line
after '+' lines starts another change of the same mutant.

check: every mutant applies to REPO.  run: builds the module as DKMS does
(the files dkms-deb.sh packs, against Debian's headers for KVER), boots
Debian's kernel once with the unchanged module, running every program of
the list, which must pass; then once per mutant, with the mutated module and
its program, which must fail.  SELFTESTS is the 64-bit selftests' install
directory.  The KUnit mutants run under UML with kunit.py in KSRC, the
prepared tree (its mm/ashmem.c is mutated for the run and put back; make
prepare resets it to the series if a run is cut short; the build directory
is KSRC's kunit lane's, OUT/../kunit): first every case of
the unchanged driver, which must pass, then each mutant's cases, of which
one at least must fail.  The debug mutants are for what neither Debian's
kernel nor UML can run (CONFIG_COMPAT, CONFIG_SHRINKER_DEBUG): KSRC's
mm/ashmem.c gets the bug the same way, the debug kernel's module is built
in OUT/../debug (make mm/ashmem.ko) and that kernel boots with it, loads
it (which runs its KUnit tests) and runs the check: once unchanged, every
check passing, then once per mutant.  The selftests come from
OUT/../selftests/debug-64/install; at the end the unchanged module is
built again.  The result goes to OUT/result.txt, a line per mutant; the
exit status is 0 when the unchanged driver passed and every mutant was
caught.
"""

import contextlib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# What dkms-deb.sh packs: the repo's path, and the path in the module source.
SOURCES = [
    ("mm/ashmem.c", "ashmem.c"),
    ("dkms/Kbuild", "Kbuild"),
    ("dkms/ashmem_compat.h", "ashmem_compat.h"),
    ("dkms/probe.sh", "probe.sh"),
    ("include/linux/ashmem.h", "include/linux/ashmem.h"),
    ("include/uapi/linux/ashmem.h", "include/uapi/linux/ashmem.h"),
    ("include/trace/events/ashmem.h", "include/trace/events/ashmem.h"),
]


class Mutant:
    def __init__(self, name, lineno):
        self.name = name
        self.lineno = lineno
        self.run = None
        self.kunit = None
        self.debug = None
        self.debug_kunit = None
        self.file = "mm/ashmem.c"
        self.hunks = []		# [(old lines, new lines)...]

    def where(self):
        return "mutant %s (line %d)" % (self.name, self.lineno)


def code_line(line):
    """The code of a '- ' or '+ ' line: what follows the marker's space."""
    return line[2:] if len(line) > 1 else ""


def parse(path):
    mutants, m = [], None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("mutant "):
                m = Mutant(line.split(None, 1)[1].strip(), lineno)
                mutants.append(m)
            elif not line.strip() or line.startswith("#"):
                continue
            elif m is None:
                sys.exit("%s:%d: text before the first mutant" % (path, lineno))
            elif line.startswith("run: "):
                m.run = line[5:].split()
            elif line.startswith("kunit: "):
                m.kunit = line[7:].strip()
            elif line.startswith("debug: "):
                m.debug = line[7:].split()
            elif line.startswith("debug-kunit: "):
                m.debug_kunit = line[13:].strip()
            elif line.startswith("file: "):
                m.file = line[6:].strip()
            elif line[0] == "-":
                if not m.hunks or m.hunks[-1][1]:
                    m.hunks.append(([], []))
                m.hunks[-1][0].append(code_line(line))
            elif line[0] == "+" and m.hunks:
                m.hunks[-1][1].append(code_line(line))
            else:
                sys.exit("%s:%d: not a mutant line: %s" % (path, lineno, line))
    names = [m.name for m in mutants]
    for m in mutants:
        kinds = [m.run, m.kunit, m.debug, m.debug_kunit]
        if sum(bool(k) for k in kinds) != 1 or not m.hunks:
            sys.exit("%s: %s needs one run:, kunit:, debug: or debug-kunit: line,"
                     " and '-' lines" % (path, m.where()))
        if not m.run and m.file != "mm/ashmem.c":
            sys.exit("%s: %s: only run: mutants change other files than mm/ashmem.c"
                     % (path, m.where()))
        if names.count(m.name) > 1:
            sys.exit("%s: two mutants named %s" % (path, m.name))
        if m.file not in [s for s, _ in SOURCES]:
            sys.exit("%s: %s changes %s, which the module is not built from"
                     % (path, m.where(), m.file))
    return mutants


def apply(m, text):
    """@text with the mutant's changes, or an exception saying why not."""
    for old, new in m.hunks:
        old = "\n".join(old) + "\n"
        count = text.count(old)
        if count != 1:
            raise ValueError("%s: its '-' lines occur %d times in %s, not once"
                             % (m.where(), count, m.file))
        text = text.replace(old, "\n".join(new) + "\n" if new else "")
    return text


def check(mutants, repo):
    bad = 0
    for m in mutants:
        with open(os.path.join(repo, m.file)) as f:
            try:
                apply(m, f.read())
            except ValueError as e:
                print("mutants: %s" % e, file=sys.stderr)
                bad += 1
    print("mutants: %d of %d in the list apply to the driver" % (len(mutants) - bad, len(mutants)))
    return bad == 0


def build(repo, kver, stage, m=None):
    """The module built from @repo (with mutant @m) in @stage."""
    shutil.rmtree(stage, ignore_errors=True)
    for src, dst in SOURCES:
        os.makedirs(os.path.dirname(os.path.join(stage, dst)), exist_ok=True)
        with open(os.path.join(repo, src)) as f:
            text = f.read()
        if m and m.file == src:
            text = apply(m, text)
        with open(os.path.join(stage, dst), "w") as f:
            f.write(text)
    subprocess.run(["make", "-s", "-C", "/lib/modules/%s/build" % kver,
                    "M=" + stage, "modules"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(stage, "ashmem.ko")


# What a suites line runs for a selftest, and for the loaded module's KUnit
# cases (ashmem-module.sh reports those of the run insmod started).
def selftest(run):
    return "/selftests/64/ashmem ./" + " ".join(run)


MODULE_KUNIT = "/ /bin/sh /guest/ashmem-module.sh kunit"


def boot(repo, kernel, name, stage, selftests, runs, env=None):
    """Boots @kernel with @stage's module; the results of @runs.

    @runs are the directories and commands of suites lines."""
    suites = os.path.join(stage, "suites")
    with open(suites, "w") as f:
        f.write("tap ashmem-module-load / /bin/sh /guest/ashmem-module.sh load\n")
        for i, run in enumerate(runs):
            f.write("tap run%d %s\n" % (i, run))
    env = dict(os.environ, VM_SMP="2", **(env or {}))
    subprocess.run(["bash", os.path.join(HERE, "vm.sh"), kernel,
                    name, suites, selftests + "=/selftests/64",
                    os.path.join(HERE, "guest") + "=/guest",
                    os.path.join(repo, "build/guest-bin") + "=/guest-bin",
                    stage + "=/modules"], check=True, cwd=repo, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(repo, "build/results/%s.json" % name)) as f:
        res = json.load(f)
    suites = {s["name"]: s for s in res["suites"]}
    load = suites.get("ashmem-module-load")
    if not load or load["failed"] or not load["passed"]:
        raise RuntimeError("%s: the module did not load (build/logs/%s.console)"
                           % (name, name))
    out = []
    for i in range(len(runs)):
        s = suites.get("run%d" % i, {"passed": 0, "failed": 1,
                                      "failures": ["no results"]})
        out.append((s["passed"], s["failed"], s.get("failures", []),
                    res.get("problems", [])))
    return out


KUNIT_CONFIG = "mm/ashmem.kunitconfig"


@contextlib.contextmanager
def mutated(repo, ksrc, m):
    """@ksrc's mm/ashmem.c with mutant @m (or none) while in the block."""
    path = os.path.join(ksrc, "mm/ashmem.c")
    with open(os.path.join(repo, "mm/ashmem.c")) as f:
        text = f.read()
    try:
        with open(path, "w") as f:
            f.write(apply(m, text) if m else text)
        yield
    finally:
        with open(path, "w") as f:
            f.write(text)


def kunit(repo, ksrc, builddir, glob, m=None):
    """kunit.py on @ksrc with mutant @m: (passed, failed, first failure).

    failed is None when kunit.py ran no test (the mutant did not build)."""
    cmd = [sys.executable, "tools/testing/kunit/kunit.py", "run",
           "--kunitconfig=" + KUNIT_CONFIG, "--build_dir=" + builddir,
           "--jobs=%d" % os.cpu_count(), "--timeout=300", glob]
    if shutil.which("ccache"):
        cmd += ["--make_options", "CC=ccache gcc"]
    with mutated(repo, ksrc, m):
        proc = subprocess.run(cmd, cwd=ksrc, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    done = re.search(r"Ran (\d+) tests?: (.*)", out)
    if not done:
        return 0, None, "kunit.py ran no test (status %d)" % proc.returncode
    counts = {k: int(v) for k, v in (c.split(": ", 1) for c in
                                      done.group(2).split(", ") if ": " in c)}
    failed = counts.get("failed", 0) + counts.get("crashed", 0)
    first = re.search(r"\[FAILED\] (\S+)|\[CRASHED\] (\S+)", out)
    return (counts.get("passed", 0), failed,
            "%s failed" % (first.group(1) or first.group(2)) if first else "")


def debug_build(repo, ksrc, kout, stage, m=None):
    """The debug kernel's module (in @kout) with mutant @m, copied to @stage."""
    cc = "ccache gcc" if shutil.which("ccache") else "gcc"	# as build-kernel.sh
    with mutated(repo, ksrc, m):
        subprocess.run(["make", "-s", "-C", ksrc, "O=" + kout, "ARCH=x86_64",
                        "CC=" + cc, "-j%s" % os.environ.get("JOBS", os.cpu_count()),
                        "mm/ashmem.ko"], check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    shutil.copy(os.path.join(kout, "mm/ashmem.ko"), stage)


def debug_check(m):
    """A debug mutant's suites line and its words in result.txt."""
    if m.debug:
        return selftest(m.debug), "debug " + " ".join(m.debug)
    return MODULE_KUNIT, "debug kunit " + m.debug_kunit


def debug_caught(m, failures, problems):
    """Whether @m's check failed: for KUnit, one of its cases."""
    if m.debug:
        return bool(failures or problems)
    return any(fnmatch.fnmatchcase("ashmem." + c, m.debug_kunit) for c in
               re.findall(r"not ok \d+ (\S+)", " ".join(failures)))


def debug_run(mutants, repo, ksrc, out):
    """The debug mutants: result.txt's lines, and whether all went well."""
    kout = os.path.join(os.path.dirname(out), "debug")
    selftests = os.path.join(os.path.dirname(out), "selftests/debug-64/install")
    bzimage = os.path.join(kout, "arch/x86/boot/bzImage")
    for need in (bzimage, selftests):
        if not os.path.exists(need):
            raise RuntimeError("no %s: make KERNEL=debug guest-bin selftests" % need)
    checks = []
    for m in mutants:
        if debug_check(m) not in checks:
            checks.append(debug_check(m))
    lines, ok = [], True
    stage = os.path.join(out, "debug-unchanged")
    try:
        debug_build(repo, ksrc, kout, stage)
        results = boot(repo, bzimage, "mutants-debug-unchanged", stage,
                       selftests, [c for c, _ in checks])
        for (_, what), (passed, failed, failures, problems) in zip(checks, results):
            good = passed and not failed and not problems
            ok &= bool(good)
            lines.append("%-32s %-6s %s: %d passed, %d failed%s" % (
                "(unchanged)", "passes" if good else "FAILS", what, passed,
                failed, (": " + failures[0]) if failures else ""))
        for m in mutants:
            stage = os.path.join(out, m.name)
            debug_build(repo, ksrc, kout, stage, m)
            passed, failed, failures, problems = boot(
                repo, bzimage, "mutant-" + m.name, stage, selftests,
                [debug_check(m)[0]])[0]
            caught = debug_caught(m, failures, problems)
            ok &= caught
            why = failures[0] if failures else (problems[0] if problems else "")
            lines.append("%-32s %-6s %s: %d passed, %d failed%s" % (
                m.name, "caught" if caught else "MISSED", debug_check(m)[1],
                passed, failed, (": " + why) if why else ""))
    finally:
        debug_build(repo, ksrc, kout, os.path.join(out, "debug-unchanged"))
    return lines, ok


def run(mutants, repo, kver, selftests, ksrc, out, names):
    if names:
        mutants = [m for m in mutants if m.name in names]
    os.makedirs(out, exist_ok=True)
    lines, ok = [], True
    start = time.time()
    total = len(mutants)
    builddir = os.path.join(os.path.dirname(out), "kunit")
    if any(m.kunit for m in mutants):
        passed, failed, why = kunit(repo, ksrc, builddir, "ashmem")
        good = passed and failed == 0
        ok &= bool(good)
        lines.append("%-32s %-6s kunit ashmem: %d passed, %s failed%s" % (
            "(unchanged)", "passes" if good else "FAILS", passed,
            "no test" if failed is None else failed, (": " + why) if why else ""))
    for m in [m for m in mutants if m.kunit]:
        passed, failed, why = kunit(repo, ksrc, builddir, m.kunit, m)
        caught = bool(failed)
        ok &= caught
        lines.append("%-32s %-6s kunit %s: %d passed, %s failed%s" % (
            m.name, "caught" if caught else "MISSED", m.kunit, passed,
            "no test" if failed is None else failed, (": " + why) if why else ""))
    debug = [m for m in mutants if m.debug or m.debug_kunit]
    mutants = [m for m in mutants if m.run]
    runs = []
    for m in mutants:
        if m.run not in runs:
            runs.append(m.run)
    kernel, numa = "/boot/vmlinuz-" + kver, {"VM_NUMA": "2"}
    if runs:
        build(repo, kver, os.path.join(out, "unchanged"))
    for run, (passed, failed, failures, problems) in zip(
            runs, boot(repo, kernel, "mutants-unchanged",
                       os.path.join(out, "unchanged"), selftests,
                       [selftest(r) for r in runs], numa)
            if runs else []):
        good = passed and not failed and not problems
        ok &= bool(good)
        lines.append("%-32s %-6s %s: %d passed, %d failed%s" % (
            "(unchanged)", "passes" if good else "FAILS", " ".join(run),
            passed, failed, (": " + failures[0]) if failures else ""))
    for m in mutants:
        stage = os.path.join(out, m.name)
        build(repo, kver, stage, m)
        passed, failed, failures, problems = boot(
            repo, kernel, "mutant-" + m.name, stage, selftests,
            [selftest(m.run)], numa)[0]
        caught = failed or problems
        ok &= bool(caught)
        why = failures[0] if failures else (problems[0] if problems else "")
        lines.append("%-32s %-6s %s: %d passed, %d failed%s" % (
            m.name, "caught" if caught else "MISSED", " ".join(m.run),
            passed, failed, (": " + why) if why else ""))
    if debug:
        more, good = debug_run(debug, repo, ksrc, out)
        lines += more
        ok &= good
    head = ["# make mutants: Debian's %s kernel, KUnit under UML and the debug kernel,"
            " %s, %d mutants, %.0f s"
            % (kver, time.strftime("%Y-%m-%d"), total, time.time() - start)]
    with open(os.path.join(out, "result.txt"), "w") as f:
        f.write("\n".join(head + lines) + "\n")
    print("\n".join(head + lines))
    return ok


def main(argv):
    if len(argv) >= 4 and argv[1] == "check":
        return 0 if check(parse(argv[2]), argv[3]) else 1
    if len(argv) >= 8 and argv[1] == "run":
        mutants = parse(argv[2])
        if not check(mutants, argv[3]):
            return 1
        return 0 if run(mutants, os.path.abspath(argv[3]), argv[4],
                        os.path.abspath(argv[5]), os.path.abspath(argv[6]),
                        os.path.abspath(argv[7]), argv[8:]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
