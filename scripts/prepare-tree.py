#!/usr/bin/env python3
# Prepare build/linux: Debian's 6.12 source + this repo's files + its patches,
# touching only files whose content changed (keeps incremental builds fast).
"""
Usage: prepare-tree.py REPO_DIR BUILD_DIR

1. Extract /usr/src/linux-source-6.12.tar.xz into BUILD_DIR/linux (once).
2. Work out the set of files this build controls: every repo file under
   OVERLAY_DIRS (except *.patch), every file the patches touch, and every file
   a previous run changed (so that one removed from the repo reverts).
3. Before a tree file is first changed, save its pristine copy in
   BUILD_DIR/pristine (or note that it did not exist).
4. In a fresh staging dir: pristine copies, then the repo overlay, then the
   repo's patches (patch -p1) in the order of the series' manifest,
   patches/*.txt (scripts/series.py).
5. Copy into the tree only the files whose content or mode differs, delete
   files that should not exist, and record what now differs from pristine.
"""

import filecmp
import os
import shutil
import subprocess
import sys

TARBALL = "/usr/src/linux-source-6.12.tar.xz"
OVERLAY_DIRS = ["mm", "include", "tools", "samples", "Documentation"]
SKIP_SUFFIXES = (".patch", ".orig", ".rej", "~", ".swp")


def die(msg):
    sys.exit(f"prepare-tree: error: {msg}")


def extract(tree):
    if os.path.isdir(tree):
        return
    if not os.path.exists(TARBALL):
        die(f"{TARBALL} missing: run 'make deps' (apt-get install linux-source-6.12)")
    tmp = tree + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    print(f"prepare-tree: extracting {TARBALL} into {tree} (once)", flush=True)
    subprocess.run(["tar", "-xf", TARBALL, "-C", tmp, "--strip-components=1"],
                   check=True)
    os.rename(tmp, tree)


def git_ignored(repo):
    """Repo files git ignores (build leftovers), if this is a git checkout."""
    if not os.path.exists(os.path.join(repo, ".git")):
        return set()
    r = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--others",
                        "--ignored", "--exclude-standard", "--"] + OVERLAY_DIRS,
                       stdout=subprocess.PIPE, check=True)
    return set(filter(None, r.stdout.decode().split("\0")))


def overlay_files(repo):
    files = set()
    for top in OVERLAY_DIRS:
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".git")]
            for name in names:
                if name.endswith(SKIP_SUFFIXES):
                    continue
                files.add(os.path.relpath(os.path.join(root, name), repo))
    return files - git_ignored(repo)


def patch_files(path):
    """Paths a unified diff touches (old and new names, a/ b/ stripped)."""
    files = set()
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("--- ", "+++ ")):
                name = line[4:].split("\t")[0].strip()
                if name == "/dev/null":
                    continue
                files.add(name.split("/", 1)[1] if "/" in name else name)
    return files


def read_list(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.rstrip("\n") for line in f if line.strip()}


def write_list(path, items):
    with open(path + ".tmp", "w") as f:
        f.writelines(i + "\n" for i in sorted(items))
    os.replace(path + ".tmp", path)


def same(a, b):
    return (os.path.isfile(a) and os.path.isfile(b)
            and filecmp.cmp(a, b, shallow=False)
            and (os.stat(a).st_mode & 0o111) == (os.stat(b).st_mode & 0o111))


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        os.unlink(dst)
    shutil.copy2(src, dst)
    os.utime(dst)  # new content gets a new mtime so make rebuilds it


def patch_order(repo):
    """The repo's patches, in the order of the series (scripts/series.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, os.path.join(here, "series.py"), "order", repo],
                       stdout=subprocess.PIPE, text=True)
    if r.returncode:
        die("cannot read the series' manifest (patches/*.txt)")
    return r.stdout.split()


def main():
    if len(sys.argv) != 3:
        die(__doc__)
    repo, build = (os.path.abspath(a) for a in sys.argv[1:])
    tree = os.path.join(build, "linux")
    pristine = os.path.join(build, "pristine")
    stage = os.path.join(build, "stage")
    absent_list = os.path.join(build, "pristine-absent.txt")
    changed_list = os.path.join(build, "tree-changed.txt")

    extract(tree)
    os.makedirs(pristine, exist_ok=True)

    overlay = overlay_files(repo)
    patches = patch_order(repo)
    patched = set()
    for p in patches:
        patched |= patch_files(os.path.join(repo, p))
    previous = read_list(changed_list)
    controlled = overlay | patched | previous

    # Save pristine copies.  A file not in 'previous' was never changed by us,
    # so what the tree holds now is the pristine version.
    absent = read_list(absent_list)
    for rel in sorted(controlled):
        if rel in absent or os.path.exists(os.path.join(pristine, rel)):
            continue
        if rel in previous:
            die(f"{rel}: changed earlier but no pristine copy; run 'make distclean'")
        src = os.path.join(tree, rel)
        if os.path.isfile(src):
            dst = os.path.join(pristine, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        else:
            absent.add(rel)
    write_list(absent_list, absent)

    # Stage: pristine, then overlay, then patches.
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    for rel in controlled:
        if rel not in absent:
            dst = os.path.join(stage, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(pristine, rel), dst)
    for rel in overlay:
        dst = os.path.join(stage, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(repo, rel), dst)
    for p in patches:
        print(f"prepare-tree: applying {p}", flush=True)
        r = subprocess.run(["patch", "-p1", "-d", stage, "--batch", "--forward",
                            "--fuzz=0", "--no-backup-if-mismatch", "-r", "-", "-i",
                            os.path.join(repo, p)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stdout)
            die(f"{p} does not apply to pristine 6.12 + the repo's files")

    # Sync into the tree.  Mark every controlled file as changed first, so an
    # interrupted sync can never make a later run take a changed file for
    # pristine; then record what really differs.
    write_list(changed_list, controlled)
    updated, removed, changed = [], [], set()
    for rel in sorted(controlled):
        src, dst = os.path.join(stage, rel), os.path.join(tree, rel)
        if os.path.isfile(src):
            if not same(src, dst):
                copy(src, dst)
                updated.append(rel)
            if rel in absent or not same(src, os.path.join(pristine, rel)):
                changed.add(rel)
        elif os.path.lexists(dst):
            os.unlink(dst)
            removed.append(rel)
    write_list(changed_list, changed)

    for rel in updated:
        print(f"  UPDATE  {rel}")
    for rel in removed:
        print(f"  REMOVE  {rel}")
    print(f"prepare-tree: {len(changed)} files differ from pristine, "
          f"{len(updated)} updated, {len(removed)} removed, "
          f"patches: {', '.join(patches) or 'none yet'}")


if __name__ == "__main__":
    main()
