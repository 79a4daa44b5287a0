# tcgen: build, test and bundle. `make run` and `make test` are the two
# commands a fresh machine needs (README.md).
GO        ?= go
BIN       := bin/tcgen
# Fuzz budgets are durations per target: execution counts took 10 s to
# 577 s a target on 2 cores (FuzzCSR maps a file per input), close to go
# test's 600 s timeout. 20 s for each of the 9 targets keeps CI's fuzzing
# near 3 minutes; FUZZTIMEOUT (go test -timeout) fails a target that hangs.
# scripts/fuzz.sh tolerates Go 1.26's bare deadline error (golang/go#75804).
FUZZTIME  ?= 20s
FUZZTIMEOUT ?= 3m
# Minimizing each new interesting input may take 60 s by default and looks
# like a stall; 5 s keeps the budget predictable.
FUZZMIN   ?= 5s
GPUDIR    := .gpu
DATASETS  ?= ../shared/datasets
# Packages whose tests need a GPU; their test binaries travel in the bundle
# (./tests: the end-to-end tests, run there on the bundle's bin/tcgen).
GPU_TEST_PKGS := ./runtime/executor ./runtime/cuda ./runtime/nvml ./autotune ./tests

.PHONY: all build test vet fmt-check fuzz run generate check-generated lint bundle bench-cpu clean

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/tcgen

# -timeout 20m: runtime/executor's tests took 591 s of go test's default
# 600 in a clean-clone CI run on 2 cores, the other packages beside them.
test: vet fmt-check
	$(GO) test -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Each fuzz target runs for FUZZTIME (go test allows one -fuzz target per run).
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMIN=$(FUZZMIN) FUZZTIMEOUT=$(FUZZTIMEOUT) scripts/fuzz.sh

# The main job on an embedded default: the seeded RMAT scale-16 graph,
# counted on the GPU when tcgen has one, else on the CPU (it says which).
run: build
	@mkdir -p $(GPUDIR)/run
	./$(BIN) graph rmat --scale 16 -o $(GPUDIR)/run/rmat16.tcsr
	./$(BIN) count $(GPUDIR)/run/rmat16.tcsr --backend auto

generate:
	$(GO) generate ./...

# CI fails when checked-in generated files drift from their generators.
check-generated: generate
	@git diff --exit-code --stat -- generated runtime/cuda/zz_generated.go schemas || \
	  (echo "generated files drifted: run make generate and commit"; exit 1)
	@untracked=$$(git ls-files --others --exclude-standard -- generated); \
	  if [ -n "$$untracked" ]; then echo "untracked generated files: $$untracked"; exit 1; fi

lint: vet fmt-check check-generated

# Everything the GPU machine (CUDA, no Go) needs, in the ignored .gpu/.
# Stripped (-s -w): the bundle travels to the GPU machine, whose working
# tree may not exceed 64 MiB; symbols are not needed there.
bundle:
	@mkdir -p $(GPUDIR)/bin $(GPUDIR)/tests
	CGO_ENABLED=1 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags='-s -w' -o $(GPUDIR)/bin/tcgen ./cmd/tcgen
	@for p in $(GPU_TEST_PKGS); do \
	  n=$$(echo $$p | sed 's|^\./||; s|/|_|g'); \
	  CGO_ENABLED=1 GOOS=linux GOARCH=amd64 $(GO) test -c -ldflags='-s -w' -o $(GPUDIR)/tests/$$n.test $$p || exit 1; \
	done
	@# BASE=<commit>: that commit's tcgen too, as bin/tcgen-base, so
	@# scripts/gpu-pivot.sh (BINS) times it beside this tree's in one call.
	@rm -rf $(GPUDIR)/bin/tcgen-base $(GPUDIR)/specs-base
	@if [ -n "$(BASE)" ]; then \
	  rm -rf $(GPUDIR)/base && git worktree add --detach $(GPUDIR)/base $(BASE) >/dev/null && \
	  (cd $(GPUDIR)/base && CGO_ENABLED=1 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags='-s -w' -o ../bin/tcgen-base ./cmd/tcgen) && \
	  rm -rf $(GPUDIR)/specs-base && mkdir -p $(GPUDIR)/specs-base/ir && cp -r $(GPUDIR)/base/examples $(GPUDIR)/specs-base/ && \
	  cp -r $(GPUDIR)/base/ir/testdata $(GPUDIR)/specs-base/ir/; \
	  st=$$?; git worktree remove --force $(GPUDIR)/base; exit $$st; \
	fi
	@if [ -d $(DATASETS) ]; then rm -rf $(GPUDIR)/datasets; cp -r $(DATASETS) $(GPUDIR)/datasets; chmod -R u+w $(GPUDIR)/datasets; fi
	@# What travels: carry .gpu/bundle.tgz (unpacked by scripts/gpu-session.sh),
	@# .gpu/datasets and, when resuming, .gpu/tuning.db and .gpu/cache.tgz.
	tar czf $(GPUDIR)/bundle.tgz -C $(GPUDIR) bin tests $$(cd $(GPUDIR) && ls -d specs-base 2>/dev/null)
	@du -sh $(GPUDIR)/bundle.tgz $(GPUDIR)/datasets

bench-cpu: build
	scripts/bench-cpu.sh
	SKIP_RSS=1 scripts/bench-cpu-ingest.sh

clean:
	rm -rf bin $(GPUDIR)/bin $(GPUDIR)/tests
