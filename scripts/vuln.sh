#!/usr/bin/env bash
# make vuln (and make check): govulncheck over ./... against the Go
# vulnerability database, offline. The database is golang.org/x/vulndb's
# OSV reports, fetched as a module through the module proxy and turned into
# the v1 layout govulncheck reads (-db file://) by x/vulndb's own
# cmd/indexdb, once per vulndb version (~/.cache/beamclaw-test/vulndb).
# govulncheck is built by the project's toolchain (it type-checks go1.27
# code), once per toolchain and version. test/cmd/vulncheck then fails on
# every vulnerability the code calls that scripts/vuln-allow.txt does not
# allow, and on an allowed one no longer called; imported but uncalled ones
# are only counted.
#   VULNDB_VERSION=latest scripts/vuln.sh   checks against the newest
#                                           database the proxy serves
#   VULN_ALLOW=FILE                         another allowlist
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/go-toolchain.sh

VULN_VERSION=v1.9.0                                       # golang.org/x/vuln (govulncheck)
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}  # golang.org/x/vulndb
CACHE=${BEAMCLAW_TEST_CACHE:-$HOME/.cache/beamclaw-test}
ALLOW=${VULN_ALLOW:-scripts/vuln-allow.txt}
say() { echo "vuln: $*" >&2; }

# Module commands run outside this module, which does not require them.
outside() { (cd "${TMPDIR:-/tmp}" && "$@"); }

if [ "$VULNDB_VERSION" = latest ]; then
  VULNDB_VERSION=$(outside go list -m -f '{{.Version}}' golang.org/x/vulndb@latest)
fi

tool="$CACHE/tools/$GOTOOLCHAIN/govulncheck-$VULN_VERSION/govulncheck"
if [ ! -x "$tool" ]; then
  say "building govulncheck $VULN_VERSION with $GOTOOLCHAIN"
  outside env GOBIN="$(dirname "$tool")" go install "golang.org/x/vuln/cmd/govulncheck@$VULN_VERSION"
fi

db="$CACHE/vulndb/$VULNDB_VERSION"
if [ ! -f "$db/index/modules.json" ]; then
  say "building the vulnerability database from golang.org/x/vulndb@$VULNDB_VERSION (once; a minute or two on a new machine)"
  src=$(outside go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src/data/osv" ] || { say "no data/osv in golang.org/x/vulndb@$VULNDB_VERSION ($src)"; exit 2; }
  mkdir -p "$CACHE/vulndb"
  tmp=$(mktemp -d "$CACHE/vulndb/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  outside go run "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION" -vulns "$src/data/osv" -out "$tmp/db"
  rm -rf "$db" && mv "$tmp/db" "$db"
fi

out=$(mktemp /tmp/beamclaw-vuln.XXXXXX.json)
trap 'rm -f "$out"; [ -z "${tmp:-}" ] || rm -rf "$tmp"' EXIT
say "govulncheck $VULN_VERSION, database golang.org/x/vulndb@$VULNDB_VERSION, allowlist $ALLOW"
"$tool" -db "file://$db" -format json ./... > "$out"
go run ./test/cmd/vulncheck -allow "$ALLOW" < "$out"
