#!/usr/bin/env bash
# bench-load.sh — the load benchmark of issue 13, in one run (make bench-load).
#
# Starts, on 127.0.0.1: the fake provider (test/fakellm/cmd/fakellm), the real
# beamclaw daemon (stripped, as `make build`), and the floor: a bare Go
# reverse proxy (test/load/cmd/floorproxy) in front of the same fake. The
# load generator (test/load/cmd/bcload) sends the same turns to the fake
# directly, then through each, and the table prints beamclaw beside the
# floor: added latency at c=1, daemon CPU per turn, turns/s at c=1/16/64,
# the same c=1 turns with the database on tmpfs, bytes allocated per turn,
# time to first token over a slow stream (50 chunks 20 ms apart), RSS with
# 1,000 and 10,000 sessions, cold start, idle RSS, `beamclaw version` (beside
# /bin/true timed alike), package initialisation (GODEBUG=inittrace=1), and
# the bytes a first and a tenth turn of one conversation send upstream.
#
# Every run is bounded (bcload -n, -limit). One run, no medians: run it twice
# before believing a difference; docs/performance.md has the method.
# Needs go, curl and jq. Takes about 5 minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/beamclaw-bench.XXXXXX)
BIN=$WORK/beamclaw
PIDS=()
declare -A V=() # key -> value

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '== %s\n' "$*" >&2; }

# shellcheck source=lib/go-toolchain.sh
. "$ROOT/scripts/lib/go-toolchain.sh"
# shellcheck source=lib/daemon-config.sh
. "$ROOT/scripts/lib/daemon-config.sh"
# shellcheck source=lib/wait-line.sh
. "$ROOT/scripts/lib/wait-line.sh"

for tool in go curl jq; do
	command -v "$tool" >/dev/null || { echo "bench-load needs $tool" >&2; exit 1; }
done

log "building into $WORK"
(cd "$ROOT" &&
	go build -trimpath -ldflags '-s -w' -o "$BIN" ./cmd/beamclaw &&
	go build -o "$WORK/fakellm" ./test/fakellm/cmd/fakellm &&
	go build -o "$WORK/bcload" ./test/load/cmd/bcload &&
	go build -o "$WORK/floorproxy" ./test/load/cmd/floorproxy)

# start_fake NAME [fakellm flags]: sets FAKE_URL (…/v1) and FAKE_BASE.
start_fake() {
	local out=$WORK/$1.out
	shift
	"$WORK/fakellm" -addr 127.0.0.1:0 -echo "$@" >"$out" 2>&1 &
	PIDS+=("$!")
	FAKE_URL=$(wait_line "$out" 's/^fakellm listening on //p')
	FAKE_BASE=${FAKE_URL%/v1}
}

# start_floor NAME: a reverse proxy to FAKE_BASE; sets FLOOR_ADDR, FLOOR_PID.
start_floor() {
	local out=$WORK/$1.out
	"$WORK/floorproxy" -addr 127.0.0.1:0 -to "$FAKE_BASE" >"$out" 2>&1 &
	FLOOR_PID=$!
	PIDS+=("$FLOOR_PID")
	FLOOR_ADDR=$(wait_line "$out" 's|^floorproxy listening on http://||p')
}

# start_daemon NAME [BASE]: beamclaw on FAKE_URL (rate limit off, port 0),
# its home under BASE (default the work directory); sets D_ADDR, D_PID.
start_daemon() {
	local home=${2:-$WORK}/$1
	mkdir -p "$home"
	write_daemon_config "$home/config.yaml" "$FAKE_URL"
	BEAMCLAW_HOME=$home "$BIN" start --foreground >"$home/stdout" 2>"$home/daemon.log" &
	D_PID=$!
	PIDS+=("$D_PID")
	D_ADDR=$(wait_line "$home/stdout" 's|^beamclaw running (pid [0-9]*) on http://\([^,]*\),.*|\1|p')
}

# load KEY ADDR PID ARGS...: one bcload run (JSON into $WORK/KEY.json).
load() {
	local key=$1 addr=$2 pid=$3
	shift 3
	"$WORK/bcload" -addr "$addr" -fake "$FAKE_URL" -pid "$pid" -json -prefix "$key-" "$@" >"$WORK/$key.json"
	if [[ $(jq '.beamclaw.errors' "$WORK/$key.json") != 0 ]]; then
		echo "$key: $(jq -r '.beamclaw.first_error' "$WORK/$key.json")" >&2
		return 1
	fi
}
j() { jq -r "$2" "$WORK/$1.json"; }
ms() { awk '{printf "%.2f ms", $1/1e6}'; }

