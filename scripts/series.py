#!/usr/bin/env python3
# The kernel tree and the patch series, one and the same: build/linux is a
# git checkout whose branch 'series' is made from patches/*.txt (the
# manifest) on top of pristine 6.12; `git format-patch` of that branch is
# the series that is sent.
"""
usage:
  series.py prepare REPO TREE [BASE]
      make TREE (build/linux) the git checkout of the series
  series.py patches REPO TREE OUTDIR [BASE]
      write the series of TREE's branch 'series' (cover letter first) into
      OUTDIR, after checking that the branch is what REPO's manifest makes
  series.py verify TREE OUTDIR WORKDIR [BASE]
      git am OUTDIR onto a fresh checkout of pristine BASE (WORKDIR/linux):
      it must give the tree of TREE's 'series', and TREE must be checked
      out at 'series', clean; prints TAP

BASE is the kernel the series is made for: 6.12 (the default; the tarball
of Debian 12's linux-source-6.12, tree build/linux) or 7.3 (Debian 13's
linux-source-7.3 from trixie-backports, which scripts/fetch-source.sh
leaves in $ASHMEM_SOURCE_CACHE, by default /var/cache/ashmem; tree
build/linux-7.3).  The repo's files are written for 7.3; what 6.12 needs
otherwise is in diffs under patches/6.12/, carried by Files-6.12: headers.

The tree: TREE/.git has a branch 'pristine', the Debian tarball
/usr/src/linux-source-6.12.tar.xz with every file (committed once per
tarball), and a branch 'series', one commit per patch of the manifest.
prepare makes both, then checks 'series' out: git rewrites only the files
whose content changed, so every other file keeps its mtime and a kernel
build (always out of tree, O=) stays incremental.  What else is in the
work tree goes: a file edited by hand is reset to the series, and files
the series does not have are deleted (git clean -fdx).  A tree of the old
layout (an extracted tarball without .git) is converted in place the same
way; a new tarball gets a new 'pristine' commit.

The manifest: patches/NN-NAME.txt, one file per patch in NN order, 00 the
cover letter.  Each is a mail-like text: lines starting with '#' first
(comments), then headers, a blank line and the body (the commit message
or the cover letter's blurb).  Headers:

  Subject: SUBJECT        the commit subject ("subsystem: do something")
  Files: ITEM...          what the patch carries (the header may repeat):
                            path/file      a repo file, copied to the same
                                           path of the tree (new, or whole)
                            path/dir/      every repo file under it
                            patches/x.diff a diff of files of 6.12, applied
                                           to the tree in this order
                                           (mm/shmem-set-file.patch, which
                                           the design names, is one too)
                            Kconfig:NAME   the option NAME of the repo's
                                           top-level Kconfig: the tree's
                                           mm/ashmem/Kconfig holds the
                                           options carried so far, in the
                                           order of Kconfig
                          An ITEM ending in '?' is optional: it carries the
                          file if the repo has it, and nothing otherwise.
  Files-BASE: ITEM...     as Files:, for the series on BASE only (Files-6.12:
                          a diff of patches/6.12/ that makes a repo file,
                          written for 7.3, build on 6.12); an item that only
                          other bases carry is not this base's to carry
  Maintainers: x.diff     (cover only) the diff that adds the MAINTAINERS
                          entry.  It is not a patch of its own: each patch
                          of the series adds the entry's F: lines for the
                          files it adds (the first one adds the whole entry
                          but the F: lines of files still to come), as
                          checkpatch asks of a patch that adds files.

Every repo file under mm/ include/ tools/ samples/ Documentation/ must be
carried by exactly one patch, every option of Kconfig by exactly one patch,
and every diff (patches/*.diff, patches/*/*.diff, and a .diff or .patch
under those directories) must be named exactly once, in each base's series
(Files: and Files-BASE:): a new file is an error until it
is listed.  Sign-offs and authorship come from `git config
user.name/user.email` (else from the repo's last commit); the dates from
the repo's last commit, so the same commit gives the same series.
"""

import fnmatch
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

