#!/usr/bin/env bash
# bench-cluster.sh — persisted turns through one node of each setup, on
# 127.0.0.1 (make bench-cluster): a daemon alone (bbolt), a one-node
# cluster (JetStream R1), and a three-node cluster (R3, the turns sent to
# one node, whose sessions it owns). bcload sends the same turns to the
# fake provider directly first, so the added latency is beamclaw's own.
# Every run is bounded (bcload -n, -limit); one run, no medians: run it
# twice before believing a difference. Needs go and jq. About 3 minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/beamclaw-cluster-bench.XXXXXX)
BIN=$WORK/beamclaw
PIDS=()

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
for tool in go jq; do
	command -v "$tool" >/dev/null || { echo "bench-cluster needs $tool" >&2; exit 1; }
done

log "building into $WORK"
(cd "$ROOT" &&
	go build -trimpath -ldflags '-s -w' -o "$BIN" ./cmd/beamclaw &&
	go build -o "$WORK/fakellm" ./test/fakellm/cmd/fakellm &&
	go build -o "$WORK/bcload" ./test/load/cmd/bcload)


"$WORK/fakellm" -addr 127.0.0.1:0 -echo >"$WORK/fake.out" 2>&1 &
PIDS+=("$!")
FAKE_URL=$(wait_line "$WORK/fake.out" 's/^fakellm listening on //p')

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# start_node NAME CLUSTER_YAML: a daemon in $WORK/NAME; sets D_ADDR, D_PID.
start_node() {
	local home=$WORK/$1
	mkdir -p "$home"
	write_daemon_config "$home/config.yaml" "$FAKE_URL" "" "$2"
	BEAMCLAW_HOME=$home BEAMCLAW_CLUSTER_TOKEN=bench-cluster-token-0123456789abcdefghij \
		"$BIN" start --foreground >"$home/stdout" 2>"$home/daemon.log" &
	D_PID=$!
	PIDS+=("$D_PID")
	D_ADDR=$(wait_line "$home/stdout" 's|^beamclaw running (pid [0-9]*) on http://\([^,]*\),.*|\1|p')
}

# cluster_yaml NODE REPLICAS CLIENT ROUTE ROUTES...
cluster_yaml() {
	local node=$1 r=$2 client=$3 route=$4
	shift 4
	local routes="" p
	for p in "$@"; do routes+="\"nats-route://127.0.0.1:$p\", "; done
	printf 'cluster:\n  enabled: true\n  name: bench\n  node_id: %s\n  client_listen: 127.0.0.1:%s\n  route_listen: 127.0.0.1:%s\n  routes: [%s]\n  replicas: %s\n' \
		"$node" "$client" "$route" "${routes%, }" "$r"
}

# ready ADDR: waits for /health ready (the cluster's quorum included).
ready() {
	local i
	for i in $(seq 600); do
		curl -fsS "http://$1/health" 2>/dev/null | jq -e .ready >/dev/null && return 0
		sleep 0.1
	done
	echo "not ready: $1" >&2
	return 1
}

load() { # KEY ADDR PID ARGS...
	local key=$1 addr=$2 pid=$3
	shift 3
	"$WORK/bcload" -addr "$addr" -fake "$FAKE_URL" -pid "$pid" -json -prefix "$key-" -limit 2m "$@" >"$WORK/$key.json"
	if [[ $(jq '.beamclaw.errors' "$WORK/$key.json") != 0 ]]; then
		echo "$key: $(jq -r '.beamclaw.first_error' "$WORK/$key.json")" >&2
		return 1
	fi
}
measure() { # KEY ADDR PID
	load "$1-c1" "$2" "$3" -mode plain -n 500 -c 1 -users 100 -warmup 100
	load "$1-c16" "$2" "$3" -mode plain -n 2000 -c 16 -users 800 -warmup 160
}
j() { jq -r "$2" "$WORK/$1.json"; }
ms() { awk '{printf "%.2f ms", $1/1e6}'; }
ps() { awk '{printf "%.0f", $1}'; }

log "alone (bbolt)"
start_node alone ""
ready "$D_ADDR"
measure alone "$D_ADDR" "$D_PID"

log "one-node cluster (JetStream R1)"
start_node r1 "$(cluster_yaml n1 1 "$(free_port)" "$(free_port)")"
ready "$D_ADDR"
measure r1 "$D_ADDR" "$D_PID"

log "three-node cluster (JetStream R3)"
c1=$(free_port) c2=$(free_port) c3=$(free_port) r1=$(free_port) r2=$(free_port) r3=$(free_port)
start_node n2 "$(cluster_yaml n2 3 "$c2" "$r2" "$r1" "$r3")"
start_node n3 "$(cluster_yaml n3 3 "$c3" "$r3" "$r1" "$r2")"
start_node n1 "$(cluster_yaml n1 3 "$c1" "$r1" "$r2" "$r3")"
ready "$D_ADDR"
measure r3 "$D_ADDR" "$D_PID"

row() { printf '| %s | %s | %s | %s |\n' "$@"; }
echo
echo "beamclaw $(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo dev), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
row "persisted turns" "alone (bbolt)" "1 node (JetStream R1)" "3 nodes (R3)"
row --- --- --- ---
row "added latency p50 / p99, c=1" "$(j alone-c1 '.added.latency.p50_ns' | ms) / $(j alone-c1 '.added.latency.p99_ns' | ms)" \
	"$(j r1-c1 '.added.latency.p50_ns' | ms) / $(j r1-c1 '.added.latency.p99_ns' | ms)" \
	"$(j r3-c1 '.added.latency.p50_ns' | ms) / $(j r3-c1 '.added.latency.p99_ns' | ms)"
row "turns/s, c=1" "$(j alone-c1 '.beamclaw.turns_per_sec' | ps)" "$(j r1-c1 '.beamclaw.turns_per_sec' | ps)" "$(j r3-c1 '.beamclaw.turns_per_sec' | ps)"
row "turns/s, c=16" "$(j alone-c16 '.beamclaw.turns_per_sec' | ps)" "$(j r1-c16 '.beamclaw.turns_per_sec' | ps)" "$(j r3-c16 '.beamclaw.turns_per_sec' | ps)"
