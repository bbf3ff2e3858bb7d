#!/bin/sh
# Debug lane, last program of the VM: ask kmemleak for a scan and fail on any
# unreferenced object (the report goes to the console for the host too).
grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
leaks=/sys/kernel/debug/kmemleak
[ -w "$leaks" ] || { echo "kmemleak: $leaks missing"; exit 1; }

# Objects freed just before the scan may still look unreferenced once.
echo scan >"$leaks"
sleep 5
echo scan >"$leaks"
if grep -q "unreferenced object" "$leaks"; then
	cat "$leaks"
	echo "kmemleak: leaks found"
	exit 1
fi
echo "kmemleak: no leaks"
