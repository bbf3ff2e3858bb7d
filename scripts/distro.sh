#!/bin/bash
# The distro lane: ashmem from its DKMS package on one of Debian's own
# kernels.  Installs that kernel's image and headers packages and the
# package (DKMS builds the module against the headers), then boots Debian's
# vmlinuz in the test VM with 2 NUMA nodes, loads the module with insmod (so
# the kernel checks its vermagic and symbol versions) and runs the programs.
#
# usage: distro.sh kver SERIES
#          print the newest Debian 12 cloud kernel release of SERIES (6.12
#          or 6.1) that apt knows of, e.g. 6.12.118+deb12-cloud-amd64
#        distro.sh check KVER DEBDIR NAME
#          the module loaded as the package's modules-load.d file asks at
#          boot, the unload checks, every selftest program 64-bit
#          and 32-bit, the demo, the fuzzer and the stress program, in one
#          boot; build/results/NAME.json
#        distro.sh run KVER DEBDIR
#          the demo only (make run-distro); build/results/run-distro.json
#   DEBDIR  where dkms-deb.sh wrote the package
# Env: KERNEL (the lane whose selftests, demo and guest helpers run, x86_64),
# FUZZ_ARGS, STRESS_ARGS, DEMO, RUN_KERNEL_ARGS, VM_* (see vm-run.sh).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
b=${BUILD_DIR:-build}
lane=${KERNEL:-x86_64}
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

kver() {	# SERIES
	local pattern
	case $1 in
	6.12)	pattern='6\.12\.[0-9]+\+deb12-cloud-amd64' ;;
	6.1)	pattern='6\.1\.0-[0-9]+-cloud-amd64' ;;
	*)	echo "distro: unknown kernel series $1 (6.12 or 6.1)" >&2; return 1 ;;
	esac
	apt-cache pkgnames linux-headers- | sed -nE "s/^linux-headers-($pattern)$/\1/p" |
		sort -V | tail -1
}

