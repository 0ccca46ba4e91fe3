#!/bin/sh
# make test: lab 7's persistence check must be able to tell data that
# survived the power-off from data that could not have.  The same check,
# on the reference, with an NVDIMM whose file never sees the guest's
# stores (LABVM_NVDIMM_VOLATILE=1: QEMU's memory-backend-file with
# share=off), must fail each of its data checks and say that nothing
# survived.  (That it tells synced from unsynced data, the control file
# and the skeleton show in every run.)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=persistence-test
. "$ROOT/scripts/lib.sh"
log="$LOGS/persistence-volatile.log"
report="$LOGS/ref-lab7/report.txt"
LABVM_NVDIMM_VOLATILE=1 REF=1 SKEL= T=lab7_persistence \
	sh "$ROOT/scripts/vm.sh" check 7 >"$log" 2>&1
for c in data_written_and_fsynced_survives_power_off \
	stores_msynced_through_a_mapping_survive_power_off \
	map_sync_stores_survive_power_off_without_any_sync; do
	if grep -Eq "^FAIL +lab7_persistence\.nv\.$c " "$report" 2>/dev/null; then
		ok "with a volatile NVDIMM, $c fails"
	else
		not_ok "with a volatile NVDIMM, $c did not fail (log: ${log#$ROOT/})"
	fi
done
if grep -q "nothing survived the power-off" "$report" 2>/dev/null; then
	ok "and the failure says that nothing survived"
else
	not_ok "the failure does not say that nothing survived (log: ${log#$ROOT/})"
fi
summary "persistence check with a volatile NVDIMM"
