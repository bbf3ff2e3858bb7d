#!/bin/bash
# The distro lane: ashmem from its DKMS package on one of Debian's own
# kernels.  Installs that kernel's image and headers packages and the
# package (DKMS builds the module against the headers), then boots Debian's
# vmlinuz in the test VM with 2 NUMA nodes, loads the module with insmod (so
# the kernel checks its vermagic and symbol versions) and runs the programs.
# On x86_64 all of it is installed on the host; on arm64 in a Debian 12
# arm64 root under qemu-user (scripts/chroot.sh, kept in build/chroot-arm64),
# as the headers' build programs are arm64 programs: the arm64 kernel is
# Debian's generic one (arm64 servers and boards), booted on qemu's virt
# machine.
#
# usage: distro.sh kver SERIES
#          print the newest Debian 12 kernel release of SERIES (6.12 or
#          6.1) that apt knows of, e.g. 6.12.118+deb12-cloud-amd64 (the
#          cloud kernel on x86_64, the generic one on arm64)
#        distro.sh check KVER DEBDIR NAME
#          the module loaded as the package's modules-load.d file asks at
#          boot, the unload checks, every selftest program 64-bit
#          and 32-bit but those SKIP_SUITES names, the demo, the fuzzer
#          and the stress program, in one boot; build/results/NAME.json
#        distro.sh run KVER DEBDIR
#          the demo only (make run-distro); build/results/run-distro.json
#   DEBDIR  where dkms-deb.sh wrote the package
# Env: KARCH (x86_64 or arm64, default x86_64), KERNEL (the lane whose
# selftests, demo and guest helpers run, default x86_64), FUZZ_ARGS,
# STRESS_ARGS, DEMO, RUN_KERNEL_ARGS, SKIP_SUITES (an extended regular
# expression: selftest suites by name not to run), VM_* (see vm-run.sh).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
b=${BUILD_DIR:-build}
lane=${KERNEL:-x86_64}
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

# Where the package is installed: the host, or the root of the foreign
# architecture, whose files the host reads under $root.
karch=${KARCH:-x86_64}
case $karch in
x86_64)	flavour=cloud-amd64 root= rsudo=$sudo ;;
arm64)	flavour=arm64 root=$b/chroot-arm64 rsudo= ;;
*)	echo "distro: KARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
inroot() {
	if [ -n "$root" ]; then bash "$here/chroot.sh" "$karch" "$root" "$@"
	else "$@"
	fi
}

kver() {	# SERIES
	local pattern
	case $1 in
	6.12)	pattern="6\\.12\\.[0-9]+\\+deb12-$flavour" ;;
	6.1)	pattern="6\\.1\\.0-[0-9]+-$flavour" ;;
	*)	echo "distro: unknown kernel series $1 (6.12 or 6.1)" >&2; return 1 ;;
	esac
	apt-cache pkgnames linux-headers- | sed -nE "s/^linux-headers-($pattern)$/\1/p" |
		sort -V | tail -1
}

