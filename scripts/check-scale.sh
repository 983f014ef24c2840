#!/usr/bin/env bash
# make check-scale: the scale-out recipes of docs/scale-out.md, run for real
# on this host and compared with one pass (cmp):
#   1. GNU parallel over ssh: two sshd on loopback addresses (127.0.0.2 and
#      127.0.0.3), a throwaway user with a generated key; shards made by
#      tr-ingest --split, partials made on the "hosts", merged here;
#   2. a Slurm job array of mappers (tr-ingest --shard K/N | ... --partial)
#      and a reducer submitted --dependency=afterok, on a cluster of one
#      host: munged, slurmctld and two slurmd, from a generated slurm.conf;
#   3. a three-stage Slurm pipeline over exports cut by time: split each cut
#      by trace, regroup each shard's pieces, merge.
# Each runs tr-infer (model, links), tr-aggregate (exact percentiles; the
# sketch too over parallel), tr-cp --summary service and tr-cp --folded.
# Over parallel and the job array (1b, 2b), tr-cp --flame, --whatif,
# --flame --baseline, and in two phases --flame --percentile (alone and
# with --baseline) and --summary service --baseline.
# The first two also shard by time: tr-temporal (a halo, merged clock
# partials) and tr-pag --own | tr-cp (a halo, tr-pag --merge).
# Installs what is missing with apt-get (as root), starts every daemon
# itself and stops each by its pid on the way out, failure included; ends
# with a check that nothing it started is still running. Loopback only.
# usage: scripts/check-scale.sh BINDIR
set -euo pipefail
exec < /dev/null	# CI gives none; ssh and parallel must not wait on one
bin=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
export LC_ALL=C
SHARDS=8
CUTS=4
TW=200		# tr-temporal's window over time shards (a halo of TW/2)
PAGHALO=6000000	# tr-pag's time shards: a halo of --lateness + --max-gap (µs)
T0=$(date +%s)

say() { printf 'check-scale: %s\n' "$*"; }
die() { printf 'check-scale: %s\n' "$*" >&2; exit 1; }

# ---- packages ----
[ "$(id -u)" = 0 ] || die "must run as root (it adds a user, runs sshd and a Slurm cluster)"
missing=""
for c in slurmctld slurmd sbatch munged sshd ssh ssh-keygen parallel rsync ss pgrep; do
	command -v "$c" > /dev/null || PATH=$PATH:/usr/sbin command -v "$c" > /dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
	say "installing (missing:$missing)"
	export DEBIAN_FRONTEND=noninteractive
	# the packages' own services (munge, slurmd, ssh) must not start: only
	# the daemons this run starts, and stops, may run
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		policy=/usr/sbin/policy-rc.d
	fi
	timeout 300 apt-get update -qq > /dev/null || die "apt-get update failed"
	timeout 300 apt-get install -y -qq --no-install-recommends slurm-wlm munge \
		openssh-server openssh-client parallel rsync iproute2 procps > /dev/null < /dev/null ||
		{ [ -z "$policy" ] || rm -f "$policy"; die "apt-get install failed"; }
	[ -z "$policy" ] || rm -f "$policy"
fi
export PATH="$bin:$PATH:/usr/sbin"

# ---- the work directory, and the way out ----
W=$(mktemp -d /tmp/tr-scale.XXXXXX)
chmod 755 "$W"
user=trscale$$
pids=""		# every daemon started, in order
masters=""	# ssh hosts with a master connection
jobs_=""	# every Slurm job submitted
user_added=0
export SLURM_CONF=$W/slurm/slurm.conf

stop() {	# stop PID: TERM, wait up to 10 s, then KILL
	local p=$1 i
	kill "$p" 2> /dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$p" 2> /dev/null || return 0
		sleep 0.1
	done
	say "pid $p did not stop on TERM within 10 s: KILL"
	kill -9 "$p" 2> /dev/null || true
}

