# Every entry point a person or CI uses. `make run` and `make test` need only Go, make, Node 20 and npm.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO      ?= go
MODULES := domain ports adapters frontdoors gen schemas agents tools
PKGS    := $(addsuffix /...,$(addprefix ./,$(MODULES)))
# The semantic version is main.version in frontdoors/cmd/abcd/main.go (CHANGELOG.md names each one);
# the build stamps only the commit beside it.
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || true)
LDFLAGS := -s -w -X main.commit=$(COMMIT)
# BUILDFLAGS=-v names each package as it compiles (make run passes it on a first build).
BUILDFLAGS ?=
BIN     := bin/abcd
FUZZTIME ?= 30s
SOAKTIME ?= 5m
export ABCD_BIN := $(CURDIR)/$(BIN)

.PHONY: build install run test test-go test-short test-tools vet lint cross fmt-check schemas schemas-check schemas-publish bench fuzz soak clean tools-deps test-harness harness-deps browser

build: ## build bin/abcd, and bin/abcd-history beside it (the helper holding the history store)
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./frontdoors/cmd/abcd ./frontdoors/cmd/abcd-history

install: ## put abcd on your PATH: go install into $$(go env GOBIN), else $$(go env GOPATH)/bin
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./frontdoors/cmd/abcd ./frontdoors/cmd/abcd-history
	@echo "installed abcd in $$($(GO) env GOBIN || true)$$( [ -n "$$($(GO) env GOBIN)" ] || echo "$$($(GO) env GOPATH)/bin" ); that folder must be on your PATH"

# On a first build (no bin/abcd yet, usually a cold Go cache too) the compile takes minutes, so make
# run says what it is doing and names each package as it compiles; later builds stay quiet.
run: ## the main job: a guided walkthrough of the build loop, end to end, in a scratch repository it creates
	@if [ -x $(BIN) ]; then \
	  $(MAKE) --no-print-directory build; \
	else \
	  echo "make run: first build of $(BIN): Go downloads the modules go.work needs (SQLite included) and compiles each package named below; a few minutes on a cold cache, seconds after" >&2; \
	  $(MAKE) --no-print-directory build BUILDFLAGS=-v; \
	fi
	$(GO) run ./tools/demo -abcd $(BIN)

test: fmt-check vet lint cross schemas-check build test-go test-tools ## everything CI runs

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; echo "run: gofmt -w $(MODULES)"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# golangci-lint is built from the module proxy at the version tools/golangci/go.mod pins (its go.sum
# holds every dependency's hash), into bin/, on first use and again whenever that pin changes. Its
# own module stays outside go.work, so its dependencies never enter the product's build list.
GOLANGCI := bin/golangci-lint

lint: $(GOLANGCI) ## golangci-lint (.golangci.yml) over every module's packages, test files included
	$(GOLANGCI) run $(PKGS)

$(GOLANGCI): tools/golangci/go.mod tools/golangci/go.sum
	cd tools/golangci && GOWORK=off CGO_ENABLED=0 $(GO) build -trimpath -o $(CURDIR)/$(GOLANGCI) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

CROSS := linux/amd64 darwin/arm64 windows/amd64

cross: ## every package builds and vets (test files included) for linux, darwin and windows
	@for target in $(CROSS); do \
	  echo "cross $$target"; \
	  GOOS=$${target%/*} GOARCH=$${target#*/} CGO_ENABLED=0 $(GO) build $(PKGS); \
	  GOOS=$${target%/*} GOARCH=$${target#*/} CGO_ENABLED=0 $(GO) vet $(PKGS); \
	done

test-go: tools-deps ## every module's tests, the full matrices included (the Go interop tests start the npm stand-ins, so the npm packages come first)
	$(GO) test -count=1 -timeout 25m work

test-short: ## the inner loop: every module's tests without the long matrices (under 30 s on 2 cores)
	$(GO) test -short work

tools-deps: tools/node_modules/.package-lock.json

tools/node_modules/.package-lock.json: tools/package.json tools/package-lock.json
	npm ci --prefix tools --no-audit --no-fund --loglevel=error

test-tools: build tools-deps ## interop: real third-party consumers, the MCP SDK clients and conformance suite, the example extensions, against the built binary
	node --test --test-reporter=spec tools/contract/ tools/mcp/ tools/openai/ tools/extensions/

harness-deps: tools/harness/node_modules/.package-lock.json

tools/harness/node_modules/.package-lock.json: tools/harness/package.json tools/harness/package-lock.json
	npm ci --prefix tools/harness --no-audit --no-fund --loglevel=error

