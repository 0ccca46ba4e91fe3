#!/bin/sh
# make kvm-probe: boot the lab kernel once under KVM with a short time
# limit, and record whether it works.  Later runs use KVM only after a
# probe showed it works (ACCEL=auto, the default); on some machines
# /dev/kvm exists but the guest hangs at boot.
set -eu
STEP=kvm-probe
. "$(dirname "$0")/lib.sh"
probe="$BUILD/kvm-probe"
rm -f "$probe"
if [ ! -w /dev/kvm ]; then
	echo "broken: /dev/kvm is missing or not writable" >"$probe"
	info "no usable /dev/kvm: the lab VM runs under TCG."
	exit 0
fi
base=$(base_initramfs)
info "booting once under KVM (at most 30 s) ..."
if python3 "$ROOT/vm/labvm" run --build "$BUILD" --accel kvm \
	--boot-timeout 30 --check-timeout 30 --initrd "$base" \
	--logdir "$LOGS/kvm-probe" --cmd 'echo kvm-probe-ok' 2>&1 |
	grep -q '^kvm-probe-ok$'; then
	echo "works: $(date -u +%F)" >"$probe"
	info "KVM works here; the lab VM will use it (ACCEL=tcg to opt out)."
else
	echo "broken: $(date -u +%F)" >"$probe"
	info "KVM did not boot the lab kernel (log: ${LOGS#$ROOT/}/kvm-probe);" \
		"the lab VM stays on TCG."
fi
