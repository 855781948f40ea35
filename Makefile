# The commands a newcomer needs: `make demo` runs skillsync on the bundled example
# workspace, `make test` runs every test.
GO        ?= go
BIN       := bin/skillsync
# What `skillsync version` reports for a build from this checkout.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE      ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# Every platform skillsync ships for (docs/platforms.md).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64
GORELEASER := github.com/goreleaser/goreleaser/v2@v2.15.1
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Empty: each fuzz target runs its own number of inputs (below); FUZZTIME=30s runs
# each for a time instead.
FUZZTIME  ?=

.PHONY: build install demo test test-portable schema-check cross dist dist-check cask-check npm-packages npm-check renovate-check e2e bench bench-smoke bench-scaling bench-watch bench-mcp bench-serve reliability lint fuzz clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/skillsync

# `make install` builds skillsync as `make build` does, its version from git describe,
# into the directory `go install` uses (GOBIN, else GOPATH/bin), so the two never
# leave two different skillsyncs on PATH; PREFIX=/usr/local puts it in
# $(PREFIX)/bin instead, and DESTDIR stages either under another root for packaging.
PREFIX ?=
DESTDIR ?=
BINDIR ?= $(if $(PREFIX),$(PREFIX)/bin,$(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin))
install:
	mkdir -p "$(DESTDIR)$(BINDIR)"
	$(GO) build -ldflags "$(LDFLAGS)" -o "$(DESTDIR)$(BINDIR)/skillsync$(shell $(GO) env GOEXE)" ./cmd/skillsync

demo: build
	./scripts/demo.sh $(BIN)

# GORACE: a race-built program sleeps a second before it exits unless told not
# to, and go test starts one per package (and the tests start hundreds more).
test:
	GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race ./...

# The whole suite again on the portable filesystem implementation (os.Root and the
# standard library) that macOS, Windows and the BSDs run, instead of Linux's own.
test-portable:
	GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -tags skillsync_portable ./...

# The JSON Schemas in schema/ as editors read them: installs the pinned
# yaml-language-server with npm into schema/.cache (once), drives it over LSP, and
# checks it finds nothing wrong with the bundled workspaces and the expected
# mistake in each broken document. YAML_LANGUAGE_SERVER_VERSION=… overrides the
# version. (`make test` checks the schemas with a Go validator, without Node.)
schema-check:
	$(GO) test -tags editor -count=1 -timeout 10m -run TestYAMLLanguageServer ./schema/

# Builds the command and vets every package, tests included, for every platform,
# so a platform break cannot land unnoticed; then builds the container image's
# binary as the Dockerfile does, for each of its platforms, and runs it as the
# image would (deploy/image_test.go).
cross:
	@set -e; for p in $(PLATFORMS); do \
	  echo "cross: $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./cmd/skillsync; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet -tags e2e ./test/e2e/...; \
	done
	$(GO) test -tags image -count=1 -run 'TestImageProcessContract|TestImageBinaryForEachPlatform' ./deploy/

# Release archives for every platform, with checksums, and the Homebrew cask in
# dist/ (GoReleaser's snapshot mode: nothing is published). dist-check validates
# .goreleaser.yaml; cask-check, after dist, checks the cask names the archives.
dist:
	$(GO) run $(GORELEASER) release --snapshot --clean
dist-check:
	$(GO) run $(GORELEASER) check
cask-check:
	./scripts/cask_check.sh

# The npm packages, after dist: skillsync (a launcher) and one @skillsync/cli-<os>-<cpu>
# per binary, in dist/npm/ (scripts/npm_packages.js, templates in packaging/npm/).
# npm-check makes them, installs the launcher and this machine's package offline
# from their tarballs, and checks `npx skillsync` is the dist binary (needs Node, npm).
npm-packages:
	node scripts/npm_packages.js
npm-check:
	./scripts/npm_check.sh

# The Renovate preset's custom managers, run with Node's RegExp against real
# skillsync.yaml files (Renovate itself needs Node 24; go test ./deploy runs the
# same patterns under RE2, Renovate's engine).
renovate-check:
	node --test deploy/renovate/

# Real-client conformance: installs the pinned Claude Code and Qwen Code with npm
# into test/e2e/.cache (once) and drives them against a mock model API on 127.0.0.1;
# runs the Agent Skills reference validator (skills-ref) over every generated skill;
# builds the pinned cosign with go install (once) and checks that each verifies what
# the other signs.
# Override the versions with E2E_CLAUDE_VERSION=… E2E_QWEN_VERSION=… E2E_SKILLS_REF_VERSION=….
e2e:
	$(GO) test -tags e2e -count=1 -timeout 30m -v -run 'TestConformance|TestMCPSources|TestReferenceValidator|TestWholeSkillRuns|TestPersonalSkills|TestUserWorkspaceSkills|TestCodexSideFile|TestCopilotAllowedTools|TestGitSourceSkillRuns|TestSignedCatalogWithCosign|TestNodeImageStartsAnNpxServer' ./test/e2e/

# One-shot commands against the file-I/O floor and the peers rulesync and ruler
# (installed with npm into test/bench/.cache), N = 100, 1000, 10000, then 1 000 whole
# skill directories of 10 files against cp -r of their tree, then a git source of
# 1 000 skills against git clone --depth 1, and an OCI source of 1 000 skills against
# oras pull (the oras CLI built from its module); prints the tables and writes
# test/bench/results/latest.md. Takes about three quarters of an hour. Capabilities
# are fifty to a registry file, then one and a thousand at N = 1 000 and 10 000
# (-per-file, -per-file-sizes). The whole skills alone:
# go run ./test/bench/reconcile -sizes '' -gitsource '' -skilldirs 1000 -out /tmp/skilldirs.md
bench:
	$(GO) run ./test/bench/reconcile
	$(GO) run ./test/bench/servelatency