cleanup() {
	local rc=$? p left
	trap - EXIT INT TERM
	set +e
	if [ -n "$jobs_" ] && [ -n "$pids" ]; then
		timeout 10 scancel $jobs_ 2> /dev/null
	fi
	for h in $masters; do	# the ssh connections kept open for parallel
		p=$(timeout 10 ssh -F "$W/ssh/config" -O check "$h" 2>&1 | sed -n 's/.*(pid=\([0-9]*\)).*/\1/p')
		timeout 10 ssh -F "$W/ssh/config" -O exit "$h" 2> /dev/null
		[ -n "$p" ] && stop "$p"
	done
	for p in $(printf '%s\n' $pids | tac); do
		stop "$p"
		wait "$p" 2> /dev/null
	done
	[ "$user_added" = 1 ] && userdel "$user" 2> /dev/null
	if [ "$rc" != 0 ] && [ -d "$W" ]; then
		for f in "$W"/ssh/*.log "$W"/munge/log "$W"/munge/out "$W"/slurm/*.log "$W"/slurm/*.out \
			"$W"/run/*/*.err; do
			[ -s "$f" ] && { echo "--- $f (last lines)"; tail -5 "$f"; } >&2
		done
	fi
	# what the daemons started ends with them: give it 10 s
	for i in $(seq 50); do
		left=$(pgrep -f "$W" ; pgrep -x slurmstepd)
		[ -z "$left" ] && break
		sleep 0.2
	done
	rm -rf "$W"
	if [ -n "$left" ]; then
		ps -o pid,args -p "$(echo $left | tr ' ' ,)" >&2
		say "still running after the run: $(echo $left)" >&2
		rc=1
	fi
	[ "$rc" = 0 ] && say "ok, in $(( $(date +%s) - T0 )) s, nothing left running" ||
		say "FAILED (status $rc)" >&2
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for WHAT SECONDS CMD...: run CMD every 0.2 s until it succeeds.
wait_for() {
	local what=$1 n=$(($2 * 5))
	shift 2
	while ! "$@" > /dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || die "$what: not ready in time"
		sleep 0.2
	done
}

# Ports: a block chosen from the pid, each checked free.
port=$((20000 + ($$ % 2000) * 10))
take_port() {	# take_port VAR: the next free port into VAR
	while ss -Hltn "sport = :$port" | grep -q .; do port=$((port + 1)); done
	printf -v "$1" '%s' "$port"
	port=$((port + 1))
}

# ---- the input: about 100k spans, and the results of one pass ----
mkdir -p "$W/data" "$W/run" "$W/bin"
cp "$bin"/tr-* "$W/bin/"
chmod 755 "$W/bin"/*
data=$W/data
Q='From s In spans GroupBy s.service Select s.service, COUNT, SUM(s.duration), MAX(s.duration), P50(s.duration), P99(s.duration)'
trsim --seed 7 --traces 2400 -o "$data/100k.json"
tr-ingest "$data/100k.json" > "$data/one.tr"
tr-infer "$data/one.tr" > "$data/one.model"
tr-infer --links "$data/one.tr" > "$data/one.links"
tr-aggregate "$Q" "$data/one.tr" > "$data/one.agg"
tr-cp --summary service "$data/one.tr" > "$data/one.cp"
tr-cp --folded "$data/one.tr" > "$data/one.folded"
say "input: $(grep -c '^S' "$data/one.tr") spans, $(grep -c '^T' "$data/one.tr") traces"
status=0
# tr-report's page less the sections --merge --page does not build yet
# (critical path, causes, timelines: it says so in their place)
page_sums() {
	sed '/<h2 id="critical-path"/,/<h2 id="services"/{/<h2 id="services"/!d}; /<h2 id="timelines"/,$d' "$1"
}
same() {	# same NAME EXPECTED ACTUAL
	if cmp -s "$2" "$3"; then
		say "$1: identical to one pass"
	else
		say "$1: DIFFERS from one pass"
		diff "$2" "$3" | head -5 >&2
		status=1
	fi
}

# ---- tr-cp's merges in one pass: --flame, --whatif, --flame --percentile and
# --baseline over the shards one after the other (their output follows the
# order of the traces); the baseline is another run, of 1,200 requests ----
R='service=mysql:scale=0.5'
PCT=50,99
trsim --seed 8 --traces 1200 -o "$data/base.json"
tr-ingest --split $SHARDS -o "$data/cpshard" "$data/100k.json"
tr-ingest --split $SHARDS -o "$data/cpbase" "$data/base.json"
in_order() { local k; for k in $(seq 0 $((SHARDS - 1))); do echo "$1$k$2"; done; }
cat $(in_order "$data/cpbase" .tr) > "$data/base.tr"
tr-cp -q --flame $(in_order "$data/cpshard" .tr) > "$data/one.flame"
tr-cp -q --whatif "$R" $(in_order "$data/cpshard" .tr) > "$data/one.whatif"
tr-cp -q --flame --percentile $PCT $(in_order "$data/cpshard" .tr) > "$data/one.pflame"
tr-cp -q --summary service --baseline "$data/base.tr" $(in_order "$data/cpshard" .tr) > "$data/one.baseline"
tr-cp -q --flame --baseline "$data/base.tr" $(in_order "$data/cpshard" .tr) > "$data/one.fbaseline"
tr-cp -q --flame --percentile $PCT --baseline "$data/base.tr" $(in_order "$data/cpshard" .tr) > "$data/one.pfbaseline"
rm "$data"/cpshard*.tr "$data"/cpbase*.tr

# ---- 1. GNU parallel over ssh ----
mkdir -p "$W/ssh" "$W/home/.ssh"
useradd -M -d "$W/home" -s /bin/sh -p "*" "$user"	# "*": no password, not locked
user_added=1
ssh-keygen -q -t ed25519 -N '' -f "$W/ssh/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$W/ssh/id"
cp "$W/ssh/id.pub" "$W/ssh/authorized_keys"
echo "PATH=$W/bin:/usr/bin:/bin" > "$W/home/.ssh/environment"
chown -R "$user" "$W/home"
chmod 644 "$W/ssh/authorized_keys"
mkdir -p /run/sshd
take_port sshport
: > "$W/ssh/known_hosts"
for h in 1 2; do
	addr=127.0.0.$((h + 1))
	cat > "$W/ssh/sshd$h.conf" <<-EOF
	ListenAddress $addr:$sshport
	HostKey $W/ssh/host_key
	PidFile $W/ssh/sshd$h.pid
	AuthorizedKeysFile $W/ssh/authorized_keys
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	StrictModes no
	PermitUserEnvironment yes
	PermitRootLogin no
	AllowUsers $user
	X11Forwarding no
	EOF
	/usr/sbin/sshd -D -f "$W/ssh/sshd$h.conf" -E "$W/ssh/sshd$h.log" > /dev/null 2>&1 &
	pids="$pids $!"
	echo "[$addr]:$sshport $(cut -d' ' -f1,2 "$W/ssh/host_key.pub")" >> "$W/ssh/known_hosts"
	cat >> "$W/ssh/config" <<-EOF
	Host h$h
	  HostName $addr
	EOF
done
cat >> "$W/ssh/config" <<-EOF
Host *
  Port $sshport
  User $user
  IdentityFile $W/ssh/id
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking yes
  UserKnownHostsFile $W/ssh/known_hosts
  LogLevel ERROR
  ControlMaster auto
  ControlPath $W/ssh/cm-%h
  ControlPersist 120
EOF
SSH="ssh -F $W/ssh/config"
masters="h1 h2"
wait_for "sshd on 127.0.0.2" 10 $SSH h1 true
wait_for "sshd on 127.0.0.3" 10 $SSH h2 true
say "sshd up on 127.0.0.2 and 127.0.0.3 port $sshport ($(( $(date +%s) - T0 )) s)"

run=$W/run/parallel
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "GNU parallel over ssh"
tr-ingest --split $SHARDS -o shard "$data/100k.json"
P="parallel --will-cite --ssh \"$SSH\" -S 1/h1,1/h2 --transferfile {} --cleanup"
eval "$P 'tr-infer --partial {}' ::: shard*.tr" | tr-infer --merge > model
eval "$P 'tr-infer --links --partial {}' ::: shard*.tr" | tr-infer --links --merge > links
eval "$P \"tr-aggregate --partial --exact-percentiles '\$Q' {}\" ::: shard*.tr" |
	tr-aggregate --merge "$Q" > agg
eval "$P \"tr-aggregate --partial '\$Q' {}\" ::: shard*.tr" |
	tr-aggregate --merge "$Q" > agg.sketch 2> agg.sketch.err
eval "$P 'tr-cp --summary service --partial {}' ::: shard*.tr" | tr-cp --summary service --merge > cp
eval "$P 'tr-cp --folded {}' ::: shard*.tr" | tr-cp --folded --merge > folded
eval "$P -k 'tr-report --partial --top 20 {}' ::: shard*.tr" | tr-report --merge --page --top 20 -o page.html
# where every job ran: both hosts
eval "$P 'echo \$SSH_CONNECTION' ::: shard*.tr" |
	awk '{ print $3 }' | sort -u > hosts
same "parallel --sshlogin: tr-infer" "$data/one.model" model
same "parallel --sshlogin: tr-infer --links" "$data/one.links" links
same "parallel --sshlogin: tr-aggregate, exact percentiles" "$data/one.agg" agg
same "parallel --sshlogin: tr-cp --summary service" "$data/one.cp" cp
same "parallel --sshlogin: tr-cp --folded" "$data/one.folded" folded
# one pass over the same shards, one after the other (the inputs it names)
tr-report -q --top 20 -o "$data/one.page" shard*.tr
page_sums "$data/one.page" > "$data/one.report"
page_sums page.html > report
same "parallel --sshlogin: tr-report --merge --page, but 3 sections" "$data/one.report" report
# the sketch: columns 5 and 6 within 1 %, marked, the rest identical
if paste <(tail -n +2 agg.sketch) <(tail -n +2 "$data/one.agg") | awk -F'\t' '
	{ for (c = 1; c <= 6; c++) { a = $c; b = $(c + 6)
		if (c < 5 && a != b) exit 1
		if (c >= 5 && (a - b > 0.01 * b || b - a > 0.01 * b)) exit 1 } }' &&
    head -1 agg.sketch | grep -q 'P99(s.duration) (approx)'; then
	say "parallel --sshlogin: tr-aggregate, sketch: exact columns identical, percentiles within 1 %, marked (approx)"
else
	say "parallel --sshlogin: tr-aggregate, sketch: beyond its stated error"
	status=1
fi
[ "$(cat hosts)" = "$(printf '127.0.0.2\n127.0.0.3')" ] ||
	{ say "parallel --sshlogin: jobs ran on: $(echo $(cat hosts)), not on both hosts"; status=1; }
# tr-temporal by time: the recipe of docs/scale-out.md, "Time shards with a
# halo": contiguous shards with a halo of half the window, each shard's
# clock partial made on the hosts, every partial given to every shard
tr-temporal -w $TW "$data/one.tr" > "$data/one.temporal"
tr-ingest --clock-offsets "$data/one.tr" > "$data/one.offsets"
tr-ingest --split-time $SHARDS --halo $((TW / 2)) -o run "$data/one.tr"
eval "$P -k 'tr-ingest --clock-offsets --partial {}' ::: run?.tr" > clocks.part
eval "$P -k --basefile clocks.part 'tr-temporal -w $TW --clock-offsets=clocks.part {} | tail -n +2' ::: run?.tr" |
	{ echo '#tr/1'; cat; } > temporal
tr-ingest --clock-offsets --merge clocks.part > offsets
same "parallel --sshlogin: tr-ingest --clock-offsets --merge" "$data/one.offsets" offsets
same "parallel --sshlogin: tr-temporal -w $TW, $SHARDS time shards, halo $((TW / 2))" "$data/one.temporal" temporal
# tr-pag | tr-cp by time: the recipe of docs/scale-out.md, "Time shards
# with a halo: tr-pag | tr-cp": each shard's windows and a halo, the
# partials of the windows each owns merged
tr-pag -P -w 1s "$data/one.tr" 2> /dev/null | tr-cp > "$data/one.pagcp"
tr-ingest --split-time $SHARDS --window 1s --halo ${PAGHALO}us -o slice "$data/one.tr"
eval "$P --tf {.}.own 'tr-pag -P -w 1s --own \$(cat {.}.own) {} 2> /dev/null | tr-cp' ::: slice?.tr" |
	tr-pag --merge > pagcp
same "parallel --sshlogin: tr-pag --own | tr-cp, $SHARDS time shards, halo $((PAGHALO / 1000000)) s" \
	"$data/one.pagcp" pagcp
say "GNU parallel done ($(( $(date +%s) - T0 )) s)"

# ---- 1b. tr-cp's merges over GNU parallel: -k keeps the partials in the
# order of the shards; the two phases of --flame --percentile and
# --baseline send phase 1's bands to the hosts (--basefile) ----
run=$W/run/parallel-cp
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "tr-cp's merges over GNU parallel"
tr-ingest --split $SHARDS -o shard "$data/100k.json"
tr-ingest --split $SHARDS -o base "$data/base.json"
K=$(echo $(seq 0 $((SHARDS - 1))))
PK="parallel --will-cite -k --ssh \"$SSH\" -S 1/h1,1/h2 --cleanup"
eval "$PK --tf shard{}.tr 'tr-cp -q --flame --partial shard{}.tr' ::: $K" | tr-cp --flame --merge > flame
eval "$PK --tf shard{}.tr \"tr-cp -q --whatif '\$R' --partial shard{}.tr\" ::: $K" |
	tr-cp --whatif "$R" --merge > whatif
eval "$PK --tf shard{}.tr 'tr-cp -q --flame --percentile $PCT --partial shard{}.tr' ::: $K" |
	tr-cp --flame --percentile $PCT --merge --ranks > pbands
eval "$PK --basefile pbands --tf shard{}.tr \
	'tr-cp -q --flame --percentile $PCT --bands pbands --partial shard{}.tr' ::: $K" |
	tr-cp --flame --percentile $PCT --merge > pflame
eval "$PK --tf shard{}.tr --tf base{}.tr \
	'tr-cp -q --summary service --baseline base{}.tr --partial shard{}.tr' ::: $K" |
	tr-cp --summary service --baseline - --merge --ranks > bbands
eval "$PK --basefile bbands --tf shard{}.tr --tf base{}.tr \
	'tr-cp -q --summary service --baseline base{}.tr --bands bbands --partial shard{}.tr' ::: $K" |
	tr-cp -q --summary service --baseline - --merge > baseline
eval "$PK --tf shard{}.tr --tf base{}.tr 'tr-cp -q --flame --baseline base{}.tr --partial shard{}.tr' ::: $K" |
	tr-cp --flame --baseline - --merge > fbaseline
eval "$PK --tf shard{}.tr --tf base{}.tr \
	'tr-cp -q --flame --percentile $PCT --baseline base{}.tr --partial shard{}.tr' ::: $K" |
	tr-cp --flame --percentile $PCT --baseline - --merge --ranks > pfbands
eval "$PK --basefile pfbands --tf shard{}.tr --tf base{}.tr \
	'tr-cp -q --flame --percentile $PCT --baseline base{}.tr --bands pfbands --partial shard{}.tr' ::: $K" |
	tr-cp --flame --percentile $PCT --baseline - --merge > pfbaseline
same "parallel --sshlogin: tr-cp --flame" "$data/one.flame" flame
same "parallel --sshlogin: tr-cp --whatif" "$data/one.whatif" whatif
same "parallel --sshlogin: tr-cp --flame --percentile, two phases" "$data/one.pflame" pflame
same "parallel --sshlogin: tr-cp --summary service --baseline, two phases" "$data/one.baseline" baseline
same "parallel --sshlogin: tr-cp --flame --baseline" "$data/one.fbaseline" fbaseline
same "parallel --sshlogin: tr-cp --flame --percentile --baseline, two phases" "$data/one.pfbaseline" pfbaseline
say "GNU parallel, tr-cp's merges done ($(( $(date +%s) - T0 )) s)"

# ---- 1c. tr-report's two phases over GNU parallel: phase 1 in the order
# of the shards (-k), the merge's chosen traces and bands sent to the
# hosts (--basefile), phase 2, the page ----
run=$W/run/parallel-report
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "tr-report's two phases over GNU parallel"
tr-ingest --split $SHARDS -o shard "$data/100k.json"
eval "$PK --tf shard{}.tr 'tr-report --partial --top 20 shard{}.tr' ::: $K" |
	tr-report --merge --top 20 > chosen
eval "$PK --basefile chosen --tf shard{}.tr \
	'tr-report --partial --top 20 --chosen chosen shard{}.tr' ::: $K" |
	tr-report --merge --page --top 20 -o page.html
# the same shards as one pass's
same "parallel --sshlogin: tr-report --merge --page, two phases" "$data/one.page" page.html
say "GNU parallel, tr-report's two phases done ($(( $(date +%s) - T0 )) s)"

# ---- the Slurm cluster ----
mkdir -p "$W/munge" "$W/slurm/state"
chmod 755 "$W/munge"	# clients reach the socket; the key is 400
dd if=/dev/urandom of="$W/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$W/munge/munge.key"
munged -F --force --key-file="$W/munge/munge.key" --socket="$W/munge/socket" \
	--pid-file="$W/munge/pid" --log-file="$W/munge/log" --seed-file="$W/munge/seed" \
	> "$W/munge/out" 2>&1 &
pids="$pids $!"
wait_for munged 10 sh -c "munge -n -S '$W/munge/socket' | unmunge -S '$W/munge/socket'"
host=$(hostname -s)
take_port ctlport
take_port d1port
take_port d2port
cpus=$(nproc)
cat > "$SLURM_CONF" <<EOF
ClusterName=trscale
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctlport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/socket
CredType=cred/munge
StateSaveLocation=$W/slurm/state
SlurmdSpoolDir=$W/slurm/spool-%n
SlurmctldPidFile=$W/slurm/slurmctld.pid
SlurmdPidFile=$W/slurm/slurmd-%n.pid
SlurmctldLogFile=$W/slurm/slurmctld.log
SlurmdLogFile=$W/slurm/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
PlugStackConfig=$W/slurm/plugstack.conf
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$d1port CPUs=$cpus State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$d2port CPUs=$cpus State=UNKNOWN
PartitionName=scale Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
: > "$W/slurm/plugstack.conf"
slurmctld -D -i -f "$SLURM_CONF" > "$W/slurm/slurmctld.out" 2>&1 &
pids="$pids $!"
wait_for slurmctld 20 scontrol ping
for n in n1 n2; do
	slurmd -D -N "$n" -f "$SLURM_CONF" > "$W/slurm/slurmd-$n.out" 2>&1 &
	pids="$pids $!"
done
idle() { [ "$(sinfo -h -N -o '%N %t' | sort | tr '\n' ' ')" = "n1 idle n2 idle " ]; }
wait_for "slurmd n1 and n2 idle" 30 idle
say "Slurm up: slurmctld, slurmd n1 and n2 ($(( $(date +%s) - T0 )) s)"

# sbatch_ NAME ARGS...: submit from the current directory; the job id.
sbatch_() {
	local id
	id=$(sbatch --parsable --chdir="$PWD" "$@") || die "sbatch $*: refused"
	jobs_="$jobs_ ${id%%;*}"
	echo "${id%%;*}"
}

# ---- 2. a job array of mappers, a reducer afterok ----
run=$W/run/slurm
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "Slurm: a job array and a reducer"
ls "$data/100k.json" > inputs
cat > map.sh <<'EOF'
#!/bin/sh
# one mapper: shard K of N of every input, each analysis's partial
set -e
k=$SLURM_ARRAY_TASK_ID
tr-ingest --shard "$k/$N" --files-from inputs > "shard$k.tr"
tr-infer --partial "shard$k.tr" > "model.$k.part"
tr-infer --links --partial "shard$k.tr" > "links.$k.part"
tr-aggregate --partial --exact-percentiles "$Q" "shard$k.tr" > "agg.$k.part"
tr-cp --summary service --partial "shard$k.tr" > "cp.$k.part"
tr-cp --folded "shard$k.tr" > "folded.$k.part"
tr-report --partial --top 20 "shard$k.tr" > "report.$k.part"
rm "shard$k.tr"
EOF
cat > reduce.sh <<'EOF'
#!/bin/sh
set -e
cat model.*.part | tr-infer --merge > model
cat links.*.part | tr-infer --links --merge > links
cat agg.*.part | tr-aggregate --merge "$Q" > agg
cat cp.*.part | tr-cp --summary service --merge > cp
cat folded.*.part | tr-cp --folded --merge > folded
cat report.*.part | tr-report --merge --page --top 20 -o page.html
EOF
export Q N=$SHARDS
map=$(sbatch_ --array=0-$((SHARDS - 1)) -o 'map.%a.out' -e 'map.%a.err' map.sh)
timeout 120 sbatch --wait --parsable --chdir="$PWD" --dependency=afterok:"$map" -o reduce.out \
	-e reduce.err reduce.sh > reduce.id || die "slurm: the reducer failed: $(cat reduce.err 2>/dev/null)"
same "slurm job array + reducer: tr-infer" "$data/one.model" model
same "slurm job array + reducer: tr-infer --links" "$data/one.links" links
same "slurm job array + reducer: tr-aggregate, exact percentiles" "$data/one.agg" agg
same "slurm job array + reducer: tr-cp --summary service" "$data/one.cp" cp
same "slurm job array + reducer: tr-cp --folded" "$data/one.folded" folded
page_sums page.html > report
same "slurm job array + reducer: tr-report --merge --page, but 3 sections" "$data/one.report" report
# tr-temporal by time on Slurm: the recipe of docs/scale-out.md, "Time
# shards with a halo": an array of clock partials, then an array of
# tr-temporal given them all (afterok), then the outputs in shard order
tr-ingest --split-time $SHARDS --halo $((TW / 2)) -o run "$data/one.tr"
cat > clock.sh <<'EOF'
#!/bin/sh
exec tr-ingest --clock-offsets --partial -o "clock.$SLURM_ARRAY_TASK_ID.part" "run$SLURM_ARRAY_TASK_ID.tr"
EOF
cat > temporal.sh <<'EOF'
#!/bin/sh
# every shard's clock partials, then this shard without its header line
set -e
k=$SLURM_ARRAY_TASK_ID
cat clock.*.part > "clocks.$k"
tr-temporal -w "$TW" --clock-offsets="clocks.$k" "run$k.tr" | tail -n +2 > "temporal.$k.out"
EOF
export TW
c1=$(sbatch_ --array=0-$((SHARDS - 1)) -o 'clock.%a.out' -e 'clock.%a.err' clock.sh)
timeout 120 sbatch --wait --parsable --chdir="$PWD" --array=0-$((SHARDS - 1)) --dependency=afterok:"$c1" \
	-o 'temporal.%a.log' -e 'temporal.%a.err' temporal.sh > temporal.id ||
	die "slurm: tr-temporal failed: $(cat temporal.*.err 2>/dev/null)"
{ echo '#tr/1'; for k in $(seq 0 $((SHARDS - 1))); do cat "temporal.$k.out"; done; } > temporal
cat clock.*.part | tr-ingest --clock-offsets --merge > offsets
same "slurm job arrays: tr-ingest --clock-offsets --merge" "$data/one.offsets" offsets
same "slurm job arrays: tr-temporal -w $TW, $SHARDS time shards, halo $((TW / 2))" "$data/one.temporal" temporal
# tr-pag | tr-cp by time on Slurm: an array of shards, the merge here
tr-ingest --split-time $SHARDS --window 1s --halo ${PAGHALO}us -o slice "$data/one.tr"
cat > pag.sh <<'EOF'
#!/bin/sh
# one shard by time: the windows it owns, as a partial
k=$SLURM_ARRAY_TASK_ID
tr-pag -P -w 1s --own "$(cat "slice$k.own")" "slice$k.tr" 2> "pag.$k.warn" | tr-cp > "pagcp.$k.part"
EOF
timeout 120 sbatch --wait --parsable --chdir="$PWD" --array=0-$((SHARDS - 1)) -o 'pag.%a.log' \
	-e 'pag.%a.err' pag.sh > pag.id || die "slurm: tr-pag --own failed: $(cat pag.*.err 2>/dev/null)"
cat pagcp.*.part | tr-pag --merge > pagcp
same "slurm job array: tr-pag --own | tr-cp, $SHARDS time shards, halo $((PAGHALO / 1000000)) s" \
	"$data/one.pagcp" pagcp
say "Slurm job array done ($(( $(date +%s) - T0 )) s)"

# ---- 2b. tr-cp's merges over Slurm: phase 1 (a job array), the bands (one
# job), phase 2 (a job array), the reducer; each afterok the one before ----
run=$W/run/slurm-cp
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "tr-cp's merges over Slurm"
ls "$data/100k.json" > inputs
ls "$data/base.json" > binputs
cat > cpmap1.sh <<'EOF'
#!/bin/sh
# phase 1, shard K of both runs: the one-phase partials and the ranks
set -e
k=$SLURM_ARRAY_TASK_ID
tr-ingest --shard "$k/$N" --files-from inputs > "shard$k.tr"
tr-ingest --shard "$k/$N" --files-from binputs > "base$k.tr"
tr-cp -q --flame --partial "shard$k.tr" > "flame.$k.part"
tr-cp -q --whatif "$R" --partial "shard$k.tr" > "whatif.$k.part"
tr-cp -q --flame --percentile "$PCT" --partial "shard$k.tr" > "pranks.$k.part"
tr-cp -q --summary service --baseline "base$k.tr" --partial "shard$k.tr" > "branks.$k.part"
tr-cp -q --flame --baseline "base$k.tr" --partial "shard$k.tr" > "fbaseline.$k.part"
tr-cp -q --flame --percentile "$PCT" --baseline "base$k.tr" --partial "shard$k.tr" > "pfranks.$k.part"
EOF
cat > cpranks.sh <<'EOF'
#!/bin/sh
# the bands: phase 1's partials in the order of the shards
set -e
in_order() { k=0; while [ $k -lt "$N" ]; do echo "$1.$k.part"; k=$((k + 1)); done; }
cat $(in_order pranks) | tr-cp --flame --percentile "$PCT" --merge --ranks > pbands
cat $(in_order branks) | tr-cp --summary service --baseline - --merge --ranks > bbands
cat $(in_order pfranks) | tr-cp --flame --percentile "$PCT" --baseline - --merge --ranks > pfbands
EOF
cat > cpmap2.sh <<'EOF'
#!/bin/sh
# phase 2, shard K: its sums given the bands
set -e
k=$SLURM_ARRAY_TASK_ID
tr-cp -q --flame --percentile "$PCT" --bands pbands --partial "shard$k.tr" > "pflame.$k.part"
tr-cp -q --summary service --baseline "base$k.tr" --bands bbands --partial "shard$k.tr" > "baseline.$k.part"
tr-cp -q --flame --percentile "$PCT" --baseline "base$k.tr" --bands pfbands --partial "shard$k.tr" > "pfbaseline.$k.part"
rm "shard$k.tr" "base$k.tr"
EOF
cat > cpreduce.sh <<'EOF'
#!/bin/sh
set -e
in_order() { k=0; while [ $k -lt "$N" ]; do echo "$1.$k.part"; k=$((k + 1)); done; }
cat $(in_order flame) | tr-cp --flame --merge > flame
cat $(in_order whatif) | tr-cp --whatif "$R" --merge > whatif
cat $(in_order pflame) | tr-cp --flame --percentile "$PCT" --merge > pflame
cat baseline.*.part | tr-cp -q --summary service --baseline - --merge > baseline
cat $(in_order fbaseline) | tr-cp --flame --baseline - --merge > fbaseline
cat $(in_order pfbaseline) | tr-cp --flame --percentile "$PCT" --baseline - --merge > pfbaseline
EOF
export R PCT
m1=$(sbatch_ --array=0-$((SHARDS - 1)) -o 'cpmap1.%a.out' -e 'cpmap1.%a.err' cpmap1.sh)
rk=$(sbatch_ --dependency=afterok:"$m1" -o cpranks.out -e cpranks.err cpranks.sh)
m2=$(sbatch_ --array=0-$((SHARDS - 1)) --dependency=afterok:"$rk" -o 'cpmap2.%a.out' -e 'cpmap2.%a.err' cpmap2.sh)
timeout 120 sbatch --wait --parsable --chdir="$PWD" --dependency=afterok:"$m2" -o cpreduce.out \
	-e cpreduce.err cpreduce.sh > cpreduce.id || die "slurm: tr-cp's reducer failed: $(cat cp*.err 2>/dev/null)"
same "slurm two phases: tr-cp --flame" "$data/one.flame" flame
same "slurm two phases: tr-cp --whatif" "$data/one.whatif" whatif
same "slurm two phases: tr-cp --flame --percentile" "$data/one.pflame" pflame
same "slurm two phases: tr-cp --summary service --baseline" "$data/one.baseline" baseline
same "slurm: tr-cp --flame --baseline" "$data/one.fbaseline" fbaseline
same "slurm two phases: tr-cp --flame --percentile --baseline" "$data/one.pfbaseline" pfbaseline
say "Slurm, tr-cp's merges done ($(( $(date +%s) - T0 )) s)"

# ---- 2c. tr-report's two phases over Slurm: phase 1 (a job array), the
# chosen traces and bands (one job), phase 2 (a job array), the page ----
run=$W/run/slurm-report
mkdir -p "$run"
cd "$run"
# the recipe of docs/scale-out.md, "tr-report's two phases over Slurm"
ls "$data/100k.json" > inputs
cat > rmap1.sh <<'EOF'
#!/bin/sh
# phase 1, shard K: its sums, its candidates, its traces' latencies
set -e
k=$SLURM_ARRAY_TASK_ID
tr-ingest --shard "$k/$N" --files-from inputs > "shard$k.tr"
tr-report --partial --top 20 "shard$k.tr" > "report1.$k.part"
EOF
cat > rchosen.sh <<'EOF'
#!/bin/sh
# the chosen traces and the bands: phase 1's partials in the order of the shards
set -e
in_order() { k=0; while [ $k -lt "$N" ]; do echo "$1.$k.part"; k=$((k + 1)); done; }
cat $(in_order report1) | tr-report --merge --top 20 > chosen
EOF
cat > rmap2.sh <<'EOF'
#!/bin/sh
# phase 2, shard K, given the chosen traces
set -e
k=$SLURM_ARRAY_TASK_ID
tr-report --partial --top 20 --chosen chosen "shard$k.tr" > "report2.$k.part"
rm "shard$k.tr"
EOF
cat > rreduce.sh <<'EOF'
#!/bin/sh
set -e
in_order() { k=0; while [ $k -lt "$N" ]; do echo "$1.$k.part"; k=$((k + 1)); done; }
cat $(in_order report2) | tr-report --merge --page --top 20 -o page.html
EOF
m1=$(sbatch_ --array=0-$((SHARDS - 1)) -o 'rmap1.%a.out' -e 'rmap1.%a.err' rmap1.sh)
ch=$(sbatch_ --dependency=afterok:"$m1" -o rchosen.out -e rchosen.err rchosen.sh)
m2=$(sbatch_ --array=0-$((SHARDS - 1)) --dependency=afterok:"$ch" -o 'rmap2.%a.out' -e 'rmap2.%a.err' rmap2.sh)
timeout 120 sbatch --wait --parsable --chdir="$PWD" --dependency=afterok:"$m2" -o rreduce.out \
	-e rreduce.err rreduce.sh > rreduce.id || die "slurm: tr-report's reducer failed: $(cat r*.err 2>/dev/null)"
same "slurm two phases: tr-report --merge --page" "$data/one.page" page.html
say "Slurm, tr-report's two phases done ($(( $(date +%s) - T0 )) s)"

# ---- 3. three stages over exports cut by time ----
run=$W/run/pipeline
mkdir -p "$run"
cd "$run"
awk -F'\t' -v n=$CUTS -v prefix=cut -f "$top/scripts/time-cut.awk" "$data/one.tr" "$data/one.tr"
straddle=$(for f in cut*.tr; do awk -F'\t' '$1 == "T" { print $2 }' "$f" | sort -u; done | sort | uniq -d | wc -l)
# without the shuffle, the cuts' partials do not add up to one pass
for f in cut*.tr; do tr-infer --partial "$f"; done | tr-infer --merge > model.unshuffled
if cmp -s model.unshuffled "$data/one.model"; then
	say "time cut: the unshuffled merge should differ from one pass ($straddle traces straddle a cut)"
	status=1
fi
# the recipe of docs/scale-out.md, "Slurm: shuffle exports cut by time"
cat > split.sh <<'EOF'
#!/bin/sh
# stage 1, one task per export: split it by trace into N buckets
i=$SLURM_ARRAY_TASK_ID
exec tr-ingest --split "$N" -o "bucket.$i." "cut$i.tr"
EOF
cat > shard.sh <<'EOF'
#!/bin/sh
# stage 2, one task per shard: its buckets from every export, regrouped
set -e
k=$SLURM_ARRAY_TASK_ID
tr-ingest bucket.*."$k".tr > "shard$k.tr"
tr-infer --partial "shard$k.tr" > "model.$k.part"
tr-infer --links --partial "shard$k.tr" > "links.$k.part"
tr-aggregate --partial --exact-percentiles "$Q" "shard$k.tr" > "agg.$k.part"
tr-cp --summary service --partial "shard$k.tr" > "cp.$k.part"
tr-cp --folded "shard$k.tr" > "folded.$k.part"
tr-report --partial --top 20 "shard$k.tr" > "report.$k.part"
tr-cp --flame --partial "shard$k.tr" > "flame.$k.part"
tr-cp --whatif 'service=mysql:scale=0.5' --partial "shard$k.tr" > "whatif.$k.part"
EOF
s1=$(sbatch_ --array=0-$((CUTS - 1)) -o 'split.%a.out' -e 'split.%a.err' split.sh)
s2=$(sbatch_ --array=0-$((SHARDS - 1)) --dependency=afterok:"$s1" -o 'shard.%a.out' -e 'shard.%a.err' shard.sh)
cp ../slurm/reduce.sh .
timeout 120 sbatch --wait --parsable --chdir="$PWD" --dependency=afterok:"$s2" -o reduce.out \
	-e reduce.err reduce.sh > reduce.id || die "slurm: the pipeline's reducer failed: $(cat reduce.err 2>/dev/null)"
same "slurm 3-stage shuffle of $CUTS time cuts ($straddle traces straddle a cut): tr-infer" "$data/one.model" model
same "slurm 3-stage shuffle: tr-infer --links" "$data/one.links" links
same "slurm 3-stage shuffle: tr-aggregate, exact percentiles" "$data/one.agg" agg
same "slurm 3-stage shuffle: tr-cp --summary service" "$data/one.cp" cp
same "slurm 3-stage shuffle: tr-cp --folded" "$data/one.folded" folded
# its shards hold the traces in another order: one pass over them
tr-report -q --top 20 -o one.page shard*.tr
page_sums one.page > one.report
page_sums page.html > report
same "slurm 3-stage shuffle: tr-report --merge --page, but 3 sections" one.report report
# the merges of tr-cp's frames and rows follow the shards' order: one pass
# over the shards one after the other
cat flame.*.part | tr-cp --flame --merge > flame.svg
tr-cp --flame shard*.tr > one.flame.svg
same "slurm 3-stage shuffle: tr-cp --flame" one.flame.svg flame.svg
cat whatif.*.part | tr-cp --whatif 'service=mysql:scale=0.5' --merge > whatif
tr-cp --whatif 'service=mysql:scale=0.5' shard*.tr > one.whatif
same "slurm 3-stage shuffle: tr-cp --whatif" one.whatif whatif
say "Slurm pipeline done ($(( $(date +%s) - T0 )) s)"
cd /
exit $status
