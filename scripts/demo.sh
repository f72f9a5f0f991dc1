#!/usr/bin/env bash
# make demo: the daemon against the scripted fake LLM (test/fakellm), in a
# throwaway BEAMCLAW_HOME, so the whole flow works without an API key.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/go-toolchain.sh
home="$(mktemp -d /tmp/beamclaw-demo.XXXXXX)"
export BEAMCLAW_HOME="$home"
go build -o "$home/fakellm" ./test/fakellm/cmd/fakellm
"$home/fakellm" -addr 127.0.0.1:0 > "$home/fakellm.out" &
fake_pid=$!
# Leave nothing behind: the daemon, the fake and the throwaway home.
trap 'bin/beamclaw stop >/dev/null 2>&1 || true; kill $fake_pid 2>/dev/null || true; rm -rf "$home"' EXIT
for _ in $(seq 100); do grep -q listening "$home/fakellm.out" 2>/dev/null && break; sleep 0.05; done
url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$home/fakellm.out")"
cat > "$home/config.yaml" <<YAML
core:
  default_provider: fake
  providers:
    fake:
      base_url: "$url"
      model: fake-model
gateway:
  http:
    addr: "127.0.0.1:0"   # a free port: a daemon already on 18800 is left alone
YAML
bin/beamclaw start
addr="$(bin/beamclaw status --json | sed -n 's/.*"http_addr": *"\([^"]*\)".*/\1/p')"
cat <<MSG

The daemon runs against a fake LLM (BEAMCLAW_HOME=$home). Try:

  curl -s http://$addr/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"default","user":"me","messages":[{"role":"user","content":"hello"}]}'
  curl -sN http://$addr/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"default","user":"me","stream":true,"messages":[{"role":"user","content":"call tool read_file {\"path\":\"SOUL.md\"}"}]}'
  BEAMCLAW_HOME=$home bin/beamclaw tui
  BEAMCLAW_HOME=$home bin/beamclaw chat -m "hello"

Press Enter to stop the demo (its home, $home, is removed).
MSG
read -r _ || true