log "fast upstream: c=1, 16, 64 through beamclaw and through the floor"
start_fake fast
start_daemon fast
start_floor fast
for t in bc floor; do
	if [[ $t == bc ]]; then addr=$D_ADDR pid=$D_PID; else addr=$FLOOR_ADDR pid=$FLOOR_PID; fi
	load "$t-c1" "$addr" "$pid" -mode plain -n 2000 -c 1 -users 200 -warmup 200
	load "$t-c16" "$addr" "$pid" -mode plain -n 4000 -c 16 -users 1600 -warmup 160
	load "$t-c64" "$addr" "$pid" -mode plain -n 6400 -c 64 -users 640 -warmup 640
done

# Allocation per persisted turn: the daemon's own counters around 2,000
# more c=1 turns of the c=1 run's 200 users (their sessions exist).
memstat() {
	local v
	v=$(curl -fsS "http://$D_ADDR/metrics" | awk -v k="$1" '$1==k {printf "%.0f", $2}')
	[[ $v =~ ^[0-9]+$ ]] || { echo "no $1 in the daemon's /metrics" >&2; return 1; }
	echo "$v"
}
a0=$(memstat beamclaw_go_memstats_alloc_bytes_total)
m0=$(memstat beamclaw_go_memstats_mallocs_total)
load bc-alloc "$D_ADDR" "$D_PID" -mode plain -n 2000 -c 1 -users 200 -warmup 0 -prefix bc-c1-
a1=$(memstat beamclaw_go_memstats_alloc_bytes_total)
m1=$(memstat beamclaw_go_memstats_mallocs_total)
V[alloc]=$(awk -v a="$((a1 - a0))" -v m="$((m1 - m0))" 'BEGIN {printf "%.1f KiB, %.0f allocations", a/2000/1024, m/2000}')

# The same c=1 turns with the database on tmpfs, where fdatasync costs
# nothing: what the disk adds to a persisted turn, and what is left.
if [[ -d /dev/shm && -w /dev/shm ]]; then
	log "fast upstream, c=1, the database on tmpfs (no disk sync)"
	SHM=$(mktemp -d /dev/shm/beamclaw-bench.XXXXXX)
	start_daemon tmpfs "$SHM"
	load bc-c1-tmpfs "$D_ADDR" "$D_PID" -mode plain -n 2000 -c 1 -users 200 -warmup 200
	kill "$D_PID"
	wait "$D_PID" 2>/dev/null || true
	rm -rf "$SHM"
fi

log "sessions: RSS with 1,000 then 10,000 distinct users"
start_daemon sessions
V[idle_rss]=$(awk '/^VmRSS:/ {printf "%.1f MiB", $2/1024}' "/proc/$D_PID/status")
load s1k "$D_ADDR" "$D_PID" -mode plain -n 1000 -c 16 -users 1000
load s10k "$D_ADDR" "$D_PID" -mode plain -n 9000 -c 16 -users 9000
V[rss_1k]=$(j s1k '.after.rss_bytes/1048576*10|floor/10')
V[rss_10k]=$(j s10k '.after.rss_bytes/1048576*10|floor/10')
V[live_10k]=$(curl -s "http://$D_ADDR/health" | jq -r '.subsystems.sessions.detail')
V[per_session]=$(jq -n --argjson a "$(j s1k '.after.rss_bytes')" --argjson b "$(j s10k '.after.rss_bytes')" '($b-$a)/9000/1024*10|floor/10')
V[goroutines]=$(j s10k '.after.goroutines')

log "slow upstream: time to first token, 50 chunks 20 ms apart"
start_fake slow -stream-chunks 50 -chunk-delay 20ms
start_daemon slow
start_floor slow
load bc-ttft "$D_ADDR" "$D_PID" -mode stream -n 20 -c 1 -users 20
load floor-ttft "$FLOOR_ADDR" "$FLOOR_PID" -mode stream -n 20 -c 1 -users 20

