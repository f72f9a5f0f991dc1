#!/usr/bin/env bash
# measure.sh — reproduce every number in docs/performance.md.
#
# Builds the stripped binary (the flags of `make build`), the fake provider
# (test/fakellm/cmd/fakellm) and the load generator (test/load/cmd/bcload)
# into a scratch directory, then measures, RUNS times each, and prints the
# medians against the budgets of issues 2 and 3:
#   - binary size, cold start to /health ready (20 starts), idle RSS at 60 s
#   - obs.Emit and the rate limiter (go test -bench)
#   - added latency of persisted / ephemeral / streamed turns over calling
#     the fake provider directly, turns/s at concurrency 64
#   - RSS and goroutines per live session, RSS per hibernated session,
#     10,000 live sessions held
#   - the component benchmarks and one fdatasync, for scale
#   - the code sandbox (issue 14): first exec of a scope and warm exec,
#     through the daemon (needs Docker and `beamclaw sandbox build`)
#
# Everything runs on 127.0.0.1 with bounded request counts and time limits.
# Usage: scripts/measure.sh [-q|-s]   (RUNS=3 by default; -q skips the
# component benchmarks; -s measures only the sandbox, in about 3 minutes;
# KEEP=DIR keeps the raw results). Needs go, curl and jq. Takes about 20
# minutes.
set -euo pipefail

RUNS=${RUNS:-3}
QUICK=0
SANDBOX_ONLY=0
[[ ${1:-} == -q ]] && QUICK=1
[[ ${1:-} == -s ]] && SANDBOX_ONLY=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/beamclaw-measure.XXXXXX)
BIN=$WORK/beamclaw
declare -A MED=() # metric -> median
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	if [[ -n ${KEEP:-} ]]; then # keep the raw results (bcload JSON, benchmarks)
		mkdir -p "$KEEP" && find "$WORK" -maxdepth 1 -type f ! -name beamclaw ! -name fakellm ! -name bcload -exec cp {} "$KEEP" \;
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '== %s\n' "$*" >&2; }

# shellcheck source=lib/go-toolchain.sh
. "$ROOT/scripts/lib/go-toolchain.sh"
# shellcheck source=lib/daemon-config.sh
. "$ROOT/scripts/lib/daemon-config.sh"

# median of the numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} m=int((NR+1)/2); if (NR%2) print v[m]; else print (v[m]+v[m+1])/2}'; }

build() {
	log "building into $WORK"
	(cd "$ROOT" &&
		go build -trimpath -ldflags '-s -w' -o "$BIN" ./cmd/beamclaw &&
		go build -o "$WORK/fakellm" ./test/fakellm/cmd/fakellm &&
		go build -o "$WORK/bcload" ./test/load/cmd/bcload)
}

# start_fake [rules]: starts a fresh fake provider (echoing, or following
# fakellm.Rules: "call tool NAME {json}"); sets FAKE_URL and FAKE_PID.
start_fake() {
	local out=$WORK/fake.$RANDOM.out i echo=-echo
	[[ ${1:-} == rules ]] && echo=
	"$WORK/fakellm" -addr 127.0.0.1:0 $echo >"$out" 2>&1 &
	FAKE_PID=$!
	PIDS+=("$FAKE_PID")
	for i in $(seq 100); do
		FAKE_URL=$(sed -n 's/^fakellm listening on //p' "$out" 2>/dev/null || true)
		[[ -n $FAKE_URL ]] && return 0
		sleep 0.05
	done
	echo "fakellm did not start" >&2
	return 1
}

# start_daemon HOME [EXTRA_CORE_YAML]: writes HOME/config.yaml (fake
# provider, port 0, rate limit off) unless it exists, starts the daemon in
# the foreground; sets D_PID and D_ADDR (host:port).
start_daemon() {
	local home=$1 extra=${2:-} i
	mkdir -p "$home"
	if [[ ! -f $home/config.yaml ]]; then
		write_daemon_config "$home/config.yaml" "$FAKE_URL" "$extra"
	fi
	BEAMCLAW_HOME=$home "$BIN" start --foreground >"$home/stdout" 2>"$home/daemon.log" &
	D_PID=$!
	PIDS+=("$D_PID")
	for i in $(seq 200); do
		D_ADDR=$(sed -n 's|^beamclaw running (pid [0-9]*) on http://\([^,]*\),.*|\1|p' "$home/stdout" 2>/dev/null || true)
		[[ -n $D_ADDR ]] && return 0
		sleep 0.05
	done
	echo "daemon in $home did not start:" >&2
	cat "$home/daemon.log" >&2
	return 1
}

