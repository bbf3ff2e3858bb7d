#!/usr/bin/env python3
# The patch series: from patches/*.txt (the manifest), write a `git
# format-patch` series against pristine 6.12, and check that it is the tree
# make check tests.
"""
usage:
  series.py order REPO
      print the repo's patch files in the order prepare-tree.py applies them
  series.py build REPO BUILD OUTDIR
      write the series (cover letter first) into OUTDIR
  series.py verify REPO BUILD OUTDIR KOUT
      git am OUTDIR onto a fresh checkout of pristine 6.12 (BUILD/series/
      linux), compare the result with BUILD/linux, file by file, and build
      its mm/ with KOUT's configuration (in BUILD/series/KOUT's name);
      prints TAP

The manifest: patches/NN-NAME.txt, one file per patch in NN order, 00 the
cover letter.  Each is a mail-like text: lines starting with '#' first
(comments), then headers, a blank line and the body (the commit message
or the cover letter's blurb).  Headers:

  Subject: SUBJECT        the commit subject ("subsystem: do something")
  Files: ITEM...          what the patch carries (the header may repeat):
                            path/file      a repo file, copied to the same
                                           path of the tree (new, or whole)
                            path/dir/      every repo file under it
                            path/x.patch   a diff of the repo, applied to
                                           the tree (prepare-tree.py applies
                                           them in this order too)
                          An ITEM ending in '?' is optional: it carries the
                          file if the repo has it, and nothing otherwise.
  Maintainers: x.patch    (cover only) the diff that adds the MAINTAINERS
                          entry.  It is not a patch of its own: each patch
                          of the series adds the entry's F: lines for the
                          files it adds (the first one adds the whole entry
                          but the F: lines of files still to come), as
                          checkpatch asks of a patch that adds files.

Every file prepare-tree.py overlays (the repo's files under mm/ include/
tools/ samples/ Documentation/) must be carried by exactly one patch, and
every *.patch there must be named exactly once: a new file is an error
until it is listed.  Sign-offs and authorship come from `git config
user.name/user.email` (else from the repo's last commit); the dates from
the repo's last commit, so the same commit gives the same series.
"""

import fnmatch
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST_DIR = "patches"
TARBALL = "/usr/src/linux-source-6.12.tar.xz"


def die(msg):
    sys.exit(f"series: error: {msg}")


def prepare_tree():
    spec = importlib.util.spec_from_file_location(
        "prepare_tree", os.path.join(HERE, "prepare-tree.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------- manifest

def read_entry(path):
    with open(path) as f:
        lines = f.read().split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    entry = {"file": os.path.basename(path), "subject": None, "items": [],
             "maintainers": None}
    while lines and lines[0].strip():
        line = lines.pop(0)
        key, sep, value = line.partition(":")
        if not sep:
            die(f"{path}: not a header: {line!r}")
        value = value.strip()
        if key == "Subject":
            entry["subject"] = value
        elif key == "Files":
            entry["items"] += value.split()
        elif key == "Maintainers":
            entry["maintainers"] = value
        else:
            die(f"{path}: unknown header {key!r}")
    if not entry["subject"]:
        die(f"{path}: no Subject:")
    body = "\n".join(lines).strip("\n")
    if not body:
        die(f"{path}: no body (the commit message says why)")
    entry["body"] = body
    return entry


def read_manifest(repo):
    paths = sorted(glob.glob(os.path.join(repo, MANIFEST_DIR, "[0-9][0-9]-*.txt")))
    if not paths or not os.path.basename(paths[0]).startswith("00-"):
        die(f"{MANIFEST_DIR}/00-*.txt (the cover letter) missing")
    entries = [read_entry(p) for p in paths]
    cover, patches = entries[0], entries[1:]
    if cover["items"]:
        die(f"{cover['file']}: the cover letter carries no Files:")
    for e in patches:
        if e["maintainers"]:
            die(f"{e['file']}: Maintainers: belongs in the cover letter")
    return cover, patches


def repo_patches(repo, pt):
    """Every *.patch file under the overlay directories."""
    found = set()
    for top in pt.OVERLAY_DIRS:
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".git")]
            found |= {os.path.relpath(os.path.join(root, n), repo)
                      for n in names if n.endswith(".patch")}
    return found


def patch_order(repo):
    """The repo's patches in the order the series applies them; for
    prepare-tree.py.  Fails on a patch the manifest does not name."""
    pt = prepare_tree()
    cover, patches = read_manifest(repo)
    order = [cover["maintainers"]] if cover["maintainers"] else []
    for e in patches:
        order += [i.rstrip("?") for i in e["items"] if i.rstrip("?").endswith(".patch")]
    order = [p for p in order if os.path.exists(os.path.join(repo, p))]
    unlisted = sorted(repo_patches(repo, pt) - set(order))
    if unlisted:
        die(f"{', '.join(unlisted)}: not in any {MANIFEST_DIR}/*.txt "
            "(add it to the Files: of the patch it belongs to)")
    return order


