#!/bin/bash
# Run KUnit under UML with the kernel's tools/testing/kunit/kunit.py.
#
# usage: kunit.sh KSRC KUNITCONFIG BUILD_DIR LOG
#   KUNITCONFIG  path inside KSRC, e.g. mm/ashmem.kunitconfig
#   LOG          kunit.py's output; its exit status goes to LOG.rc
# Exits 0 when kunit.py ran (its result is parsed by results.py), non-zero
# only when it could not be started.  Env: JOBS (default nproc),
# KUNIT_TIMEOUT (seconds, default 900).
set -euo pipefail

ksrc=$(realpath "$1") kunitconfig=$2 builddir=$(realpath -m "$3") log=$(realpath -m "$4")
[ -e "$ksrc/$kunitconfig" ] || { echo "kunit: $kunitconfig missing in $ksrc" >&2; exit 1; }
mkdir -p "$builddir" "$(dirname "$log")"

args=(run --kunitconfig="$kunitconfig" --build_dir="$builddir"
      --jobs="${JOBS:-$(nproc)}" --timeout="${KUNIT_TIMEOUT:-900}")
command -v ccache >/dev/null && args+=(--make_options "CC=ccache gcc")

cd "$ksrc"
set +e
python3 tools/testing/kunit/kunit.py "${args[@]}" 2>&1 | tee "$log"
echo "${PIPESTATUS[0]}" >"$log.rc"
exit 0