MANIFEST_DIR = "patches"
# The bases the series is made for: Debian's linux-source tarball of each
# (7.3's as scripts/fetch-source.sh leaves it).  BASE and TARBALL are the
# one of this run, the last argument (6.12 by default).
SOURCE_CACHE = os.environ.get("ASHMEM_SOURCE_CACHE", "/var/cache/ashmem")
BASES = {"6.12": "/usr/src/linux-source-6.12.tar.xz",
         "7.3": os.path.join(SOURCE_CACHE, "linux-source-7.3.tar.xz")}
BASE = "6.12"
TARBALL = BASES[BASE]
OVERLAY_DIRS = ["mm", "include", "tools", "samples", "Documentation"]
SKIP_SUFFIXES = (".orig", ".rej", "~", ".swp")
DIFF_SUFFIXES = (".diff", ".patch")
KCONFIG = "Kconfig"			# the repo's options, one stanza each ...
KCONFIG_TREE = "mm/ashmem/Kconfig"	# ... placed here, sourced by mm/Kconfig
STAMP = "ashmem-pristine"		# in TREE/.git: the tarball committed
SERIES_INDEX = "ashmem-series-index"	# in TREE/.git: the index 'series' is made in
SERIES_KEY = "ashmem-series-key"	# in TREE/.git: what 'series' was made from


def die(msg):
    sys.exit(f"series: error: {msg}")


# ---------------------------------------------------------------- repo files

def git_ignored(repo):
    """Repo files git ignores (build leftovers), if this is a git checkout."""
    if not os.path.exists(os.path.join(repo, ".git")):
        return set()
    r = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--others",
                        "--ignored", "--exclude-standard", "--"] + OVERLAY_DIRS,
                       stdout=subprocess.PIPE, check=True)
    return set(filter(None, r.stdout.decode().split("\0")))


def overlay_files(repo):
    """The repo's files under OVERLAY_DIRS: each one is a file of the tree."""
    files = set()
    for top in OVERLAY_DIRS:
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".git")]
            for name in names:
                if not name.endswith(SKIP_SUFFIXES):
                    files.add(os.path.relpath(os.path.join(root, name), repo))
    return files - git_ignored(repo)