# Debian's kernel and headers, the package installed, the module built for
# KVER: leaves the module in OUT/modules/ashmem.ko, and in OUT/root what
# loads it at boot (boot_root).
setup() {	# KVER DEBDIR OUT
	local kver=$1 out=$3 debs deb name version image ko vermagic
	debs=("$2"/ashmem-dkms_*_all.deb)
	[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || {
		echo "distro: not one ashmem-dkms package in $2: ${debs[*]}" >&2; return 1; }
	deb=${debs[0]}

	# The package first: installing a kernel's headers has DKMS build
	# every package it has for that kernel, and an older package that
	# excludes the kernel fails the headers' install on Debian 12.
	name=$(dpkg-deb -f "$deb" Package) version=$(dpkg-deb -f "$deb" Version)
	echo "distro: installing $name $version"
	# The version is the date of the commit built: a checkout older than
	# the package installed before it is a downgrade.
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --reinstall --allow-downgrades "$(realpath "$deb")"

	# The signed image, or the unsigned one while Debian has not signed
	# it yet (6.1.0-57); the headers do not pull either in.
	image=
	if [ ! -f "/boot/vmlinuz-$kver" ]; then
		image=linux-image-$kver
		apt-cache show "$image" >/dev/null 2>&1 || image+=-unsigned
	fi
	bash "$here/deps.sh" dkms "linux-headers-$kver" $image
	[ -f "/boot/vmlinuz-$kver" ] || {
		echo "distro: no /boot/vmlinuz-$kver after installing ${image:-linux-headers-$kver}" >&2
		return 1; }

	# The package builds for the running kernel and the newest installed
	# one, the headers' install for theirs.
	if ! dkms status -m ashmem -v "$version" -k "$kver" | grep -q ': installed'; then
		$sudo dkms install -m ashmem -v "$version" -k "$kver"
	fi
	dkms status -m ashmem -v "$version" -k "$kver"

	ko=$(modinfo -k "$kver" -n ashmem)
	case $ko in
	/lib/modules/"$kver"/updates/dkms/*) ;;
	*)	echo "distro: modinfo -k $kver finds $ko, not DKMS's module" >&2; return 1 ;;
	esac
	vermagic=$(modinfo -F vermagic "$ko")
	echo "distro: $ko: vermagic $vermagic"
	case "$vermagic " in	# built for KVER, with the CRCs insmod checks
	"$kver "*" modversions "*) ;;
	*)	echo "distro: $ko is not built for $kver with modversions" >&2; return 1 ;;
	esac
	rm -rf "$out" && mkdir -p "$out/modules"
	case $ko in		# the kernel checks the module itself, not the file
	*.xz)	xz -dc "$ko" ;;
	*.zst)	zstd -dc "$ko" ;;
	*.gz)	gzip -dc "$ko" ;;
	*)	cat "$ko" ;;
	esac >"$out/modules/ashmem.ko"
	boot_root "$kver" "$name" "$out/root"
}

# What loads the module when Debian boots KVER, at the guest's paths under
# ROOT: the package's modules-load.d file as dpkg installed it, KVER's
# module index (depmod's, which DKMS ran) with the module files it gives
# for the names in that file, and Debian's systemd-modules-load with its
# libraries.
boot_root() {	# KVER PACKAGE ROOT
	local kver=$1 root=$3 conf=/usr/lib/modules-load.d/ashmem.conf
	local sml=/lib/systemd/systemd-modules-load names f

	[ "$(dpkg-query -S "$conf" 2>/dev/null)" = "$2: $conf" ] || {
		echo "distro: $2 installed no $conf" >&2; return 1; }
	[ -x "$sml" ] || {
		echo "distro: no $sml (Debian's systemd)" >&2; return 1; }
	mkdir -p "$root/usr/lib/modules-load.d" "$root/lib/modules/$kver"
	cp "$conf" "$root$conf"
	cp /lib/modules/"$kver"/modules.* "$root/lib/modules/$kver/"
	names=$(sed -e '/^[#;]/d' -e 's/[[:space:]]//g' -e '/^$/d' "$conf")
	for f in "$sml" $(ldd "$sml" | grep -o '/[^ ]*') \
		 $(modprobe -S "$kver" --show-depends $names | awk '$1 == "insmod" { print $2 }'); do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done
}

boot() {	# KVER NAME SUITES [VM.SH DIRS...]
	local kver=$1 name=$2 suites=$3
	shift 3
	VM_SMP=2 VM_NUMA=2 bash "$here/vm.sh" "/boot/vmlinuz-$kver" \
		"$name" "$suites" "$@"
}

cmd=${1:-}
case $cmd in
kver)
	[ $# = 2 ] || { echo "usage: $0 kver SERIES" >&2; exit 2; }
	k=$(kver "$2")
	if [ -z "$k" ]; then	# a fresh machine: no package lists yet
		$sudo apt-get update -q >&2
		k=$(kver "$2")
	fi
	[ -n "$k" ] || { echo "distro: apt knows no Debian $2 cloud kernel" >&2; exit 1; }
	echo "$k"
	;;
check)
	[ $# = 4 ] || { echo "usage: $0 check KVER DEBDIR NAME" >&2; exit 2; }
	kver=$2 deb=$3 name=$4
	rm -f "$b/results/$name.json"
	setup "$kver" "$deb" "$b/distro/$kver"
	suites=$b/$name.suites
	fuzz=${FUZZ_ARGS:--t 30 -p 2}
	{
		# Loaded as at boot: systemd-modules-load, the package's
		# modules-load.d file and depmod's index of DKMS's module.
		echo "tap ashmem-module-load / /bin/sh /guest/ashmem-module.sh boot"
		# Debian's kernel has no ashmem ioctls on memfds (they are
		# built into shmem, which no module can change): every one
		# must fail with ENOTTY there, which sends libcutils back to
		# /dev/ashmem.
		cat "$b/selftests/$lane-64/suites.txt" "$b/selftests/$lane-32/suites.txt" |
			sed 's|\./ashmem_memfd$|env ASHMEM_MEMFD=off ./ashmem_memfd -f global|'
		echo "plain ${DEMO:-ashmem-demo} /samples ./${DEMO:-ashmem-demo}"
		echo "tap ashmem_fuzz-64 /selftests/64/ashmem ./ashmem_fuzz $fuzz"
		echo "tap ashmem_fuzz-32 /selftests/32/ashmem ./ashmem_fuzz $fuzz"
		echo "plain ashmem_stress-64 /selftests/64/ashmem ./ashmem_stress ${STRESS_ARGS:--t 60}"
		echo "plain ashmem_stress-32 /selftests/32/ashmem ./ashmem_stress -t 30"
		echo "tap ashmem-module-unload / /bin/sh /guest/ashmem-module.sh unload"
		echo "tap ashmem_test-reloaded /selftests/64/ashmem ./ashmem_test"
	} >"$suites"
	boot "$kver" "$name" "$suites" \
		"$b/selftests/$lane-64/install=/selftests/64" \
		"$b/selftests/$lane-32/install=/selftests/32" \
		"$b/samples=/samples" "$here/guest=/guest" \
		"$b/guest-bin=/guest-bin" "$b/distro/$kver/modules=/modules" \
		"$b/distro/$kver/root/lib=/lib" "$b/distro/$kver/root/lib64=/lib64" \
		"$b/distro/$kver/root/usr/lib=/usr/lib"
	;;
run)
	[ $# = 3 ] || { echo "usage: $0 run KVER DEBDIR" >&2; exit 2; }
	kver=$2 deb=$3
	setup "$kver" "$deb" "$b/distro/$kver"
	suites=$b/run-distro.suites
	{
		echo "plain insmod / /sbin/insmod /modules/ashmem.ko"
		echo "plain ${DEMO:-ashmem-demo} /samples ./${DEMO:-ashmem-demo}"
	} >"$suites"
	KERNEL_ARGS=${RUN_KERNEL_ARGS-quiet} boot "$kver" run-distro "$suites" \
		"$b/samples=/samples" "$b/distro/$kver/modules=/modules"
	;;
*)
	sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