stop_pid() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# bcload_json ARGS...: runs bcload against the current daemon and fake.
bcload_json() { "$WORK/bcload" -addr "$D_ADDR" -fake "$FAKE_URL" -json "$@"; }

# go_bench PKGS... ARGS: prints "name ns/op B/op allocs/op other-metrics"
# (the others as value:unit), the run with the median ns/op of each benchmark.
go_bench() {
	(cd "$ROOT" && go test -run '^$' -benchmem -count "$RUNS" "$@") |
		awk '/^Benchmark/ {n=$1; sub(/-[0-9]+$/, "", n); ns=b=a="-"; x=""
			for (i=3; i<NF; i+=2) {u=$(i+1); if (u=="ns/op") ns=$i; else if (u=="B/op") b=$i; else if (u=="allocs/op") a=$i; else x=x" "$i":"u}
			print n, ns, b, a x}' |
		sort -k1,1 -k2,2g |
		awk '{name[NR]=$1; row[NR]=$0}
			END {for (i=1; i<=NR; i=j+1) {j=i; while (j<NR && name[j+1]==name[i]) j++; print row[i+int((j-i)/2)]}}'
}

measure_binary() {
	MED[binary_mb]=$(stat -c %s "$BIN" | awk '{printf "%.1f", $1/1048576}')
}

measure_coldstart() {
	local r
	log "cold start: $RUNS x 20 starts"
	for r in $(seq "$RUNS"); do
		"$WORK/bcload" -mode coldstart -bin "$BIN" -n 20 -json | jq '.ready.p50_ns/1e6'
	done | median >"$WORK/cold"
	MED[cold_ms]=$(cat "$WORK/cold")
}

measure_idle() {
	local r pids=() homes=()
	log "idle RSS: $RUNS daemons, 60 s"
	FAKE_URL=http://127.0.0.1:9/v1
	for r in $(seq "$RUNS"); do
		start_daemon "$WORK/idle$r"
		pids+=("$D_PID")
	done
	sleep 60
	for r in "${pids[@]}"; do rss_kb "$r"; done | median | awk '{printf "%.1f\n", $1/1024}' >"$WORK/idle"
	for r in "${pids[@]}"; do stop_pid "$r"; done
	MED[idle_mb]=$(cat "$WORK/idle")
}

measure_micro() {
	log "obs.Emit and limiter benchmarks"
	go_bench ./internal/obs/ -bench Emit >"$WORK/emit"
	go_bench ./internal/gateway/ -bench Limiter >"$WORK/limiter"
	MED[emit_ns]=$(awk 'NR==1 {print $2}' "$WORK/emit")
	MED[emit_allocs]=$(awk 'NR==1 {print $4}' "$WORK/emit")
	MED[limiter_ns]=$(awk 'NR==1 {print $2}' "$WORK/limiter")
	cat "$WORK/emit" "$WORK/limiter" >&2
}