def kconfig_stanzas(repo):
    """The repo's Kconfig: its head (the lines before the first option) and
    {NAME: stanza} in file order; a stanza runs from its 'config NAME' line
    to the next one."""
    path = os.path.join(repo, KCONFIG)
    if not os.path.isfile(path):
        return "", {}
    head, stanzas, name = [], {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^(?:menu)?config\s+(\w+)\s*$", line)
            if m:
                name = m.group(1)
                stanzas[name] = []
            (stanzas[name] if name else head).append(line)
    return "".join(head), {n: "".join(lines) for n, lines in stanzas.items()}


def kconfig_text(repo, names):
    """mm/ashmem/Kconfig with the options @names, in the order of Kconfig."""
    head, stanzas = kconfig_stanzas(repo)
    return (head + "".join(t for n, t in stanzas.items() if n in names)).rstrip("\n") + "\n"


# ---------------------------------------------------------------- manifest

def read_entry(path):
    with open(path) as f:
        lines = f.read().split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    entry = {"file": os.path.basename(path), "subject": None, "items": [],
             "maintainers": None, "other_items": []}
    while lines and lines[0].strip():
        line = lines.pop(0)
        key, sep, value = line.partition(":")
        if not sep:
            die(f"{path}: not a header: {line!r}")
        value = value.strip()
        if key == "Subject":
            entry["subject"] = value
        elif key == "Files" or key == f"Files-{BASE}":
            entry["items"] += value.split()
        elif key.startswith("Files-") and key[len("Files-"):] in BASES:
            entry["other_items"] += value.split()
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


def resolve(repo, cover, patches):
    """For each patch: the repo files, the diffs and the Kconfig options it
    carries.  Checks that every repo file of the tree, every diff and every
    option is carried once."""
    overlay = overlay_files(repo)
    diffs = {f for f in overlay if f.endswith(DIFF_SUFFIXES)}
    overlay -= diffs
    all_diffs = diffs | {os.path.relpath(p, repo) for p in
                         glob.glob(os.path.join(repo, MANIFEST_DIR, "*.diff")) +
                         glob.glob(os.path.join(repo, MANIFEST_DIR, "*", "*.diff"))}
    _, stanzas = kconfig_stanzas(repo)
    carried, diffs_seen, options_seen = {}, {}, {}
    problems = []
    # What only another base carries is not this base's to carry.
    for e in patches:
        for item in e["other_items"]:
            item = item.rstrip("?")
            if item.endswith(DIFF_SUFFIXES):
                diffs_seen.setdefault(item, e["file"])
            elif item.endswith("/"):
                carried.update({f: e["file"] for f in overlay if f.startswith(item)})
            elif not item.startswith(KCONFIG + ":"):
                carried.setdefault(item, e["file"])
    other = set(carried) | set(diffs_seen)
    carried, diffs_seen = {}, {}
    if cover["maintainers"]:
        if not os.path.isfile(os.path.join(repo, cover["maintainers"])):
            problems.append(f"{cover['file']}: {cover['maintainers']}: no such file")
        diffs_seen[cover["maintainers"]] = cover["file"]
    for e in patches:
        e["files"], e["diffs"], e["options"] = [], [], []
        for item in e["items"]:
            optional = item.endswith("?")
            item = item.rstrip("?")
            if item.startswith(KCONFIG + ":"):
                name = item[len(KCONFIG) + 1:]
                if name not in stanzas:
                    if not optional:
                        problems.append(f"{e['file']}: {item}: no option {name} in {KCONFIG}")
                    continue
                if name in options_seen:
                    problems.append(f"{KCONFIG}:{name}: carried by {options_seen[name]} "
                                    f"and {e['file']}")
                options_seen[name] = e["file"]
                e["options"].append(name)
                continue
            if item.endswith(DIFF_SUFFIXES):
                if not (item.startswith(MANIFEST_DIR + "/") or
                        item.split("/")[0] in OVERLAY_DIRS):
                    problems.append(f"{e['file']}: {item}: diffs live in {MANIFEST_DIR}/ "
                                    f"or are named in {'/ '.join(OVERLAY_DIRS)}/")
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
                                f"{'/ '.join(OVERLAY_DIRS)}/")
            for f in files:
                if f in carried:
                    problems.append(f"{f}: carried by {carried[f]} and {e['file']}")
                carried[f] = e["file"]
                e["files"].append(f)
    for f in sorted(overlay - set(carried) - other) + \
            sorted(all_diffs - set(diffs_seen) - other):
        problems.append(f"{f}: not carried by any patch: add it to the Files: "
                        f"of one of {MANIFEST_DIR}/*.txt")
    for name in stanzas:
        if name not in options_seen:
            problems.append(f"{KCONFIG}: option {name} not carried by any patch: add "
                            f"{KCONFIG}:{name} to the Files: of one of {MANIFEST_DIR}/*.txt")
    if problems:
        die("the manifest does not match the repo:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------- git

def git(gitdir, *args, env=None, input=None, check=True, work=None):
    """git on @gitdir; with the work tree @work if given."""
    e = dict(os.environ, GIT_DIR=gitdir)
    e.pop("GIT_WORK_TREE", None)
    e.pop("GIT_INDEX_FILE", None)
    if work:
        e["GIT_WORK_TREE"] = work
    if env:
        e.update(env)
    r = subprocess.run(["git", *args], env=e, input=input, cwd=work,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode:
        die(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r


def tarball_stamp():
    if not os.path.exists(TARBALL):
        die(f"{TARBALL} missing: run 'make prepare' (for 7.3: scripts/fetch-source.sh)")
    st = os.stat(TARBALL)
    return f"{TARBALL} {st.st_size} {int(st.st_mtime)}\n"


def commit_pristine(gitdir, work):
    """Commit @work, a fresh extraction of the tarball, as 'pristine'."""
    env = {"GIT_INDEX_FILE": os.path.join(gitdir, "index.pristine")}
    git(gitdir, "-c", "core.looseCompression=1", "add", "-A", "-f", ".",
        env=env, work=work)
    tree = git(gitdir, "write-tree", env=env).stdout.strip()
    os.replace(env["GIT_INDEX_FILE"], os.path.join(gitdir, "index"))
    ident = {"GIT_AUTHOR_NAME": f"Debian linux-source-{BASE}",
             "GIT_AUTHOR_EMAIL": "debian-kernel@lists.debian.org",
             "GIT_AUTHOR_DATE": "@0 +0000"}
    ident.update({k.replace("AUTHOR", "COMMITTER"): v for k, v in ident.items()})
    commit = git(gitdir, "commit-tree", tree, "-m",
                 f"Linux {BASE} as in {os.path.basename(TARBALL)}",
                 env=ident).stdout.strip()
    git(gitdir, "update-ref", "refs/heads/pristine", commit)


def extract(dest):
    print(f"series: extracting {TARBALL} and committing it as 'pristine' (once)",
          flush=True)
    subprocess.run(["tar", "-xf", TARBALL, "-C", dest, "--strip-components=1"],
                   check=True)


def pristine(tree):
    """TREE/.git with the branch 'pristine' of the current tarball.  A new
    TREE is extracted in place (its index then matches its files); an old
    one (no .git, or an older tarball) gets 'pristine' from a temporary
    extraction, and its index no stat data: checkout() compares its files
    by content."""
    gitdir = os.path.join(tree, ".git")
    stamp_file = os.path.join(gitdir, STAMP)
    stamp = tarball_stamp()
    if (os.path.exists(stamp_file) and open(stamp_file).read() == stamp and
            git(gitdir, "rev-parse", "-q", "--verify", "pristine", check=False).stdout):
        return gitdir
    parent = os.path.dirname(tree)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=os.path.basename(tree) + ".", dir=parent)
    try:
        if not os.path.isdir(tree):
            extract(tmp)
            git(os.path.join(tmp, ".git"), "init", "-q")
            commit_pristine(os.path.join(tmp, ".git"), tmp)
            git(os.path.join(tmp, ".git"), "config", "gc.auto", "0")
            with open(os.path.join(tmp, ".git", STAMP), "w") as f:
                f.write(stamp)
            os.rename(tmp, tree)
            return gitdir
        print(f"series: {tree}: no 'pristine' of this tarball; "
              "files the series keeps are not rewritten", flush=True)
        if not os.path.isdir(gitdir):
            git(gitdir, "init", "-q")
        git(gitdir, "config", "gc.auto", "0")
        extract(tmp)
        commit_pristine(gitdir, tmp)
        os.unlink(os.path.join(gitdir, "index"))
        with open(stamp_file, "w") as f:
            f.write(stamp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
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


def maintainers_diff(text, hit):
    """The MAINTAINERS diff with only the F:/X: lines whose pattern
    matches a file of the tree so far (hit(pattern)); nothing if none is
    left."""
    out, kept_any = [], False
    for line in text.split("\n"):
        m = MAINT_F.match(line)
        if m:
            if not hit(m.group(1)):
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


def matches(pattern, files):
    """Does a MAINTAINERS F: pattern match one of @files?"""
    if pattern.endswith("/"):
        return any(f.startswith(pattern) for f in files)
    return bool(fnmatch.filter(files, pattern))


def new_files(diff):
    """The files a diff creates."""
    with open(diff, errors="replace") as f:
        lines = f.read().split("\n")
    return [b[6:].split("\t")[0] for a, b in zip(lines, lines[1:])
            if a.startswith("--- /dev/null") and b.startswith("+++ b/")]


def series_key(repo, gitdir, cover, patches, ident):
    """What the series is made from: the pristine commit, this script,
    the identity and date, the manifest and every file it carries."""
    h = hashlib.sha256()
    h.update(git(gitdir, "rev-parse", "pristine").stdout.encode())
    h.update("\0".join(ident).encode())
    paths = [os.path.abspath(__file__)]
    paths += sorted(glob.glob(os.path.join(repo, MANIFEST_DIR, "[0-9][0-9]-*.txt")))
    if cover["maintainers"]:
        paths.append(os.path.join(repo, cover["maintainers"]))
    for e in patches:
        paths += [os.path.join(repo, f) for f in e["files"] + e["diffs"]]
    if any(e["options"] for e in patches):
        paths.append(os.path.join(repo, KCONFIG))
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        h.update(f"{os.path.relpath(path, repo)} {len(data)} "
                 f"{os.stat(path).st_mode & 0o111}\0".encode())
        h.update(data)
    return h.hexdigest()


def make_series(repo, gitdir):
    """Commit the manifest's patches on 'pristine': the last commit.  The
    same inputs (series_key()) give the same commits: they are made again
    only when one of them changed."""
    cover, patches = read_manifest(repo)
    resolve(repo, cover, patches)
    name, email, date = identity(repo)
    key = series_key(repo, gitdir, cover, patches, (name, email, date))
    key_file = os.path.join(gitdir, SERIES_KEY)
    last = git(gitdir, "rev-parse", "-q", "--verify", "series", check=False).stdout.strip()
    if last and os.path.exists(key_file) and open(key_file).read() == f"{key} {last}\n":
        return last
    index = os.path.join(gitdir, SERIES_INDEX)
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
        pristine_files = git(gitdir, "ls-tree", "-r", "--name-only", "pristine").stdout.split("\n")
        pristine_hits = {m.group(1): matches(m.group(1), pristine_files)
                         for m in map(MAINT_F.match, maint_text.split("\n")) if m}
    added, options = [], []

    parent = git(gitdir, "rev-parse", "pristine").stdout.strip()
    tree = git(gitdir, "rev-parse", "pristine^{tree}").stdout.strip()
    for e in patches:
        # The patch's files, then MAINTAINERS as in 6.12, in one index
        # update; then its diffs and the MAINTAINERS entry so far.
        srcs = [os.path.join(repo, f) for f in e["files"]]
        shas = git(gitdir, "hash-object", "-w", "--stdin-paths",
                   input="".join(p + "\n" for p in srcs)).stdout.split()
        info = [f"{'100755' if os.stat(src).st_mode & 0o111 else '100644'} {sha}\t{f}\n"
                for src, sha, f in zip(srcs, shas, e["files"])]
        if e["options"]:
            options += e["options"]
            sha = git(gitdir, "hash-object", "-w", "--stdin",
                      input=kconfig_text(repo, options)).stdout.strip()
            info.append(f"100644 {sha}\t{KCONFIG_TREE}\n")
            added.append(KCONFIG_TREE)
        if maint_text:
            info.append(f"100644 {pristine_maint}\tMAINTAINERS\n")
        if info:
            git(gitdir, "update-index", "--add", "--index-info", env=env,
                input="".join(info))
        added += e["files"]
        for d in e["diffs"]:
            r = git(gitdir, "apply", "--cached", "-p1", os.path.join(repo, d),
                    env=env, check=False)
            if r.returncode:
                die(f"{d} (in {e['file']}) does not apply: {r.stderr.strip()}")
            added += new_files(os.path.join(repo, d))
        if maint_text:
            diff = maintainers_diff(maint_text, lambda pat: pristine_hits[pat] or
                                    matches(pat, added))
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
    os.unlink(index)
    if maint_text:
        # By the last patch, the whole entry must be in.
        final = git(gitdir, "show", f"{parent}:MAINTAINERS").stdout.split("\n")
        missing = [line[1:] for line in maint_text.split("\n")
                   if MAINT_F.match(line) and line[1:] not in final]
        if missing:
            die(f"{cover['maintainers']}: no patch adds a file for "
                f"{', '.join(missing)}")
    with open(key_file, "w") as f:
        f.write(f"{key} {parent}\n")
    return parent


def checkout(gitdir, tree):
    """Check 'series' out in @tree, rewriting only what differs from it."""
    git(gitdir, "symbolic-ref", "HEAD", "refs/heads/series")
    if not os.path.exists(os.path.join(gitdir, "index")):
        git(gitdir, "read-tree", "series")
    # Files rewritten with the same content (scripts/mutants.py puts
    # mm/ashmem.c back) are compared by content, not rewritten.
    git(gitdir, "update-index", "-q", "--refresh", work=tree, check=False)
    changed = git(gitdir, "diff", "-R", "--name-status", "series", work=tree).stdout
    git(gitdir, "reset", "-q", "--hard", "series", work=tree)
    removed = git(gitdir, "clean", "-fdx", work=tree).stdout
    return (changed.split("\n")[:-1],
            [line.replace("Removing ", "", 1) for line in removed.split("\n")[:-1]])


def prepare(repo, tree):
    repo, tree = os.path.abspath(repo), os.path.abspath(tree)
    read_manifest(repo)		# a broken manifest fails before any work
    gitdir = pristine(tree)
    old = git(gitdir, "rev-parse", "-q", "--verify", "series", check=False).stdout.strip()
    series = make_series(repo, gitdir)
    git(gitdir, "update-ref", "refs/heads/series", series)
    changed, removed = checkout(gitdir, tree)
    for line in changed:
        status, _, path = line.partition("\t")
        print(f"  {'REMOVE' if status == 'D' else 'UPDATE'}  {path}")
    for path in removed:
        print(f"  CLEAN   {path}")
    n = git(gitdir, "rev-list", "--count", "pristine..series").stdout.strip()
    files = git(gitdir, "diff", "--name-only", "pristine", "series").stdout.count("\n")
    print(f"series: {tree} is 'series', {n} commits on 'pristine'"
          f"{' (unchanged)' if series == old else ''}: {files} files differ "
          f"from {BASE}, {len(changed)} rewritten, {len(removed)} removed")


def patches_out(repo, tree, outdir):
    repo, tree = os.path.abspath(repo), os.path.abspath(tree)
    gitdir = os.path.join(tree, ".git")
    cover, _ = read_manifest(repo)
    if make_series(repo, gitdir) != git(gitdir, "rev-parse", "series").stdout.strip():
        die(f"{tree}: 'series' is not what the manifest makes: run make prepare")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    git(gitdir, "format-patch", "-q", "--cover-letter", "-o", os.path.abspath(outdir),
        "pristine..series")
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


def verify(tree, outdir, workdir):
    tree, workdir = os.path.abspath(tree), os.path.abspath(workdir)
    gitdir = os.path.join(tree, ".git")
    tap = Tap()
    series = sorted(glob.glob(os.path.join(outdir, "*.patch")))[1:]
    am = os.path.join(workdir, "linux")
    shutil.rmtree(am, ignore_errors=True)
    os.makedirs(workdir, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--shared", "--branch", "pristine",
                    gitdir, am], check=True)
    r = subprocess.run(["git", "-C", am, "-c", "user.name=series check",
                        "-c", "user.email=series@check", "am", "-q",
                        *map(os.path.abspath, series)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if tap.result(r.returncode == 0 and series,
                  f"git am: {len(series)} patches apply to a fresh checkout of "
                  f"pristine {BASE}", r.stdout):
        am_tree = git(os.path.join(am, ".git"), "rev-parse", "HEAD^{tree}").stdout.strip()
        built = git(gitdir, "rev-parse", "series^{tree}").stdout.strip()
        tap.result(am_tree == built, "the applied series is the tree of 'series'",
                   git(gitdir, "diff-tree", "-r", "--name-status", built,
                       am_tree).stdout)
    shutil.rmtree(am, ignore_errors=True)

    head = git(gitdir, "symbolic-ref", "-q", "HEAD", check=False).stdout.strip()
    tap.result(head == "refs/heads/series",
               f"{os.path.relpath(tree)} is checked out at 'series' (HEAD: {head or 'detached'})")
    status = git(gitdir, "status", "--porcelain", "--ignored", "--untracked-files=all",
                 work=tree).stdout
    lines = status.split("\n")[:-1]
    tap.result(not lines, f"{os.path.relpath(tree)}, the tree every lane builds, "
               f"is clean: {len(lines)} files differ from 'series'",
               "\n".join(lines[:30]))
    tap.done()
    return 1 if tap.failed else 0


def main():
    global BASE, TARBALL
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if args and args[-1] in BASES:
        BASE = args.pop()
        TARBALL = BASES[BASE]
    if cmd == "prepare" and len(args) == 2:
        prepare(*args)
    elif cmd == "patches" and len(args) == 3:
        patches_out(*args)
    elif cmd == "verify" and len(args) == 3:
        sys.exit(verify(*args))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
