#!/usr/bin/env bash
# make demo: the daemon against the scripted fake LLM (test/fakellm), in a
# throwaway BEAMCLAW_HOME, so the whole flow works without an API key.
set -euo pipefail
cd "$(dirname "$0")/.."
home="$(mktemp -d /tmp/beamclaw-demo.XXXXXX)"
export BEAMCLAW_HOME="$home"
go build -o "$home/fakellm" ./test/fakellm/cmd/fakellm
"$home/fakellm" -addr 127.0.0.1:0 > "$home/fakellm.out" &
fake_pid=$!
trap 'kill $fake_pid 2>/dev/null; bin/beamclaw stop >/dev/null 2>&1 || true' EXIT
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
    addr: "127.0.0.1:18800"
YAML
bin/beamclaw start
cat <<MSG

The daemon runs against a fake LLM (BEAMCLAW_HOME=$home). Try:

  curl -s http://127.0.0.1:18800/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"default","user":"me","messages":[{"role":"user","content":"hello"}]}'
  curl -sN http://127.0.0.1:18800/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"default","user":"me","stream":true,"messages":[{"role":"user","content":"call tool read_file {\"path\":\"SOUL.md\"}"}]}'
  BEAMCLAW_HOME=$home bin/beamclaw tui

Press Enter to stop the demo.
MSG
read -r _ || true