def resolve(repo, pt, cover, patches):
    """For each patch: the overlay files and the repo diffs it carries.
    Checks that every overlay file and every diff is carried once."""
    overlay = pt.overlay_files(repo)
    carried, diffs_seen = {}, {}
    if cover["maintainers"]:
        diffs_seen[cover["maintainers"]] = cover["file"]
    problems = []
    for e in patches:
        e["files"], e["diffs"] = [], []
        for item in e["items"]:
            optional = item.endswith("?")
            item = item.rstrip("?")
            if item.endswith(".patch"):
                if not os.path.isfile(os.path.join(repo, item)):
                    if not optional:
                        problems.append(f"{e['file']}: {item}: no such file")
                    continue
                if item in diffs_seen:
                    problems.append(f"{item}: carried by {diffs_seen[item]} and {e['file']}")
                diffs_seen[item] = e["file"]
                e["diffs"].append(item)
                continue
            if item.endswith("/"):
                files = sorted(f for f in overlay if f.startswith(item))
            else:
                files = [item] if item in overlay else []
            if not files and not optional:
                problems.append(f"{e['file']}: {item}: not a file of the repo's "
                                f"{'/ '.join(pt.OVERLAY_DIRS)}/")
            for f in files:
                if f in carried:
                    problems.append(f"{f}: carried by {carried[f]} and {e['file']}")
                carried[f] = e["file"]
                e["files"].append(f)
    for f in sorted(overlay - set(carried)):
        problems.append(f"{f}: not carried by any patch: add it to the Files: "
                        f"of one of {MANIFEST_DIR}/*.txt")
    for p in sorted(repo_patches(repo, pt) - set(diffs_seen)):
        problems.append(f"{p}: not carried by any patch: add it to the Files: "
                        f"of one of {MANIFEST_DIR}/*.txt")
    if problems:
        die("the manifest does not match the repo:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------- git

def git(gitdir, *args, env=None, input=None, check=True):
    e = dict(os.environ, GIT_DIR=gitdir)
    e.pop("GIT_WORK_TREE", None)
    if env:
        e.update(env)
    r = subprocess.run(["git", *args], env=e, input=input,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode:
        die(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r


def tarball_stamp():
    st = os.stat(TARBALL)
    return f"{TARBALL} {st.st_size} {int(st.st_mtime)}"


def pristine_repo(build):
    """A bare repo whose branch 'pristine' is the Debian 6.12 tarball,
    extracted fresh (once per tarball), every file committed."""
    gitdir = os.path.join(build, "series", "pristine.git")
    stamp_file = os.path.join(build, "series", "pristine.stamp")
    stamp = tarball_stamp()
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        return gitdir
    print(f"series: committing a fresh extraction of {TARBALL} (once)", flush=True)
    shutil.rmtree(gitdir, ignore_errors=True)
    os.makedirs(gitdir)
    git(gitdir, "init", "-q", "--bare")
    tmp = tempfile.mkdtemp(prefix="pristine.", dir=os.path.join(build, "series"))
    try:
        subprocess.run(["tar", "-xf", TARBALL, "-C", tmp, "--strip-components=1"],
                       check=True)
        env = {"GIT_WORK_TREE": tmp, "GIT_INDEX_FILE": os.path.join(gitdir, "index")}
        git(gitdir, "-c", "core.looseCompression=1", "add", "-A", "-f", ".", env=env)
        tree = git(gitdir, "write-tree", env=env).stdout.strip()
    finally:
        shutil.rmtree(tmp)
    ident = {"GIT_AUTHOR_NAME": "Debian linux-source-6.12",
             "GIT_AUTHOR_EMAIL": "debian-kernel@lists.debian.org",
             "GIT_AUTHOR_DATE": "@0 +0000"}
    ident.update({k.replace("AUTHOR", "COMMITTER"): v for k, v in ident.items()})
    commit = git(gitdir, "commit-tree", tree, "-m",
                 f"Linux 6.12 as in {os.path.basename(TARBALL)}",
                 env=ident).stdout.strip()
    git(gitdir, "update-ref", "refs/heads/pristine", commit)
    with open(stamp_file, "w") as f:
        f.write(stamp)
    return gitdir


def identity(repo):
    def cfg(key):
        r = subprocess.run(["git", "-C", repo, "config", key],
                           stdout=subprocess.PIPE, text=True)
        return r.stdout.strip()

    def last(fmt):
        r = subprocess.run(["git", "-C", repo, "log", "-1", f"--format={fmt}"],
                           stdout=subprocess.PIPE, text=True)
        return r.stdout.strip()
    name = cfg("user.name") or last("%an")
    email = cfg("user.email") or last("%ae")
    if not name or not email:
        die("no identity for Signed-off-by: set git config user.name and user.email")
    date = last("%cd") if last("%H") else "@0 +0000"
    return name, email, date


MAINT_F = re.compile(r"^\+[FX]:\t(\S+)$")


def maintainers_diff(text, present):
    """The MAINTAINERS diff with only the F:/X: lines whose pattern matches
    a file of the tree so far; nothing if none is left."""
    out, kept_any = [], False
    for line in text.split("\n"):
        m = MAINT_F.match(line)
        if m:
            pat = m.group(1)
            if pat.endswith("/"):
                hit = any(f.startswith(pat) for f in present)
            else:
                hit = bool(fnmatch.filter(present, pat))
            if not hit:
                continue
            kept_any = True
        out.append(line)
    if not kept_any:
        return None
    # The hunks lost lines: recount their new side.
    result, i = [], 0
    lines = out
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$", line)
        if not m:
            result.append(line)
            i += 1
            continue
        j = i + 1
        new = 0
        while j < len(lines) and lines[j][:1] in (" ", "+", "-", "\\"):
            if lines[j][:1] in (" ", "+"):
                new += 1
            j += 1
        old = m.group(2) if m.group(2) is not None else "1"
        result.append(f"@@ -{m.group(1)},{old} +{m.group(3)},{new} @@{m.group(5)}")
        result.extend(lines[i + 1:j])
        i = j
    return "\n".join(result)


def build(repo, build_dir, outdir):
    repo, build_dir = os.path.abspath(repo), os.path.abspath(build_dir)
    pt = prepare_tree()
    cover, patches = read_manifest(repo)
    resolve(repo, pt, cover, patches)
    gitdir = pristine_repo(build_dir)
    name, email, date = identity(repo)
    index = os.path.join(build_dir, "series", "index.series")
    env = {"GIT_INDEX_FILE": index,
           "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
    if os.path.exists(index):
        os.unlink(index)
    git(gitdir, "read-tree", "pristine", env=env)
    maint_text = None
    if cover["maintainers"]:
        with open(os.path.join(repo, cover["maintainers"])) as f:
            maint_text = f.read()
        pristine_maint = git(gitdir, "rev-parse", "pristine:MAINTAINERS").stdout.strip()

    parent = git(gitdir, "rev-parse", "pristine").stdout.strip()
    tree = git(gitdir, "rev-parse", "pristine^{tree}").stdout.strip()
    for e in patches:
        for f in e["files"]:
            src = os.path.join(repo, f)
            sha = git(gitdir, "hash-object", "-w", src).stdout.strip()
            mode = "100755" if os.stat(src).st_mode & 0o111 else "100644"
            git(gitdir, "update-index", "--add", "--cacheinfo", f"{mode},{sha},{f}", env=env)
        for d in e["diffs"]:
            r = git(gitdir, "apply", "--cached", "-p1", os.path.join(repo, d),
                    env=env, check=False)
            if r.returncode:
                die(f"{d} (in {e['file']}) does not apply: {r.stderr.strip()}")
        if maint_text:
            present = git(gitdir, "ls-files", env=env).stdout.split("\n")
            git(gitdir, "update-index", "--cacheinfo",
                f"100644,{pristine_maint},MAINTAINERS", env=env)
            diff = maintainers_diff(maint_text, present)
            if diff:
                r = git(gitdir, "apply", "--cached", "-p1", "-", env=env,
                        input=diff + "\n", check=False)
                if r.returncode:
                    die(f"{cover['maintainers']} does not apply: {r.stderr.strip()}")
        new_tree = git(gitdir, "write-tree", env=env).stdout.strip()
        if new_tree == tree:
            die(f"{e['file']}: the patch changes nothing")
        msg = f"{e['subject']}\n\n{e['body']}\n\nSigned-off-by: {name} <{email}>\n"
        parent = git(gitdir, "commit-tree", new_tree, "-p", parent, "-F", "-",
                     env=env, input=msg).stdout.strip()
        tree = new_tree
    git(gitdir, "update-ref", "refs/heads/series", parent)
    if maint_text:
        # By the last patch, the whole entry must be in.
        final = git(gitdir, "show", "series:MAINTAINERS").stdout.split("\n")
        missing = [line[1:] for line in maint_text.split("\n")
                   if MAINT_F.match(line) and line[1:] not in final]
        if missing:
            die(f"{cover['maintainers']}: no patch adds a file for "
                f"{', '.join(missing)}")

    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    r = git(gitdir, "format-patch", "-q", "--cover-letter", "-o", os.path.abspath(outdir),
            "pristine..series", env=env)
    files = sorted(glob.glob(os.path.join(outdir, "*.patch")))
    letter = files[0]
    with open(letter) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        die(f"{letter}: no placeholders to fill")
    text = text.replace("*** SUBJECT HERE ***", cover["subject"])
    text = text.replace("*** BLURB HERE ***", cover["body"])
    with open(letter, "w") as f:
        f.write(text)
    print(f"series: {len(files) - 1} patches and a cover letter in {outdir}:")
    for p in files:
        print(f"  {os.path.relpath(p)}")


# ---------------------------------------------------------------- verify

class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def result(self, ok, desc, detail=""):
        self.n += 1
        self.failed += not ok
        print(f"{'ok' if ok else 'not ok'} {self.n} {desc}", flush=True)
        for line in detail.strip("\n").split("\n") if detail.strip() else []:
            print(f"# {line}")
        return ok

    def done(self):
        print(f"1..{self.n}")
        print(f"# Totals: pass:{self.n - self.failed} fail:{self.failed} "
              "xfail:0 xpass:0 skip:0 error:0")


def tree_of(gitdir, worktree, index):
    """The git tree of every file under worktree, ignored or not."""
    env = {"GIT_WORK_TREE": worktree, "GIT_INDEX_FILE": index}
    if os.path.exists(index):
        os.unlink(index)
    git(gitdir, "add", "-A", "-f", ".", env=env)
    return git(gitdir, "write-tree", env=env).stdout.strip()


def verify(repo, build_dir, outdir, kout):
    build_dir, kout = os.path.abspath(build_dir), os.path.abspath(kout)
    tap = Tap()
    gitdir = pristine_repo(build_dir)
    series = sorted(glob.glob(os.path.join(outdir, "*.patch")))[1:]
    am = os.path.join(build_dir, "series", "linux")
    shutil.rmtree(am, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--shared", "--branch", "pristine",
                    gitdir, am], check=True)
    r = subprocess.run(["git", "-C", am, "-c", "user.name=series check",
                        "-c", "user.email=series@check", "am", "-q",
                        *map(os.path.abspath, series)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not tap.result(r.returncode == 0 and series,
                      f"git am: {len(series)} patches apply to a fresh checkout of "
                      f"pristine 6.12", r.stdout):
        tap.done()
        return 1
    am_tree = git(os.path.join(am, ".git"), "rev-parse", "HEAD^{tree}").stdout.strip()
    built = git(gitdir, "rev-parse", "series^{tree}").stdout.strip()
    tap.result(am_tree == built, "the applied series is the tree the manifest built")

    # The tested tree, every file, against what git am made.
    index = os.path.join(build_dir, "series", "index.linux")
    linux_tree = tree_of(gitdir, os.path.join(build_dir, "linux"), index)
    detail = ""
    if linux_tree != am_tree:
        detail = "files that differ (build/linux against the series):\n" + \
            git(gitdir, "diff-tree", "-r", "--name-status", am_tree,
                linux_tree).stdout
    tap.result(linux_tree == am_tree,
               "build/linux, the tree make check builds, is byte for byte the series",
               detail)

    # Build the applied series with KOUT's configuration: mm/, where the
    # kernel code of the series is (the whole tree, byte for byte the same,
    # is built and booted by make check).
    out = os.path.join(build_dir, "series", os.path.basename(kout))
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(kout, ".config"), os.path.join(out, ".config"))
    cc = "ccache gcc" if shutil.which("ccache") else "gcc"
    env = dict(os.environ)
    log = os.path.join(build_dir, "series", "build.log")
    with open(log, "w") as f:
        r = subprocess.run(["make", "-C", am, f"O={out}", "ARCH=x86_64", f"CC={cc}",
                            f"-j{os.environ.get('JOBS') or os.cpu_count()}",
                            "olddefconfig", "mm/"],
                           stdout=f, stderr=subprocess.STDOUT, env=env)
    with open(log) as f:
        tail = "".join(f.readlines()[-30:])
    same_config = subprocess.run(["cmp", "-s", os.path.join(kout, ".config"),
                                  os.path.join(out, ".config")]).returncode == 0
    tap.result(r.returncode == 0 and same_config and
               os.path.exists(os.path.join(out, "mm/ashmem.o")),
               f"the applied series builds: mm/ with {os.path.basename(kout)}'s "
               f"configuration (log: {os.path.relpath(log)})",
               "" if r.returncode == 0 and same_config else
               (tail if r.returncode else "olddefconfig changed the configuration"))
    tap.done()
    return 1 if tap.failed else 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "order" and len(args) == 1:
        print("\n".join(patch_order(args[0])))
    elif cmd == "build" and len(args) == 3:
        build(*args)
    elif cmd == "verify" and len(args) == 4:
        sys.exit(verify(*args))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