# Debian's kernel and headers, the package installed, the module built for
# KVER: leaves the module in OUT/modules/ashmem.ko, and in OUT/root what
# loads it at boot (boot_root).  All of it where the package is installed
# (inroot): on the host, or in the arm64 root, as a user's apt-get would.
setup() {	# KVER DEBDIR OUT
	local kver=$1 out=$3 debs deb name version image ko generic
	debs=("$2"/ashmem-dkms_*_all.deb)
	[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || {
		echo "distro: not one ashmem-dkms package in $2: ${debs[*]}" >&2; return 1; }
	deb=$(realpath "${debs[0]}")
	if [ -n "$root" ]; then
		inroot true	# made once, then kept
		# The kernels of 6.12 are in bookworm-security, whose lists a
		# new root does not have yet.
		inroot apt-cache show "linux-headers-$kver" >/dev/null 2>&1 ||
			inroot apt-get update -q
		$sudo rm -f "$root"/var/tmp/ashmem-dkms_*.deb
		$sudo cp "$deb" "$root/var/tmp/"
		deb=/var/tmp/$(basename "$deb")
	fi

	# The package first: installing a kernel's headers has DKMS build
	# every package it has for that kernel, and an older package that
	# excludes the kernel fails the headers' install on Debian 12.
	name=$(dpkg-deb -f "$root$deb" Package) version=$(dpkg-deb -f "$root$deb" Version)
	echo "distro: installing $name $version${root:+ in $root}"
	# The version is the date of the commit built: a checkout older than
	# the package installed before it is a downgrade.
	inroot $rsudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --reinstall --allow-downgrades "$deb"

	# The signed image, or the unsigned one while Debian has not signed
	# it yet (6.1.0-57); the headers do not pull either in.
	image=
	if [ ! -f "$root/boot/vmlinuz-$kver" ]; then
		image=linux-image-$kver
		inroot apt-cache show "$image" >/dev/null 2>&1 || image+=-unsigned
	fi
	if [ -n "$root" ]; then
		# With openssl DKMS signs the module with its key, as on the
		# host; systemd brings systemd-modules-load (boot_root).
		local p missing=()
		for p in openssl systemd kmod "linux-headers-$kver" $image; do
			inroot dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
				grep -q "ok installed" || missing+=("$p")
		done
		[ ${#missing[@]} = 0 ] || inroot apt-get install -y -q "${missing[@]}"
	else
		bash "$here/deps.sh" dkms "linux-headers-$kver" $image
	fi
	[ -f "$root/boot/vmlinuz-$kver" ] || {
		echo "distro: no $root/boot/vmlinuz-$kver after installing ${image:-linux-headers-$kver}" >&2
		return 1; }

	dkms_built "$kver" "$version"
	ko=$(inroot modinfo -k "$kver" -n ashmem)
	case $ko in
	/lib/modules/"$kver"/updates/dkms/*) ;;
	*)	echo "distro: modinfo -k $kver finds $ko, not DKMS's module" >&2; return 1 ;;
	esac
	# The generic flavour of the same release, Debian's kernel for
	# machines that are not cloud guests: apt-get install of the package
	# where DKMS is not installed yet brings its headers in (DKMS
	# recommends linux-headers-amd64), and their install has DKMS build
	# the module.  Built and checked here, not booted.
	case $kver in
	*-cloud-amd64)
		generic=${kver%-cloud-amd64}-amd64
		bash "$here/deps.sh" "linux-headers-$generic"
		dkms_built "$generic" "$version" ;;
	esac
	ko=$root$ko
	rm -rf "$out" && mkdir -p "$out/modules"
	case $ko in		# the kernel checks the module itself, not the file
	*.xz)	xz -dc "$ko" ;;
	*.zst)	zstd -dc "$ko" ;;
	*.gz)	gzip -dc "$ko" ;;
	*)	cat "$ko" ;;
	esac >"$out/modules/ashmem.ko"
	boot_root "$kver" "$name" "$out/root"
}

# DKMS's module for KVER, built for it with the CRCs insmod checks: the
# package builds for the running kernel and the newest installed one, the
# headers' install for theirs, and this for any other.
dkms_built() {	# KVER VERSION
	local kver=$1 ko vermagic
	if ! inroot dkms status -m ashmem -v "$2" -k "$kver" | grep -q ': installed'; then
		inroot $rsudo dkms install -m ashmem -v "$2" -k "$kver"
	fi
	inroot dkms status -m ashmem -v "$2" -k "$kver"
	ko=$(inroot find "/lib/modules/$kver/updates/dkms" -name 'ashmem.ko*')
	if [ -z "$ko" ] || [ "$(echo "$ko" | wc -l)" != 1 ]; then
		echo "distro: not one ashmem module in /lib/modules/$kver/updates/dkms: $ko" >&2
		return 1
	fi
	vermagic=$(inroot modinfo -F vermagic "$ko")
	echo "distro: $ko: vermagic $vermagic"
	case "$vermagic " in
	"$kver "*" modversions "*) ;;
	*)	echo "distro: $ko is not built for $kver with modversions" >&2; return 1 ;;
	esac
}

# What loads the module when Debian boots KVER, at the guest's paths under
# TO: the package's modules-load.d file as dpkg installed it, KVER's module
# index (depmod's, which DKMS ran) with the module files it gives for the
# names in that file, and Debian's systemd-modules-load with its libraries,
# all from where the package is installed.
boot_root() {	# KVER PACKAGE TO
	local kver=$1 to=$3 conf=/usr/lib/modules-load.d/ashmem.conf
	local sml=/lib/systemd/systemd-modules-load names f

	[ "$(inroot dpkg-query -S "$conf" 2>/dev/null)" = "$2: $conf" ] || {
		echo "distro: $2 installed no $conf" >&2; return 1; }
	[ -x "$root$sml" ] || {
		echo "distro: no $root$sml (Debian's systemd)" >&2; return 1; }
	rm -rf "$to"
	mkdir -p "$to/usr/lib/modules-load.d" "$to/lib/modules/$kver"
	cp "$root$conf" "$to$conf"
	cp "$root/lib/modules/$kver"/modules.* "$to/lib/modules/$kver/"
	names=$(sed -e '/^[#;]/d' -e 's/[[:space:]]//g' -e '/^$/d' "$root$conf")
	for f in "$sml" $(inroot ldd "$sml" | grep -o '/[^ ]*') \
		 $(inroot modprobe -S "$kver" --show-depends $names |
		   awk '$1 == "insmod" { print $2 }'); do
		mkdir -p "$to$(dirname "$f")"
		cp -L "$root$f" "$to$f"
	done
}

boot() {	# KVER NAME SUITES [VM.SH DIRS...]
	local kver=$1 name=$2 suites=$3 page=4096
	shift 3
	# The page size Debian built the kernel with, which ashmem_test checks
	# that its programs see.
	[ -f "$root/boot/config-$kver" ] || {
		echo "distro: no $root/boot/config-$kver" >&2; return 1; }
	case $(grep -E '^CONFIG_ARM64_(16|64)K_PAGES=y' "$root/boot/config-$kver" || true) in
	*16K*)	page=16384 ;;
	*64K*)	page=65536 ;;
	esac
	# Debian's arm64 kernel has virtio-pci built in, virtio-mmio as a
	# module: the results channel is a PCI device there.
	KERNEL_ARGS="${KERNEL_ARGS:-} ASHMEM_PAGE_SIZE=$page" \
		VM_VIRTIO=pci VM_SMP=2 VM_NUMA=2 bash "$here/vm.sh" "$root/boot/vmlinuz-$kver" \
		"$name" "$suites" "$@"
}

cmd=${1:-}
case $cmd in
kver)
	[ $# = 2 ] || { echo "usage: $0 kver SERIES" >&2; exit 2; }
	k=$(kver "$2")
	if [ -z "$k" ]; then	# a fresh machine: no package lists yet
		if [ "$karch" = arm64 ] &&
			! dpkg --print-foreign-architectures | grep -qx arm64; then
			$sudo dpkg --add-architecture arm64
		fi
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
			grep -Ev "^tap (${SKIP_SUITES:-^$}) " |
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
		$(for d in lib lib64 usr/lib; do
			[ ! -d "$b/distro/$kver/root/$d" ] || echo "$b/distro/$kver/root/$d=/$d"
		  done)
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