# latency_runs: RUNS rounds, each on a fresh fake and daemon, of the four
# latency runs; the medians of each figure over the rounds.
latency_runs() {
	local r
	log "latency: plain c=1, plain c=64, ephemeral c=1, stream c=1 ($RUNS runs)"
	for r in $(seq "$RUNS"); do
		start_fake
		start_daemon "$WORK/lat$r"
		bcload_json -mode plain -n 2000 -c 1 -users 200 >"$WORK/plain1.$r"
		bcload_json -mode plain -n 6400 -c 64 -users 640 -warmup 640 >"$WORK/plain64.$r"
		bcload_json -mode ephemeral -n 2000 -c 1 >"$WORK/eph1.$r"
		bcload_json -mode stream -n 1000 -c 1 -users 100 >"$WORK/stream1.$r"
		stop_pid "$D_PID"
		stop_pid "$FAKE_PID"
	done
	pick plain1 direct_p50 '.direct.latency.p50_ns/1e6'
	pick plain1 bc_p50 '.beamclaw.latency.p50_ns/1e6'
	pick plain1 add_p50 '.added.latency.p50_ns/1e6'
	pick plain1 add_p99 '.added.latency.p99_ns/1e6'
	pick plain64 add64_p50 '.added.latency.p50_ns/1e6'
	pick plain64 add64_p99 '.added.latency.p99_ns/1e6'
	pick plain64 tps64 '.beamclaw.turns_per_sec'
	pick plain64 direct_tps64 '.direct.turns_per_sec'
	pick eph1 eph_add_p50 '.added.latency.p50_ns/1e6'
	pick eph1 eph_add_p99 '.added.latency.p99_ns/1e6'
	pick stream1 ttft_add_p50 '.added.ttft.p50_ns/1e6'
	pick stream1 ttft_add_p99 '.added.ttft.p99_ns/1e6'
}

# pick FILE_PREFIX METRIC JQ: the median over the runs' JSON files.
pick() { MED[$2]=$(for f in "$WORK/$1".*; do jq "$3" "$f"; done | median); }

measure_live() {
	local r
	log "live sessions: $RUNS x 2,000 on fresh daemons"
	for r in $(seq "$RUNS"); do
		start_fake
		start_daemon "$WORK/live$r"
		bcload_json -mode plain -n 2000 -c 16 -users 2000 -warmup 20 -pid "$D_PID" >"$WORK/live.$r"
		stop_pid "$D_PID"
		stop_pid "$FAKE_PID"
	done
	pick live live_kb '.per_session.rss_bytes/1024'
	pick live live_goroutines '.per_session.goroutines'
}

# wait_detail PATTERN SECONDS: polls /health until the sessions detail matches.
wait_detail() {
	local i
	for i in $(seq $(($2 * 4))); do
		curl -fsS "http://$D_ADDR/health" | jq -r .subsystems.sessions.detail | grep -Eq "$1" && return 0
		sleep 0.25
	done
	echo "sessions never reached '$1'" >&2
	return 1
}

gc_count() { curl -fsS "http://$D_ADDR/metrics" | awk '/^go_gc_duration_seconds_count / {print $2}'; }

# wait_gc: waits (at most 150 s) for the next garbage collection — an idle
# daemon allocates nothing, so that is the runtime's forced one every 2 min —
# then 10 s for the scavenger to hand the freed pages back.
wait_gc() {
	local n0 i
	n0=$(gc_count)
	for i in $(seq 300); do
		[[ $(gc_count) -gt $n0 ]] && break
		sleep 0.5
	done
	sleep 10
}

# measure_hibernated: RUNS daemons side by side with
# core.session_idle_hibernate_seconds: 2; 2,000 sessions each; RSS before,
# and after all hibernated plus a GC. Then each home once more after a
# restart (2,000 sessions on disk, none loaded) against a fresh home.
measure_hibernated() {
	local r home restarted fresh pids=() addrs=() fakes=() before=()
	log "hibernated sessions: $RUNS x 2,000 (core.session_idle_hibernate_seconds: 2)"
	for r in $(seq "$RUNS"); do
		start_fake
		start_daemon "$WORK/hib$r" "  session_idle_hibernate_seconds: 2"
		wait_detail '^0 live' 10
		before+=("$(rss_kb "$D_PID")")
		"$WORK/bcload" -addr "$D_ADDR" -mode plain -n 2000 -c 16 -users 2000 -warmup 0 >/dev/null
		pids+=("$D_PID") addrs+=("$D_ADDR") fakes+=("$FAKE_PID")
	done
	for r in $(seq 0 $((RUNS - 1))); do
		D_ADDR=${addrs[r]}
		wait_detail '^0 live, 2000 hibernated' 120
		wait_gc
		echo "${before[r]} $(rss_kb "${pids[r]}")" >"$WORK/hib.$r"
	done
	for r in $(seq 0 $((RUNS - 1))); do
		stop_pid "${pids[r]}"
		FAKE_URL=http://127.0.0.1:9/v1
		start_daemon "$WORK/hib$((r + 1))"
		wait_detail '^0 live, 2000 hibernated' 10
		sleep 5
		restarted=$(rss_kb "$D_PID")
		stop_pid "$D_PID"
		start_daemon "$WORK/hibfresh$r"
		wait_detail '^0 live, 0 hibernated' 10
		sleep 5
		fresh=$(rss_kb "$D_PID")
		stop_pid "$D_PID"
		stop_pid "${fakes[r]}"
		echo "$restarted $fresh" >"$WORK/hibrestart.$r"
	done
	MED[hib_kb]=$(awk '{print ($2-$1)/2000}' "$WORK"/hib.* | median)
	MED[hib_restart_kb]=$(awk '{print ($1-$2)/2000}' "$WORK"/hibrestart.* | median)
}

