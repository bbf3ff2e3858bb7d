#!/bin/bash
# Boot the test VM (qemu, TCG) once: console to stdout and LOG.console,
# the guest's results channel to LOG.results.  x86_64: a PC, console on
# ttyS0, results on ttyS1.  arm64: qemu's virt machine (device tree), console
# on its PL011 (ttyAMA0), results on a virtio console (hvc0), as the machine
# has a single UART for the guest.
#
# usage: vm-run.sh KERNEL INITRAMFS LOG [KERNEL-ARGS...]
# Env: KARCH (x86_64 or arm64, default x86_64), VM_VIRTIO (arm64: the bus
# of the results channel's virtio console, mmio or pci, default mmio),
# VM_MEM (512M), VM_SMP (2), VM_TIMEOUT (seconds, 1800), SUITE_TIMEOUT
# (seconds per guest program, the timeout= of the ashmem kselftests'
# settings file by default), VM_CLOCK (wall: the vCPUs run in parallel
# threads; insn: one thread, and the guest clock counts instructions, one per
# nanosecond: -icount shift=0), VM_NUMA (memory nodes, default 1; more
# split the memory and the vCPUs evenly, each node a socket of its own: a
# cache shared across nodes makes the kernel warn), VM_DISK (a size: the
# guest gets a blank virtio disk of that size, /dev/vda, for clean page
# cache).  Exit status: qemu's, 124 on timeout.
set -euo pipefail

kernel=$1 initrd=$2 log=$3; shift 3
mkdir -p "$(dirname "$log")"
rm -f "$log.console" "$log.results"

# An oops panics, a panic resets at once, and -no-reboot turns that into
# qemu exiting; programs may log to /dev/kmsg without rate limit.
case ${KARCH:-x86_64} in
x86_64)	qemu=(qemu-system-x86_64)
	console=ttyS0
	results=(-serial file:"$log.results") ;;
# pauth-impdef: pointer authentication with qemu's own cheap hash instead
# of QARMA, which is slow to emulate.
arm64)	qemu=(qemu-system-aarch64 -M virt)
	cpu=max,pauth-impdef=on
	console="ttyAMA0 results=/dev/hvc0"
	case ${VM_VIRTIO:-mmio} in
	mmio)	serial=virtio-serial-device ;;
	pci)	serial=virtio-serial-pci ;;
	*)	echo "vm-run: VM_VIRTIO must be mmio or pci" >&2; exit 2 ;;
	esac
	results=(-device "$serial"
		 -chardev file,id=results,path="$log.results"
		 -device virtconsole,chardev=results) ;;
*)	echo "vm-run: KARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
cmdline="console=$console panic=-1 oops=panic printk.devkmsg=on"
settings=$(dirname "$(realpath "$0")")/../tools/testing/selftests/ashmem/settings
cmdline+=" suite_timeout=${SUITE_TIMEOUT:-$(sed -n 's/^timeout=//p' "$settings")} $*"

case ${VM_CLOCK:-wall} in
wall)	accel=(-accel tcg,thread=multi) ;;
insn)	accel=(-accel tcg,thread=single -icount shift=0) ;;
*)	echo "vm-run: VM_CLOCK must be wall or insn" >&2; exit 2 ;;
esac

smp=(-smp "${VM_SMP:-2}")
nodes=${VM_NUMA:-1}
if [ "$nodes" -gt 1 ]; then
	per=$(( ${VM_SMP:-2} / nodes ))
	mb=$(( $(numfmt --from=iec "${VM_MEM:-512M}") / 1048576 / nodes ))
	[ "$per" -ge 1 ] && [ $(( per * nodes )) = "${VM_SMP:-2}" ] || {
		echo "vm-run: VM_SMP must be a multiple of VM_NUMA" >&2; exit 2; }
	smp=(-smp "${VM_SMP:-2},sockets=$nodes,cores=$per,threads=1")
	for ((n = 0; n < nodes; n++)); do
		smp+=(-object "memory-backend-ram,id=mem$n,size=${mb}M"
		      -numa "node,nodeid=$n,memdev=mem$n,cpus=$((n * per))-$((n * per + per - 1))")
	done
fi

disk=()
if [ -n "${VM_DISK:-}" ]; then
	rm -f "$log.disk"
	truncate -s "$VM_DISK" "$log.disk"
	disk=(-drive "file=$log.disk,if=virtio,format=raw")
fi

echo "vm-run: qemu ${VM_SMP:-2} vCPUs ${VM_MEM:-512M} in $nodes node(s) (TCG, ${VM_CLOCK:-wall} clock), timeout ${VM_TIMEOUT:-1800}s; log: $log.console"
set +e
timeout -k 10 "${VM_TIMEOUT:-1800}" \
	"${qemu[@]}" -nodefaults -display none -no-reboot \
		"${accel[@]}" -cpu "${cpu:-max}" "${smp[@]}" -m "${VM_MEM:-512M}" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-serial stdio "${results[@]}" "${disk[@]}" </dev/null |
	tee "$log.console"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 124 ] && echo "vm-run: TIMEOUT after ${VM_TIMEOUT:-1800}s"
exit "$rc"
