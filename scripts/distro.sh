#!/bin/bash
# The distro lanes: ashmem from its DKMS package on one of Debian's own
# kernels.  Installs that kernel's image and headers packages and the
# package (DKMS builds the module against the headers), then boots Debian's
# vmlinuz in the test VM with 2 NUMA nodes, loads the module as Debian's
# systemd-modules-load does at boot and runs the programs.  The package is
# installed where its release's users have it: for Debian 12's x86_64
# kernels on the host; for Debian 13's (KVER ending in +deb13-FLAVOUR) in a
# Debian 13 root, chroot-trixie-amd64 (one root for all of them); on arm64
# in a root of that architecture under qemu-user, chroot-bookworm-arm64 or
# chroot-trixie-arm64 (scripts/chroot.sh; in ASHMEM_ROOTS, below), as the
# headers' build programs are programs of their release and architecture.
# The arm64 kernel is Debian's generic one (arm64 servers and boards),
# booted on qemu's virt machine.
#
# usage: distro.sh kver SERIES
#          print the newest kernel release of SERIES that apt knows of:
#          6.12 or 6.1 (Debian 12), trixie-6.12, trixie-7.2 or trixie-7.3
#          (Debian 13); e.g. 6.12.118+deb12-cloud-amd64 (the cloud kernel
#          on x86_64, the generic one on arm64)
#        distro.sh check KVER DEBDIR NAME
#          the module loaded as the package's modules-load.d file asks at
#          boot, the unload checks, the selftest programs that use the
#          kernel's interfaces (all of them, the fuzzer and the stress
#          program with DISTRO_FULL=1) and the demo, in one boot;
#          build/results/NAME.json
#        distro.sh run KVER DEBDIR
#          the demo only (make run-distro); build/results/run-distro.json
#        distro.sh skip SUITE DEBDIR
#          in a root of SUITE (bookworm or trixie, of the host's
#          architecture), with the package installed: the install of the
#          headers of a kernel the module does not support (Debian 11's
#          5.10) succeeds, DKMS saying why it builds nothing
#   DEBDIR  where dkms-deb.sh wrote the package
# Env: KARCH (x86_64 or arm64, default x86_64), KERNEL (the lane whose
# selftests, demo and guest helpers run, default x86_64), DISTRO_FULL,
# FUZZ_ARGS, STRESS_ARGS, DEMO, RUN_KERNEL_ARGS, SKIP_SUITES (an extended
# regular expression: selftest suites by name not to run), VM_* (see
# vm-run.sh).
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
x86_64)	flavour=cloud-amd64 debarch=amd64 ;;
arm64)	flavour=arm64 debarch=arm64 ;;
*)	echo "distro: KARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
# The root of a Debian release (SUITE), of the lane's architecture; none
# (the host) for Debian 12 on x86_64.  Roots are made once and kept
# outside the clone (ASHMEM_ROOTS, by default /var/cache/ashmem), as
# ccache's objects are: a fresh clone finds them made, and each lane
# installs the package it built into them again.
roots=${ASHMEM_ROOTS:-/var/cache/ashmem}
use_root() {	# SUITE
	suite=$1 root= rsudo=$sudo
	case $suite/$debarch in
	bookworm/amd64)	;;
	*)		root=$roots/chroot-$suite-$debarch rsudo= ;;
	esac
}
inroot() {
	if [ -n "$root" ]; then bash "$here/chroot.sh" "$suite" "$debarch" "$root" "$@"
	else "$@"
	fi
}
# The release of a kernel: Debian 13's have +deb13 in their name.
suite_of() {	# KVER
	case $1 in
	*+deb13*)	echo trixie ;;
	*)		echo bookworm ;;
	esac
}

kver() {	# SERIES
	local pattern
	case $1 in
	6.12)	pattern="6\\.12\\.[0-9]+\\+deb12-$flavour" ;;
	6.1)	pattern="6\\.1\\.0-[0-9]+-$flavour" ;;
	trixie-[0-9]*.[0-9]*)
		pattern="${1#trixie-}" pattern="${pattern//./\\.}\\.[0-9]+\\+deb13(\\.[0-9]+)?-$flavour" ;;
	*)	echo "distro: unknown kernel series $1 (6.12, 6.1, trixie-X.Y)" >&2; return 1 ;;
	esac
	if [ "$suite" = bookworm ]; then apt-cache pkgnames linux-headers-
	else inroot apt-cache pkgnames linux-headers-
	fi | sed -nE "s/^linux-headers-($pattern)$/\1/p" |
		sort -V | tail -1
}

