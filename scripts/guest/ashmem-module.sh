#!/bin/sh
# Debug lane (ashmem built as a module): load it before the selftests, and
# after them check that it cannot be unloaded while an area is open or
# mapped, that it unloads once nothing holds it, and that it loads and works
# again.  Prints TAP.  With the module's KUnit tests built in
# (CONFIG_ASHMEM_KUNIT_TEST=m), insmod runs them; "kunit" reports each test
# case of that run.  Distro lane: "boot" runs Debian's systemd-modules-load,
# as systemd-modules-load.service does at boot, and checks that it loaded
# ashmem, which the DKMS package's modules-load.d file names.
#
# usage: ashmem-module.sh load|boot|unload|kunit
# Needs /modules/ashmem.ko and /guest-bin/ashmem-modhold (see the Makefile);
# boot needs what scripts/distro.sh puts in /lib, /lib64 and /usr/lib:
# /usr/lib/modules-load.d/ashmem.conf, /lib/modules/$(uname -r) and
# /lib/systemd/systemd-modules-load with its libraries.

KO=/modules/ashmem.ko
HOLD=/guest-bin/ashmem-modhold
. "$(dirname "$0")/tap.sh"

loaded() { grep -q '^ashmem ' /proc/modules; }
refs() { awk '$1 == "ashmem" { print $3 }' /proc/modules; }

# The device node shows up (devtmpfs) or goes away shortly after.
wait_dev() {	# present|absent
	i=0
	while [ $i -lt 50 ]; do
		if [ "$1" = present ]; then [ -c /dev/ashmem ] && return 0
		else [ ! -e /dev/ashmem ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

load() {
	insmod "$KO"
	rc=$?
	loaded && [ $rc = 0 ]
	result $? "insmod $KO (status $rc)"
	wait_dev present
	result $? "/dev/ashmem appears"
}

# modules-load.d(5): one module name a line; '#' and ';' start comments.
# systemd-modules-load finds each name in the kernel's module index.  What
# it needed is removed afterwards, to leave the programs after it the
# memory they had before.
boot() {
	conf=/usr/lib/modules-load.d/ashmem.conf
	sml=/lib/systemd/systemd-modules-load
	sed 's/^/# /' "$conf"
	names=$(sed -e '/^[#;]/d' -e 's/[[:space:]]//g' -e '/^$/d' "$conf")
	[ "$names" = ashmem ]
	result $? "$conf names the module ashmem, and nothing else (names: $(echo $names))"
	! loaded
	result $? "ashmem is not loaded before $sml runs"
	SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug $sml >/tmp/sml.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/sml.out
	[ $rc = 0 ]
	result $? "$sml succeeds (status $rc)"
	loaded
	result $? "ashmem is loaded as at boot"
	wait_dev present
	result $? "/dev/ashmem appears"
	rm -rf /lib /lib64 /usr/lib
}

# Start ashmem-modhold MODE, try rmmod while it holds the area, then let it
# check its area and exit.
refused_while() {	# MODE WHAT
	rm -f /tmp/ctl /tmp/hold.out
	mkfifo /tmp/ctl
	"$HOLD" "$1" </tmp/ctl >/tmp/hold.out 2>&1 &
	pid=$!
	exec 5>/tmp/ctl
	i=0
	while [ $i -lt 100 ] && ! grep -q '^ready$' /tmp/hold.out; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^ready$' /tmp/hold.out
	result $? "ashmem-modhold $1: $2"
	echo "# module reference count: $(refs)"
	out=$(rmmod ashmem 2>&1)
	rc=$?
	echo "# rmmod ashmem: status $rc: $out"
	[ $rc != 0 ] && loaded && [ -c /dev/ashmem ]
	result $? "rmmod is refused while $2"
	echo >&5
	exec 5>&-
	wait $pid
	rc=$?
	sed 's/^/# /' /tmp/hold.out
	[ $rc = 0 ]
	result $? "ashmem-modhold $1: the area is intact afterwards (status $rc)"
}

unload() {
	loaded
	result $? "ashmem is loaded as a module"
	refused_while fd "an area is open"
	refused_while map "an area is only mapped (its fd closed)"

	# Nothing holds the module any more: the reference count drops to 0
	# once the last backing file is released.
	i=0
	while [ $i -lt 50 ] && [ "$(refs)" != 0 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "# module reference count: $(refs)"
	out=$(rmmod ashmem 2>&1)
	rc=$?
	echo "# rmmod ashmem: status $rc${out:+: $out}"
	[ $rc = 0 ] && ! loaded
	result $? "rmmod succeeds once every area is closed and unmapped"
	wait_dev absent
	result $? "/dev/ashmem is gone"

	load
	"$HOLD" once >/tmp/hold.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/hold.out
	[ $rc = 0 ]
	result $? "after the reload an area works (status $rc)"
}

# The KTAP that debugfs keeps of the last run of the "ashmem" suite, whole
# as comments, then its test cases (one level below the suite, their
# parameters one further) as this program's results.
kunit() {
	ktap=/sys/kernel/debug/kunit/ashmem/results
	if [ ! -r "$ktap" ]; then
		result 1 "$ktap can be read"
		done_tap
	fi
	sed 's/^/# /' "$ktap"
	sed -n 's/^    \(\(not \)\{0,1\}ok [0-9][0-9]* \)/\1/p' "$ktap" >/tmp/kunit.tap
	n=$(wc -l </tmp/kunit.tap)
	failed=$(grep -c '^not ok' /tmp/kunit.tap)
	cat /tmp/kunit.tap
	[ "$n" -gt 0 ] || result 1 "the suite reports its test cases"
}

case "${1:-}" in
load) load ;;
boot) boot ;;
unload) unload ;;
kunit) kunit ;;
*) echo "usage: $0 load|boot|unload|kunit" >&2; exit 2 ;;
esac
done_tap
