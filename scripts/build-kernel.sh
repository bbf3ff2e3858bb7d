#!/bin/bash
# Configure (tinyconfig + fragments) and build a kernel out of tree: x86_64
# with gcc, or arm64 with clang and lld (LLVM=1; Debian's gcc cross compiler
# cannot be installed next to gcc-multilib).
#
# usage: build-kernel.sh SRC OUT FRAGMENT...
#   SRC       prepared kernel tree (build/linux)
#   OUT       object directory (O=), e.g. build/x86_64
#   FRAGMENT  config fragments merged in order on top of `make tinyconfig`
#             (a later one overrides an earlier one); missing fragment files
#             are an error.
# Every option the fragments ask for is checked in the final .config.  The
# configuration is only regenerated when its inputs changed, and keeps its old
# mtime when its content did not, so nothing is rebuilt needlessly.
# Env: JOBS (default nproc), KARCH (x86_64 or arm64, default x86_64).
set -euo pipefail

src=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
jobs=${JOBS:-$(nproc)}
karch=${KARCH:-x86_64}
case $karch in
x86_64)	compiler=gcc llvm= image=arch/x86/boot/bzImage ;;
arm64)	compiler=clang llvm=1 image=arch/arm64/boot/Image ;;
*)	echo "build-kernel: KARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
cc=$compiler
command -v ccache >/dev/null && cc="ccache $compiler"
kmake() {
	make -C "$src" O="$out" ARCH="$karch" ${llvm:+LLVM=1} CC="$cc" -j"$jobs" "$@"
}

mkdir -p "$out"
frags=()
for f in "$@"; do
	[ -f "$f" ] || { echo "build-kernel: missing config fragment $f" >&2; exit 1; }
	frags+=("$(realpath "$f")")
done
set -- "${frags[@]}"

# 1. Configure from scratch, unless nothing that decides the configuration
#    changed since the last time: the fragments, the compiler, the Kconfig
#    files.  A regenerated .config that is identical keeps its old mtime.
stamp=$out/.config-inputs
inputs=$( { cat "$@"; echo "$cc"; $compiler --version | head -1; } | sha256sum)
if [ -f "$out/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$inputs" ] &&
   [ -z "$(find "$src" -name 'Kconfig*' -newer "$stamp" -print -quit)" ]; then
	echo "build-kernel: configuration inputs unchanged, keeping $out/.config"
else
	rm -f "$stamp"
	[ -f "$out/.config" ] && cp -p "$out/.config" "$out/.config.prev"
	kmake -s tinyconfig >/dev/null
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m .config "$@" >/dev/null)
	kmake -s olddefconfig
	if [ -f "$out/.config.prev" ]; then
		if cmp -s "$out/.config" "$out/.config.prev"; then
			mv "$out/.config.prev" "$out/.config"
		else
			echo "build-kernel: configuration changed"
			rm -f "$out/.config.prev"
		fi
	fi
fi

# 2. Every option a fragment asks for must be in .config (the last fragment
#    that mentions an option wins, as in merge_config.sh).
missing=$(awk '
	FNR == NR {			# the fragments, concatenated
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
			want[substr($0, 1, RLENGTH - 1)] = $0
		else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/)
			want[$2] = ""
		next
	}
	{				# the resulting .config
		have[$0] = 1
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
			set[substr($0, 1, RLENGTH - 1)] = 1
	}
	END {
		for (opt in want)
			if (want[opt] == "" ? (opt in set) : !(want[opt] in have))
				print "  " (want[opt] == "" ? "# " opt " is not set" : want[opt])
	}' <(cat "$@") "$out/.config" | sort)
if [ -n "$missing" ]; then
	echo "build-kernel: error: options missing from $out/.config (unknown," >&2
	echo "or their dependencies are not met); fragments: $*" >&2
	echo "$missing" >&2
	exit 1
fi
echo "$inputs" >"$stamp"

# 3. Build the kernel (and its modules, if it has any) and install the uapi
#    headers for userspace builds.
kmake "$(basename "$image")"
if grep -qx CONFIG_MODULES=y "$out/.config"; then
	kmake modules
fi
kmake -s headers_install >/dev/null
echo "build-kernel: $out/$image"
