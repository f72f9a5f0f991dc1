#!/usr/bin/env bash
# Builds the beamclaw image (docker/Dockerfile) from a static binary.
# Usage: scripts/docker-image.sh [TAG]   (default beamclaw:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/go-toolchain.sh
tag="${1:-beamclaw:latest}"
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION:-dev} -X main.commit=${COMMIT:-unknown}" \
  -o "$ctx/beamclaw" ./cmd/beamclaw
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || { echo "no CA bundle at $ca (install ca-certificates)" >&2; exit 1; }
cp "$ca" "$ctx/ca-certificates.crt"
mkdir "$ctx/data"
cp docker/Dockerfile "$ctx/Dockerfile"
docker build -q -t "$tag" "$ctx"