measure_10k() {
	log "10,000 live sessions"
	start_fake
	start_daemon "$WORK/tenk"
	bcload_json -mode plain -n 10000 -c 64 -users 10000 -warmup 0 -pid "$D_PID" -limit 10m >"$WORK/tenk.json"
	MED[tenk_detail]=$(curl -fsS "http://$D_ADDR/health" | jq -r '"\(.status) \(.subsystems.sessions.detail)"')
	MED[tenk_rss_mb]=$(jq '.after.rss_bytes/1048576|floor' "$WORK/tenk.json")
	MED[tenk_goroutines]=$(jq '.after.goroutines' "$WORK/tenk.json")
	MED[tenk_kb]=$(jq '.per_session.rss_bytes/1024|floor' "$WORK/tenk.json")
	stop_pid "$D_PID"
	stop_pid "$FAKE_PID"
}

# measure_sandbox: RUNS fresh daemons with the sandbox on; in each, the
# first exec of 30 sessions (container starts) and 500 warm ones over the
# control socket (bcload -mode exec).
measure_sandbox() {
	local r home
	if ! BEAMCLAW_HOME=$WORK/sbxbuild "$BIN" sandbox build >"$WORK/sbxbuild.log" 2>&1; then
		log "sandbox: not measured (no Docker or no image build): $(tail -1 "$WORK/sbxbuild.log")"
		return 0
	fi
	log "sandbox: $RUNS x (30 first execs + 500 warm)"
	for r in $(seq "$RUNS"); do
		start_fake rules
		home=$WORK/sbx$r
		mkdir -p "$home"
		write_daemon_config "$home/config.yaml" "$FAKE_URL" "" "sandbox:
  enabled: true"
		start_daemon "$home"
		"$WORK/bcload" -mode exec -socket "$home/run/beamclaw.sock" -scopes 30 -n 500 -json >"$WORK/sbx.$r"
		stop_pid "$D_PID"
		stop_pid "$FAKE_PID"
	done
	pick sbx sbx_first_p50 '.result.first_exec.p50_ns/1e6'
	pick sbx sbx_first_p99 '.result.first_exec.p99_ns/1e6'
	pick sbx sbx_warm_p50 '.result.warm_exec.p50_ns/1e6'
	pick sbx sbx_warm_p99 '.result.warm_exec.p99_ns/1e6'
	pick sbx sbx_wturn_p50 '.result.warm_turn.p50_ns/1e6'
	pick sbx sbx_wturn_p99 '.result.warm_turn.p99_ns/1e6'
}

report_sandbox() {
	[[ -n ${MED[sbx_first_p50]:-} ]] || return 0
	row "sandbox first exec of a scope p50 (ms)" "${MED[sbx_first_p50]}" "<=" 1000
	row "sandbox first exec of a scope p99 (ms)" "${MED[sbx_first_p99]}" "" -
	row "sandbox warm exec p50 (ms)" "${MED[sbx_warm_p50]}" "<=" 50
	row "sandbox warm exec p99 (ms)" "${MED[sbx_warm_p99]}" "" -
	row "  (whole warm exec turn p50, ms)" "${MED[sbx_wturn_p50]}" "" -
	row "  (whole warm exec turn p99, ms)" "${MED[sbx_wturn_p99]}" "" -
}