log "bytes upstream: a first and a tenth turn of one conversation (issue 28)"
for i in $(seq 10); do
	curl -sf -o /dev/null -H 'Content-Type: application/json' "http://$D_ADDR/v1/chat/completions" \
		-d "{\"model\":\"default\",\"user\":\"bytes-probe\",\"messages\":[{\"role\":\"user\",\"content\":\"hello $i\"}]}"
done
V[bytes]=$(curl -s "$FAKE_BASE/__requests" | jq -r '[.[-10:][] | .body | tojson | utf8bytelength] | "\(.[0]) / \(.[-1])"')

log "start-up"
"$WORK/bcload" -mode coldstart -bin "$BIN" -n 20 -json >"$WORK/cold.json"
V[cold]=$(j cold '.ready.p50_ns' | ms)
# median wall time of 21 runs of a command, measured the same way for
# `beamclaw version` and for /bin/true (what the measuring itself costs)
median21() {
	for i in $(seq 21); do
		s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $((e - s))
	done | sort -n | awk '{v[NR]=$1} END {printf "%.1f ms", v[int((NR+1)/2)]/1e6}'
}
V[version]=$(median21 "$BIN" version)
V[true]=$(median21 /bin/true)
V[init]=$(GODEBUG=inittrace=1 "$BIN" version 2>&1 >/dev/null | awk '/^init /{t+=$5; b+=$8} END {printf "%.1f ms, %.1f MiB", t, b/1048576}')
V[binary]=$(stat -c %s "$BIN" | awk '{printf "%.1f MiB", $1/1048576}')

row() { printf '| %s | %s | %s | %s |\n' "$@"; }
us() { awk '{printf "%.0f µs", $1}'; }
echo
echo "beamclaw $(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo dev), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
row metric beamclaw floor "budget (issue 13)"
row --- --- --- ---
row "added latency p50 / p99, c=1" "$(j bc-c1 '.added.latency.p50_ns' | ms) / $(j bc-c1 '.added.latency.p99_ns' | ms)" \
	"$(j floor-c1 '.added.latency.p50_ns' | ms) / $(j floor-c1 '.added.latency.p99_ns' | ms)" "≤ 0.6 ms p50"
if [[ -f $WORK/bc-c1-tmpfs.json ]]; then
	row "the same, database on tmpfs (no fdatasync): p50; CPU per turn" "$(j bc-c1-tmpfs '.added.latency.p50_ns' | ms); $(j bc-c1-tmpfs .cpu_per_turn_us | us)" — "(what the disk adds)"
fi
row "daemon CPU per turn, c=1 / c=64" "$(j bc-c1 .cpu_per_turn_us | us) / $(j bc-c64 .cpu_per_turn_us | us)" \
	"$(j floor-c1 .cpu_per_turn_us | us) / $(j floor-c64 .cpu_per_turn_us | us)" "≤ 500 / 250 µs"
for c in 1 16 64; do
	row "turns/s, c=$c" "$(j "bc-c$c" '.beamclaw.turns_per_sec|floor')" "$(j "floor-c$c" '.beamclaw.turns_per_sec|floor')" \
		"$([[ $c == 64 ]] && echo '≥ 4,500 (≥ ½ the floor)' || echo —)"
done
row "time to first token added, p50 (50 chunks, 20 ms apart)" "$(j bc-ttft '.added.ttft.p50_ns' | ms)" "$(j floor-ttft '.added.ttft.p50_ns' | ms)" "≤ +1 ms"
row "allocated per turn, c=1" "${V[alloc]}" — "≤ 40 KiB"
row "RSS after 1,000 / 10,000 sessions" "${V[rss_1k]} / ${V[rss_10k]} MiB (${V[live_10k]})" — "10,000 in ≤ 100 MiB"
row "RSS per session (1,000 → 10,000); goroutines at the end" "${V[per_session]} KiB; ${V[goroutines]}" — "≤ 8 KiB; ≤ 1 per session"
row "cold start to ready, p50 of 20" "${V[cold]}" — "≤ 10 ms"
row "idle RSS after start" "${V[idle_rss]}" — "≤ 14 MiB"
row "\`beamclaw version\`, median of 21 (floor: /bin/true timed alike)" "${V[version]}" "${V[true]}" "≤ 5 ms"
row "package init (inittrace)" "${V[init]}" — —
row "stripped binary" "${V[binary]}" — —
row "bytes sent upstream, first / tenth turn of the default agent" "${V[bytes]}" — "first ≤ 6,000 (issue 28)"