# Every part of make bench's one-shot benchmark on small workspaces, one run each,
# without the peers: CI runs it so that a benchmark that stops working is noticed
# (a run that fails prints "failed:" in its table). The figures mean nothing.
bench-smoke:
	@out=$$(mktemp -d) && \
	if ! $(GO) run ./test/bench/reconcile -sizes 100 -per-file 50,1 -per-file-sizes 100 -skilldirs 20 \
		-gitsource 20 -ocisource 20 -peers=false -runs 1 -out $$out/reconcile.md > $$out/log 2>&1; then \
		cat $$out/log; rm -rf $$out; exit 1; \
	fi; \
	if grep -n 'failed:' $$out/reconcile.md; then rm -rf $$out; exit 1; fi; \
	rm -rf $$out; echo "bench-smoke: every series of the one-shot benchmark ran"

# The cold run's growth from N = 1 000 to N = 10 000 against the write floor's, the
# sizes timed in turn so the shared disk's drift slows both alike; a few minutes.
bench-scaling:
	$(GO) run ./test/bench/reconcile -scaling -sizes 1000,10000 -runs 7

# Watcher latency, idle CPU and memory (test/bench/watchlatency) with 1, 50 and 1 000
# capabilities to a registry file (-per-file), and a saved supporting file of a whole
# skill against a saved SKILL.md (-skilldirs 1000); about ten minutes.
bench-watch:
	$(GO) run ./test/bench/watchlatency

# How soon a tool an MCP server adds is a skill on disk (test/bench/mcplatency); seconds.
bench-mcp:
	$(GO) run ./test/bench/mcplatency

# skillsync serve over stdio: skills/list of 1 000 skills against ping, and a
# registry save to the notification (test/bench/servelatency); part of make bench.
bench-serve:
	$(GO) run ./test/bench/servelatency

# The adversarial suites (test/reliability/): a table of suites, cases and failures.
# CI runs them with RELIABILITY_CASES=2000; locally the defaults are larger.
RELIABILITY_CASES ?= 10000
RELIABILITY_KILLS ?= 200
# The property tests of the caches and the one-shot index explore a new seed at
# each run here (make test runs each with seed 1), or PROPERTY_SEED's; a failure
# prints its seed.
reliability:
	cd test/reliability && RELIABILITY_CASES=$(RELIABILITY_CASES) RELIABILITY_KILLS=$(RELIABILITY_KILLS) \
	  $(GO) test -tags reliability -count=1 -timeout 60m
	@seed=$${PROPERTY_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	  echo "property tests: seed $$seed (PROPERTY_SEED=$$seed make reliability replays it)"; \
	  set -x; CACHE_CASES=$(RELIABILITY_CASES) INCREMENTAL_CASES=$(RELIABILITY_CASES) INDEX_CASES=$(RELIABILITY_CASES) CONFIGMAP_SWAPS=50 \
	  CACHE_SEED=$$seed INCREMENTAL_SEED=$$seed INDEX_SEED=$$seed CONFIGMAP_SEED=$$seed $(GO) test -count=1 -timeout 30m \
	  -run 'TestCacheProperty|TestTrustedCacheProperty|TestIncrementalAgreesWithFromScratch|TestTheIndexNeverAnswersAChangedWorkspace|TestWatchFollowsConfigMapUpdates' ./desired/registry/ ./controller/ ./controller/watch/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./test/e2e/...
	$(GO) vet -tags reliability ./test/reliability/...
	$(GO) vet -tags editor ./schema/
	$(GO) run $(STATICCHECK) ./...
	$(GO) vet -tags skillsync_portable ./internal/workspacefs/
	$(GO) run $(STATICCHECK) -tags skillsync_portable ./internal/workspacefs/
	@# Every package as macOS and Windows see it (their own files, and code
	@# that is dead on them): a staticcheck built for this machine, run with GOOS.
	@bin=$$(mktemp -d) && GOBIN=$$bin $(GO) install $(STATICCHECK) && \
	  for os in darwin windows; do echo "staticcheck: GOOS=$$os"; GOOS=$$os $$bin/staticcheck ./... || { rm -rf $$bin; exit 1; }; done; \
	  rm -rf $$bin
	$(GO) run $(STATICCHECK) -tags e2e ./test/e2e/...
	$(GO) run $(STATICCHECK) -tags reliability ./test/reliability/...
	$(GO) run $(STATICCHECK) -tags editor ./schema/

# Each fuzz target for a number of inputs, about 20 s each on a 2-core machine (go
# test runs one -fuzz target at a time). A count rather than a duration: Go 1.26's
# fuzz coordinator can fail a target with "context deadline exceeded" when a
# -fuzztime duration ends on a loaded machine, with no failing input
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race.
fuzz:
	$(GO) test ./internal/banner -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(or $(FUZZTIME),2000000x)
	$(GO) test ./desired/render -run '^$$' -fuzz '^FuzzFrontMatterRoundTrip$$' -fuzztime $(or $(FUZZTIME),20000x)
	$(GO) test ./desired/render -run '^$$' -fuzz '^FuzzPlainFrontMatter$$' -fuzztime $(or $(FUZZTIME),800000x)
	$(GO) test ./desired/registry -run '^$$' -fuzz '^FuzzParseAndValidate$$' -fuzztime $(or $(FUZZTIME),130000x)
	$(GO) test ./controller/plan -run '^$$' -fuzz '^FuzzPlan$$' -fuzztime $(or $(FUZZTIME),360000x)

clean:
	rm -rf bin dist
