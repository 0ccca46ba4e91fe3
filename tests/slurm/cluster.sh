#!/bin/sh
# A single-node Slurm cluster on this machine, for make test: a munge key,
# munged, slurmctld and slurmd, all configured, logging and keeping their
# state under build/slurm-cluster, on ports of their own, with the node
# sized from this machine.  It starts only what it records, and stops only
# the daemons it started, by the pids it recorded.
#   cluster.sh start    -> prints the SLURM_CONF to export
#   cluster.sh stop
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and
# munge (scripts/deps.sh slurm installs them).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=slurm-cluster
. "$ROOT/scripts/lib.sh"
c="$BUILD/slurm-cluster"
conf="$c/slurm.conf"

stop() {
	for d in slurmd slurmctld munged; do
		pid=$(cat "$c/$d.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do
			sleep 0.2
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$c/$d.pid"
	done
}

case "${1:-}" in
stop)
	stop
	exit 0
	;;
start) ;;
*) die "usage: cluster.sh start|stop" ;;
esac
[ "$(id -u)" = 0 ] || die "a test cluster needs root (slurmd runs jobs as their users)."
stop
rm -rf "$c"
mkdir -p "$c/state" "$c/spool" "$c/munge"
chmod 700 "$c/munge"

# munge: a key of our own, a socket of our own.
dd if=/dev/urandom of="$c/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$c/munge/key"
munged --force --key-file="$c/munge/key" --socket="$c/munge/socket" \
	--pid-file="$c/munged.pid" --log-file="$c/munged.log" \
	--seed-file="$c/munge/seed" ||
	die "munged did not start (see $c/munged.log)."

# Free ports: the first pair from 17817 that nothing listens on.
port=17817
while ss -ltn 2>/dev/null | grep -Eq ":($port|$((port + 1))) "; do
	port=$((port + 2))
done
mem=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 - 2048))
cat >"$conf" <<X
ClusterName=daxlab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$c/munge/socket
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/slurmctld.log
SlurmdLogFile=$c/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
MinJobAge=3600
NodeName=daxlab NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=grading Nodes=daxlab Default=YES MaxTime=INFINITE State=UP
X
export SLURM_CONF="$conf"
slurmctld -f "$conf" || die "slurmctld did not start (see $c/slurmctld.log)."
slurmd -f "$conf" -N daxlab || die "slurmd did not start (see $c/slurmd.log)."
# Ready when the node is.
n=0
until sinfo -h -n daxlab -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; do
	n=$((n + 1))
	[ $n -lt 60 ] || {
		tail -n 5 "$c/slurmctld.log" "$c/slurmd.log" >&2
		die "the node did not come up in 30 s (logs above)."
	}
	sleep 0.5
done
echo "$conf"