# Debian's kernel and headers, the package installed, the module built for
# KVER: leaves the module in OUT/modules/ashmem.ko, and in OUT/root what
# loads it at boot (boot_root).  All of it where the package is installed
# (inroot): on the host, or in the arm64 root, as a user's apt-get would.
setup() {	# KVER DEBDIR OUT
	local kver=$1 out=$3 image ko generic
	if [ -n "$root" ]; then
		inroot true	# made once, then kept
		# The kernels of 6.12 are in bookworm-security, whose lists a
		# new root does not have yet.
		inroot apt-cache show "linux-headers-$kver" >/dev/null 2>&1 ||
			inroot apt-get update -q
	fi
	# The package first: installing a kernel's headers has DKMS build
	# every package it has for that kernel, and an older package that
	# excludes the kernel fails the headers' install on Debian 12.
	install_package "$2"

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
		# A kernel of trixie-backports (7.x) wants that suite's
		# linux-base too.
		local release=()
		if inroot apt-cache policy "linux-headers-$kver" | grep -q -- "$suite-backports"; then
			release=(-t "$suite-backports")
		fi
		[ ${#missing[@]} = 0 ] || inroot apt-get install -y -q "${release[@]}" "${missing[@]}"
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
	# On the host only: the Debian 13 root builds for several kernels
	# of its own.
	case ${root:+root}/$kver in
	/*-cloud-amd64)
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
	boot_root "$kver" "$pkg" "$out/root"
}

# The package installed (in the root), from DEBDIR; sets pkg and version.
install_package() {	# DEBDIR
	local debs deb
	debs=("$1"/ashmem-dkms_*_all.deb)
	[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || {
		echo "distro: not one ashmem-dkms package in $1: ${debs[*]}" >&2; return 1; }
	deb=$(realpath "${debs[0]}")
	if [ -n "$root" ]; then
		inroot true	# made once, then kept
		$sudo rm -f "$root"/var/tmp/ashmem-dkms_*.deb
		$sudo cp "$deb" "$root/var/tmp/"
		deb=/var/tmp/$(basename "$deb")
	fi
	pkg=$(dpkg-deb -f "$root$deb" Package) version=$(dpkg-deb -f "$root$deb" Version)
	# Installed already, its files as in the package: DKMS has built it
	# for the kernels it was asked to.
	if [ "$(inroot dpkg-query -W -f='${Version} ${Status}' "$pkg" 2>/dev/null)" = \
		"$version install ok installed" ] &&
		dpkg-deb --fsys-tarfile "$root$deb" | $sudo tar -d -C "$root/" >/dev/null 2>&1; then
		echo "distro: $pkg $version is installed${root:+ in $root}"
		return 0
	fi
	echo "distro: installing $pkg $version${root:+ in $root}"
	# The version is the date of the commit built: a checkout older than
	# the package installed before it is a downgrade.
	inroot $rsudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --reinstall --allow-downgrades "$deb"
}

# With the package installed and built for a kernel of the root's release
# (Debian 12's: 3.0.10 reads AUTOINSTALL with that kernel), the install of
# the headers of a kernel older than 6.1, Debian 11's 5.10, from the
# archive: it must succeed (Debian 12's DKMS fails it if the module's build
# is merely skipped), DKMS saying in one line that it builds nothing.  The
# headers' build programs (their linux-kbuild and gcc-10 dependencies)
# are left out: DKMS must not get as far as using them.  Then purged.
skip_check() {
	local apt k common log out rc
	inroot true	# made once, then kept
	k=$(suite=$suite kver "$([ "$suite" = bookworm ] && echo 6.1 || echo trixie-6.12)")
	[ -n "$k" ] && inroot apt-cache show "linux-headers-$k" >/dev/null 2>&1 ||
		inroot apt-get update -q
	inroot dpkg-query -W -f='${Status}\n' dkms 2>/dev/null | grep -q "ok installed" ||
		inroot apt-get install -y -q dkms
	install_package "$1"
	if [ -z "$(inroot sh -c 'ls -d /var/lib/dkms/ashmem/*/[0-9]*/*/module 2>/dev/null')" ]; then
		k=$(suite=$suite kver "$([ "$suite" = bookworm ] && echo 6.1 || echo trixie-6.12)")
		inroot apt-get install -y -q "linux-headers-$k"
		inroot dkms status -m ashmem -v "$version" -k "$k" | grep ': installed' || {
			echo "distro: the install of linux-headers-$k built no module" >&2; return 1; }
	fi
	apt="-o Dir::Etc::sourcelist=/var/tmp/bullseye/sources.list -o Dir::Etc::sourceparts=-"
	apt+=" -o Dir::State::Lists=/var/tmp/bullseye/lists -o Dir::Cache=/var/tmp/bullseye/cache"
	$sudo mkdir -p "$root/var/tmp/bullseye/lists/partial" "$root/var/tmp/bullseye/cache/archives/partial"
	echo "deb $(inroot sh -c "sed -n 's/^deb \([^ ]*\) $suite main\$/\1/p' /etc/apt/sources.list") bullseye main" |
		$sudo tee "$root/var/tmp/bullseye/sources.list"
	inroot apt-get $apt update -q
	k=$(inroot apt-cache $apt pkgnames linux-headers-5.10 |
		sed -nE "s/^linux-headers-(5\.10\.0-[0-9]+-$flavour)$/\1/p" | sort -V | tail -1)
	[ -n "$k" ] || { echo "distro: no Debian 11 5.10 headers for $flavour" >&2; return 1; }
	common=linux-headers-${k%-"$flavour"}-common
	inroot sh -c "cd /var/tmp/bullseye && rm -f ./*.deb && apt-get $apt download linux-headers-$k $common"
	log=$b/distro/skip-$suite.log
	mkdir -p "$b/distro"
	rc=0
	inroot sh -c "cd /var/tmp/bullseye && dpkg -i --ignore-depends=linux-kbuild-5.10,linux-compiler-gcc-10-x86,linux-compiler-gcc-10-arm ./*.deb" \
		>"$log" 2>&1 || rc=$?
	cat "$log"
	inroot dpkg --purge "linux-headers-$k" "$common" >/dev/null
	out=$(grep -c "^ashmem: not built for $k, older than Linux 6.1$" "$log" || true)
	if [ "$rc" != 0 ] || [ "$out" != 1 ] ||
		[ -n "$(inroot find /lib/modules/"$k" -name 'ashmem.ko*' 2>/dev/null)" ]; then
		echo "distro: linux-headers-$k with the package installed: dpkg exit $rc, $out lines saying that ashmem is not built" >&2
		return 1
	fi
	echo "distro: $(inroot dpkg-query -W -f='${Version}' dkms): DKMS skips $k, its headers install"
	lacks_check
}

# The same for a kernel from 6.1 on that lacks what ashmem cannot stand in
# for (dkms/probe.sh): a headers package made here, for a release no one
# ships, from those of the root's kernel (skip_check installed them), its
# Module.symvers without list_lru_walk_one and with their postinst (which
# runs DKMS's autoinstall).  Its install must succeed, DKMS saying in one
# line what the kernel lacks, and "dkms build" for it must exit 77 (a
# skip, to Debian's scripts).
lacks_check() {
	local k fk src pkg log blog out rc brc
	k=$(inroot sh -c 'ls -d /var/lib/dkms/ashmem/*/[0-9]*/*/module' | head -1 | cut -d/ -f7)
	fk=$k-nolru
	src=$root/usr/src/linux-headers-$k pkg=$b/distro/lacks/linux-headers-$fk
	rm -rf "$b/distro/lacks"
	mkdir -p "$pkg/DEBIAN" "$pkg/usr/src/linux-headers-$fk/include" "$pkg/lib/modules/$fk"
	cp "$src/.config" "$pkg/usr/src/linux-headers-$fk/"
	awk '$2 != "list_lru_walk_one"' "$src/Module.symvers" \
		>"$pkg/usr/src/linux-headers-$fk/Module.symvers"
	ln -s "/usr/src/linux-headers-$fk" "$pkg/lib/modules/$fk/build"
	printf '%s\n' "Package: linux-headers-$fk" "Version: 1" "Architecture: $debarch" \
		"Maintainer: ashmem <ashmem@localhost>" \
		"Description: the headers of $k, without list_lru_walk_one" >"$pkg/DEBIAN/control"
	sed "s/$k/$fk/g" "$root/var/lib/dpkg/info/linux-headers-$k.postinst" >"$pkg/DEBIAN/postinst"
	chmod 0755 "$pkg/DEBIAN/postinst"
	$sudo dpkg-deb --root-owner-group --build "$pkg" "$root/var/tmp/lacks.deb" >/dev/null
	log=$b/distro/lacks-$suite.log blog=$b/distro/lacks-build-$suite.log
	rc=0 brc=0
	inroot dpkg -i /var/tmp/lacks.deb >"$log" 2>&1 || rc=$?
	inroot dkms build -m ashmem -v "$version" -k "$fk" >"$blog" 2>&1 || brc=$?
	cat "$log" "$blog"
	inroot dpkg --purge "linux-headers-$fk" >/dev/null
	$sudo rm -f "$root/var/tmp/lacks.deb"
	out=$(grep -c "^ashmem: not built for $fk, which lacks list_lru_walk_one$" "$log" || true)
	if [ "$rc" != 0 ] || [ "$out" != 1 ] || [ "$brc" != 77 ] ||
		! grep -q "^ashmem: not built for $fk, which lacks list_lru_walk_one$" "$blog" ||
		[ -n "$(inroot find /lib/modules/"$fk" -name 'ashmem.ko*' 2>/dev/null)" ]; then
		echo "distro: linux-headers-$fk (no list_lru_walk_one) with the package installed: dpkg exit $rc, $out lines saying what it lacks; dkms build exit $brc (77 wanted)" >&2
		return 1
	fi
	echo "distro: DKMS skips $fk, which lacks list_lru_walk_one; its headers install"
}

# DKMS's module for KVER, built for it with the CRCs insmod checks: the
# package builds for the running kernel and the newest installed one, the
# headers' install for theirs, and this for any other.
dkms_built() {	# KVER VERSION
	local kver=$1 ko vermagic modversions
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
	# With the symbol versions (CRCs) of a kernel built with them: Debian
	# 13's 7.x kernels (trixie-backports) are not.
	modversions=" modversions "
	inroot grep -qx CONFIG_MODVERSIONS=y "/lib/modules/$kver/build/.config" || modversions=" "
	case "$vermagic " in
	"$kver "*"$modversions"*) ;;
	*)	echo "distro: $ko is not built for $kver${modversions/ modversions /, with modversions}" >&2
		return 1 ;;
	esac
}

# What loads the module when Debian boots KVER, at the guest's paths under
# TO: the package's modules-load.d file as dpkg installed it, KVER's module
# index (depmod's, which DKMS ran) with the module files it gives for the
# names in that file, and Debian's systemd-modules-load with its libraries,
# all from where the package is installed.
boot_root() {	# KVER PACKAGE TO
	local kver=$1 to=$3 conf=/usr/lib/modules-load.d/ashmem.conf
	local sml=/lib/systemd/systemd-modules-load names f dlopened

	[ "$(inroot dpkg-query -S "$conf" 2>/dev/null)" = "$2: $conf" ] || {
		echo "distro: $2 installed no $conf" >&2; return 1; }
	[ -x "$root$sml" ] || {
		echo "distro: no $root$sml (Debian's systemd)" >&2; return 1; }
	rm -rf "$to"
	mkdir -p "$to/usr/lib/modules-load.d" "$to/lib/modules/$kver"
	cp "$root$conf" "$to$conf"
	cp "$root/lib/modules/$kver"/modules.* "$to/lib/modules/$kver/"
	names=$(sed -e '/^[#;]/d' -e 's/[[:space:]]//g' -e '/^$/d' "$root$conf")
	# Debian 13's systemd (257) opens libkmod with dlopen(), and its
	# kmod (34) the decompressors of .ko.xz and .ko.zst files, which ldd
	# does not list.
	dlopened=$(inroot ldconfig -p |
		awk '$1 ~ /^lib(kmod\.so\.2|lzma\.so\.5|zstd\.so\.1)$/ && !seen[$1]++ { print $NF }')
	for f in "$sml" $(for l in "$sml" $dlopened; do inroot ldd "$l"; done | grep -o '/[^ ]*') \
		 $dlopened \
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
	case $2 in
	trixie-*)	use_root trixie ;;
	*)		use_root bookworm ;;
	esac
	[ "$suite" = bookworm ] || inroot true >&2	# made once, then kept
	k=$(kver "$2")
	if [ -z "$k" ] && [ "$suite" != bookworm ]; then
		inroot apt-get update -q >&2
		k=$(kver "$2")
	elif [ -z "$k" ]; then	# a fresh machine: no package lists yet
		if [ "$karch" = arm64 ] &&
			! dpkg --print-foreign-architectures | grep -qx arm64; then
			$sudo dpkg --add-architecture arm64
		fi
		$sudo apt-get update -q >&2
		k=$(kver "$2")
	fi
	[ -n "$k" ] || { echo "distro: apt knows no Debian $2 $flavour kernel" >&2; exit 1; }
	echo "$k"
	;;
check)
	[ $# = 4 ] || { echo "usage: $0 check KVER DEBDIR NAME" >&2; exit 2; }
	kver=$2 deb=$3 name=$4
	use_root "$(suite_of "$kver")"
	rm -f "$b/results/$name.json"
	setup "$kver" "$deb" "$b/distro/$kver"
	echo "distro: $kver set up in ${SECONDS}s"
	suites=$b/$name.suites
	fuzz=${FUZZ_ARGS:--t 30 -p 2}
	# The programs that use the kernel's interfaces, which a new kernel
	# can change under the module: the ioctls, mmap and map_files
	# (ashmem_test, and the compat ioctls in its 32-bit run), the purge
	# and reclaim paths (ashmem_reclaim, ashmem_memcg), the memfd
	# ioctls and the run-time controls (ashmem_controls); all of them, the fuzzer and the stress program with
	# DISTRO_FULL=1.
	only='kselftest-64/ashmem/ashmem_(test|reclaim|memcg|memfd|controls)|kselftest-32/ashmem/ashmem_(test|controls)'
	[ -z "${DISTRO_FULL:-}" ] || only='[^ ]+'
	{
		# Loaded as at boot: systemd-modules-load, the package's
		# modules-load.d file and depmod's index of DKMS's module.
		echo "tap ashmem-module-load / /bin/sh /guest/ashmem-module.sh boot"
		# Debian's kernel has no ashmem ioctls on memfds (they are
		# built into shmem, which no module can change): every one
		# must fail with ENOTTY there, which sends libcutils back to
		# /dev/ashmem.
		cat "$b/selftests/$lane-64/suites.txt" "$b/selftests/$lane-32/suites.txt" |
			grep -Ev "^tap (${SKIP_SUITES:-^$}) " | grep -E "^tap ($only) " |
			sed 's|\./ashmem_memfd$|env ASHMEM_MEMFD=off ./ashmem_memfd -f global|'
		echo "plain ${DEMO:-ashmem-demo} /samples ./${DEMO:-ashmem-demo}"
		if [ -n "${DISTRO_FULL:-}" ]; then
			echo "tap ashmem_fuzz-64 /selftests/64/ashmem ./ashmem_fuzz $fuzz"
			echo "tap ashmem_fuzz-32 /selftests/32/ashmem ./ashmem_fuzz $fuzz"
			echo "plain ashmem_stress-64 /selftests/64/ashmem ./ashmem_stress ${STRESS_ARGS:--t 60}"
			echo "plain ashmem_stress-32 /selftests/32/ashmem ./ashmem_stress -t 30"
		fi
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
	echo "distro: $kver set up and booted in ${SECONDS}s"
	;;
run)
	[ $# = 3 ] || { echo "usage: $0 run KVER DEBDIR" >&2; exit 2; }
	kver=$2 deb=$3
	use_root "$(suite_of "$kver")"
	setup "$kver" "$deb" "$b/distro/$kver"
	suites=$b/run-distro.suites
	{
		echo "plain insmod / /sbin/insmod /modules/ashmem.ko"
		echo "plain ${DEMO:-ashmem-demo} /samples ./${DEMO:-ashmem-demo}"
	} >"$suites"
	KERNEL_ARGS=${RUN_KERNEL_ARGS-quiet} boot "$kver" run-distro "$suites" \
		"$b/samples=/samples" "$b/distro/$kver/modules=/modules"
	;;
skip)
	[ $# = 3 ] || { echo "usage: $0 skip SUITE DEBDIR" >&2; exit 2; }
	use_root "$2"
	root=$roots/chroot-$suite-$debarch rsudo=
	skip_check "$3"
	;;
*)
	sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