test-harness: build tools-deps harness-deps browser ## the harness command lines themselves (Claude Code, Codex, Gemini CLI): docs/mcp.md's registrations, the Claude Code plugin, the runner route driving each against a loopback stand-in of its vendor's API (ABCD_RECORD_FIXTURES=1 records their streams as fixtures), and implement run taking a spec to its end with them
	node --test --test-reporter=spec tools/harness/
	ABCD_RUNNER_CLIS=$(CURDIR)/tools/harness/node_modules/.bin ABCD_BROWSER="$$(command -v chromium)" ABCD_ARTEFACTS=$(CURDIR)/bin/artefacts \
		$(GO) test -count=1 -run Harness -v ./adapters/runner/ ./frontdoors/cmd/abcd/

# The run's page is opened in headless Chromium (TestHarnessTheRunsPageInChromium): Debian's chromium,
# installed here when it is missing (as root, or through sudo without a prompt), never skipped.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

browser:
	@command -v chromium >/dev/null || { echo "make: installing Debian's chromium for the page test"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends chromium; }
	@command -v chromium >/dev/null || { echo "make: chromium is not installed and could not be: make test-harness opens the run's page in it"; exit 1; }

schemas: ## regenerate schemas/v1 from the Go types
	$(GO) run ./gen

schemas-check: ## fail on any drift between schemas/v1 and the Go types
	$(GO) run ./gen -check

schemas-publish: ## record NAMES (comma list or all) as published: gen then refuses to change their meaning
	$(GO) run ./gen -publish '$(NAMES)'

BENCH_OUT := bin/bench

bench: build tools-deps harness-deps ## side-by-side ratios against reference runs in the same invocation; writes docs/performance.md
	mkdir -p $(BENCH_OUT) && rm -f $(BENCH_OUT)/*
	echo "$$(date +%s) $$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)" > $(BENCH_OUT)/start
	$(GO) run ./tools/bench/coldstart -md $(BENCH_OUT)/coldstart.md
	$(GO) run ./tools/mcp/bench -md $(BENCH_OUT)/mcp.md
	$(GO) run ./tools/mcp/rpbench | tee $(BENCH_OUT)/rpbench.txt
	$(GO) run ./tools/bench/records -md $(BENCH_OUT)/records.md
	$(GO) run ./tools/bench/lintchanged -md $(BENCH_OUT)/lintchanged.md
	$(GO) run ./tools/bench/loop | tee $(BENCH_OUT)/loop.txt
	$(GO) run ./tools/bench/openai | tee $(BENCH_OUT)/openai.txt
	$(GO) run ./tools/bench/runner -md $(BENCH_OUT)/runner.md
	$(GO) run ./tools/bench/acp -md $(BENCH_OUT)/acp.md
	$(GO) run ./tools/bench/sandbox -md $(BENCH_OUT)/sandbox.md
	$(GO) run ./tools/bench/guard -md $(BENCH_OUT)/guard.md
	$(GO) run ./tools/bench/rules -md $(BENCH_OUT)/rules.md
	$(GO) run ./tools/bench/history -md $(BENCH_OUT)/history.md
	$(GO) run ./tools/bench/otel -md $(BENCH_OUT)/otel.md
	cd frontdoors/internal/jsonschema/benchref && GOWORK=off $(GO) run . | tee $(CURDIR)/$(BENCH_OUT)/jsonschema.txt
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS) | tee $(BENCH_OUT)/gotest.txt
	$(GO) run ./tools/bench/page -in $(BENCH_OUT) -out docs/performance.md

fuzz: ## run every fuzz target for FUZZTIME each
	@for spec in $$($(GO) test -list '^Fuzz' $(PKGS) 2>/dev/null | grep -E '^(Fuzz|ok)' | awk '/^Fuzz/{f=f" "$$1} /^ok/{if(f!=""){print $$2":"f}; f=""}' | tr ' ' ','); do \
	  pkg=$${spec%%:*}; for f in $$(echo $${spec#*:} | tr ',' ' '); do \
	    echo "fuzz $$pkg $$f ($(FUZZTIME))"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg; \
	  done; done

soak: tools-deps ## parallel writers on the record and one run, and kill -9 on every write path, through the built binary, for SOAKTIME (make test runs them briefly)
	$(GO) test -count=1 -timeout 0 -v -run 'Soak|Captures|ExitThree|KillNine' ./tools/soak -soak=$(SOAKTIME)

clean:
	rm -rf bin tools/node_modules tools/harness/node_modules