measure_components() {
	log "component benchmarks (count $RUNS)"
	go_bench ./internal/session/ ./internal/memory/... ./internal/workspace/ ./internal/scrub/ ./internal/toolparse/ -bench . >"$WORK/components"
	go_bench ./internal/mcp/ -bench ToolCall -benchtime=2000x >>"$WORK/components"
	TMPDIR=$WORK go_bench ./test/load/ -bench Fdatasync >>"$WORK/components"
	echo "component benchmarks (median of $RUNS: name ns/op B/op allocs/op)"
	column -t "$WORK/components"
	echo
}

verdict() {
	[[ $3 == - ]] && { echo "-"; return; }
	awk -v v="$1" -v b="$3" -v op="$2" 'BEGIN {ok = (op == "<=") ? (v <= b) : (v >= b); print ok ? "ok" : "OVER"}'
}

row() { printf '%-44s %12s  %-10s %s\n' "$1" "$(awk -v v="$2" 'BEGIN {printf (v == int(v)) ? "%d" : "%.2f", v}')" "$3 $4" "$(verdict "$2" "$3" "$4")"; }

report() {
	echo "beamclaw-go measurements, median of $RUNS runs ($(nproc) cores, $(date -u +%F))"
	printf '%-44s %12s  %-10s %s\n' metric value budget verdict
	row "cold start to /health ready (ms)" "${MED[cold_ms]}" "<=" 50
	row "idle RSS after 60 s (MB)" "${MED[idle_mb]}" "<=" 20
	row "stripped binary (MB)" "${MED[binary_mb]}" "" -
	row "obs.Emit (ns/op)" "${MED[emit_ns]}" "<=" 200
	row "obs.Emit (allocs/op)" "${MED[emit_allocs]}" "<=" 0
	row "rate-limit check (ns/op)" "${MED[limiter_ns]}" "<=" 1000
	row "persisted turn added p50, c=1 (ms)" "${MED[add_p50]}" "<=" 1.5
	row "persisted turn added p99, c=1 (ms)" "${MED[add_p99]}" "" -
	row "persisted turn added p50, c=64 (ms)" "${MED[add64_p50]}" "" -
	row "persisted turn added p99, c=64 (ms)" "${MED[add64_p99]}" "" -
	row "ephemeral turn added p50, c=1 (ms)" "${MED[eph_add_p50]}" "<=" 0.5
	row "ephemeral turn added p99, c=1 (ms)" "${MED[eph_add_p99]}" "" -
	row "stream TTFT added p50, c=1 (ms)" "${MED[ttft_add_p50]}" "<=" 1
	row "stream TTFT added p99, c=1 (ms)" "${MED[ttft_add_p99]}" "" -
	row "persisted turns/s, c=64" "${MED[tps64]}" ">=" 2000
	row "  (direct to the fake, c=64, turns/s)" "${MED[direct_tps64]}" "" -
	row "RSS per live session (KB)" "${MED[live_kb]}" "<=" 64
	row "goroutines per live session" "${MED[live_goroutines]}" "" -
	row "RSS per hibernated session, in place (KB)" "${MED[hib_kb]}" "<=" 1
	row "RSS per hibernated session, restart (KB)" "${MED[hib_restart_kb]}" "<=" 1
	row "10k live: RSS after (MB)" "${MED[tenk_rss_mb]}" "" -
	row "10k live: RSS per session (KB)" "${MED[tenk_kb]}" "<=" 64
	row "10k live: goroutines" "${MED[tenk_goroutines]}" "" -
	echo "10k live: /health says: ${MED[tenk_detail]}"
	report_sandbox
}

main() {
	build
	if [[ $SANDBOX_ONLY == 1 ]]; then
		measure_sandbox
		printf '%-44s %12s  %-10s %s\n' metric value budget verdict
		report_sandbox
		return
	fi
	measure_binary
	measure_micro
	measure_coldstart
	measure_idle
	latency_runs
	measure_live
	measure_hibernated
	measure_10k
	measure_sandbox
	[[ $QUICK == 1 ]] || measure_components
	report
}

main
