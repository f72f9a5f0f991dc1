# beamclaw-go — `make help` lists the targets.
SHELL     := bash
# The toolchain: go.mod's go line names it, and the machine's own Go (which
# ignores a toolchain line) fetches it from the module proxy (ADR-033).
export GOTOOLCHAIN := go1.27.3
GO        ?= go
BIN       ?= bin/beamclaw
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
STATICCHECK_VERSION := v0.8.2
# Tools that type-check the code are built by the same toolchain (one built
# by an older Go refuses go1.27 packages), into a cache keyed by both.
TOOLS     ?= $(HOME)/.cache/beamclaw-test/tools/$(GOTOOLCHAIN)
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
GOFMT      = "$$($(GO) env GOROOT)/bin/gofmt"
BENCH_PKGS ?= ./...

.PHONY: help build run deps test e2e lint vuln bench bench-load bench-cluster soak check fmt tidy demo docker clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## build the stripped binary into bin/beamclaw
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/beamclaw

run: build ## build and run the daemon in the foreground
	$(BIN) start --foreground

deps: ## install what the tests drive and a fresh machine lacks, start Docker's engine (scripts/test-deps.sh; SKIP_DEPS=1 skips)
	@[ -n "$(SKIP_DEPS)" ] || scripts/test-deps.sh

test: deps ## every test with the race detector (unit, integration, end-to-end); lists skipped tests at the end
	@$(GO) build -o /tmp/beamclaw-testsummary ./test/cmd/testsummary
	set -o pipefail; $(GO) test -race -count=1 -timeout 30m -json ./... | /tmp/beamclaw-testsummary $(if $(filter-out false 0,$(CI)),-fail-missing)

e2e: deps ## only the end-to-end suites that drive the real binary
	$(GO) test -race -count=1 -timeout 20m ./test/...

lint: ## go vet and staticcheck
	$(GO) vet ./...
	@[ -x $(STATICCHECK) ] || GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) ./...

vuln: ## govulncheck offline (x/vulndb through the module proxy): fails on a called vulnerability not in scripts/vuln-allow.txt
	scripts/vuln.sh

bench: ## benchmarks with allocations (compare runs with benchstat)
	$(GO) test -run '^$$' -bench . -benchmem -count=6 $(BENCH_PKGS)

bench-load: ## load benchmark: the real binary beside a bare reverse proxy on loopback (about 5 minutes)
	scripts/bench-load.sh

bench-cluster: ## persisted turns alone (bbolt), in a 1-node cluster (JetStream R1) and in a 3-node cluster (R3), on loopback (about 3 minutes)
	scripts/bench-cluster.sh

soak: ## kill -9 soak: exec-to-ready after kill -9 with SESSIONS stored sessions, CYCLES times, nothing acknowledged lost or doubled (scripts/soak.sh)
	CYCLES=$(or $(CYCLES),20) SESSIONS=$(or $(SESSIONS),100000) scripts/soak.sh

fmt: ## gofmt every file
	$(GOFMT) -w $$(git ls-files '*.go')

tidy: ## go mod tidy
	$(GO) mod tidy

check: ## formatting, tidy go.mod, lint, known vulnerabilities, tests (with the import-graph test)
	@test -z "$$($(GOFMT) -l $$(git ls-files '*.go'))" || ($(GOFMT) -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1)
	@cp go.mod /tmp/beamclaw-go.mod.bak; cp go.sum /tmp/beamclaw-go.sum.bak; $(GO) mod tidy; \
	  if ! git diff --quiet -- go.mod go.sum; then echo 'go.mod/go.sum not tidy'; git diff --stat -- go.mod go.sum; \
	  cp /tmp/beamclaw-go.mod.bak go.mod; cp /tmp/beamclaw-go.sum.bak go.sum; exit 1; fi
	$(MAKE) lint
	$(MAKE) vuln
	$(MAKE) test

demo: build ## run the daemon against the scripted fake LLM: no API key needed
	./scripts/demo.sh

docker: ## build the beamclaw:latest image (static binary on scratch)
	VERSION=$(VERSION) COMMIT=$(COMMIT) ./scripts/docker-image.sh beamclaw:latest

clean: ## remove build output
	rm -rf bin
