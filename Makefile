# The commands a newcomer needs: `make demo` runs skillsync on the bundled example
# workspace, `make test` runs every test.
GO        ?= go
BIN       := bin/skillsync
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME  ?= 20s

.PHONY: build demo test lint fuzz clean

build:
	$(GO) build -o $(BIN) ./cmd/skillsync

demo: build
	./scripts/demo.sh $(BIN)

test:
	$(GO) test -race ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# Each fuzz target for FUZZTIME (go test runs one -fuzz target at a time).
fuzz:
	$(GO) test ./banner -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./desired/render -run '^$$' -fuzz '^FuzzFrontMatterRoundTrip$$' -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
