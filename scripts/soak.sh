#!/usr/bin/env bash
# soak.sh — the kill -9 soak (make soak CYCLES=N SESSIONS=N).
#
# Builds the stripped binary (as `make build`), the fake provider and
# test/load/cmd/bcsoak, starts the fake on 127.0.0.1, and runs bcsoak: a home
# grown to SESSIONS stored sessions over HTTP (kept in SOAK_HOME, so the next
# soak reuses it), then CYCLES rounds of start, 4 clients writing, kill -9,
# and a check that no acknowledged turn was lost or doubled. Prints exec to
# ready after kill -9 (p50, p95, max) and the start-up phases. Each start
# after a kill -9 finds the database dropped from the page cache (as other
# work on the machine leaves it); SOAK_FLAGS=-cold=false keeps it cached.
# SOAK_BIN=PATH soaks that binary instead of this tree's (a before/after
# comparison). Filling 100,000 sessions takes about 5 minutes; a cycle about
# 2 s, the final check of every soak user's history about 10 s.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/go-toolchain.sh
. "$ROOT/scripts/lib/go-toolchain.sh"
CYCLES=${CYCLES:-20}
SESSIONS=${SESSIONS:-100000}
SOAK_HOME=${SOAK_HOME:-/tmp/beamclaw-soak-home-$SESSIONS}
WORK=$(mktemp -d /tmp/beamclaw-soak.XXXXXX)
FAKE_PID=

cleanup() {
	[[ -z $FAKE_PID ]] || { kill "$FAKE_PID" 2>/dev/null || true; wait "$FAKE_PID" 2>/dev/null || true; }
	rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" &&
	go build -trimpath -ldflags '-s -w' -o "$WORK/beamclaw" ./cmd/beamclaw &&
	go build -o "$WORK/fakellm" ./test/fakellm/cmd/fakellm &&
	go build -o "$WORK/bcsoak" ./test/load/cmd/bcsoak)

"$WORK/fakellm" -addr 127.0.0.1:0 -echo >"$WORK/fake.out" 2>&1 &
FAKE_PID=$!
FAKE_URL=
for _ in $(seq 200); do
	FAKE_URL=$(sed -n 's/^fakellm listening on //p' "$WORK/fake.out" | head -1)
	[[ -n $FAKE_URL ]] && break
	sleep 0.05
done
[[ -n $FAKE_URL ]] || { echo "the fake provider did not start:" >&2; cat "$WORK/fake.out" >&2; exit 1; }

mkdir -p "$SOAK_HOME"
echo "== soak: home $SOAK_HOME, $SESSIONS sessions, $CYCLES cycles" >&2
"$WORK/bcsoak" -bin "${SOAK_BIN:-$WORK/beamclaw}" -fake "$FAKE_URL" -home "$SOAK_HOME" \
	-sessions "$SESSIONS" -cycles "$CYCLES" ${SOAK_FLAGS:-}
