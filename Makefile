# gpuscope — build, serve and test the simulator.
#
#   make serve   build the site into site/dist and serve it on localhost:8080
#   make build   write the complete static site into site/dist
#   make site    make build, and say where the course is (built from site/course)
#   make test    everything CI checks (installs Chromium/Node.js when root)
#   make bench   every speed and size budget, compared with bench/baseline.json
#   make bench-baseline  make bench, recorded as the new baseline (BENCHMARKS.md)
#   make soak    the heaviest lesson on a loop for 10 minutes in headless
#                Chromium: heap and frame time must stay flat (not in make test)
#   make font    regenerate the canvas font subset (render/font) from the sources
#   make clean   remove build and test output

GO        ?= go
ADDR      ?= localhost:8080
DIST      := site/dist
WASM_PKG  ?= ./wasm
GOROOT    := $(shell $(GO) env GOROOT)
# Go 1.24 moved wasm_exec.js from misc/wasm to lib/wasm.
WASM_EXEC := $(firstword $(wildcard $(GOROOT)/lib/wasm/wasm_exec.js $(GOROOT)/misc/wasm/wasm_exec.js))
WASM_PATH := $(dir $(WASM_EXEC))
SITE_SRC  := site/index.html site/embed.html site/style.css site/loader.js site/favicon.svg
# The site's public address: oEmbed files need absolute URLs
# (make build BASE_URL=https://example.org/gpuscope/).
BASE_URL  ?= http://$(ADDR)/
# gzip budget for main.wasm, in bytes (3.15 MB, MB = 10^6 bytes: issue
# 16's 1.3× a bare Ebiten program; it was 3.5 MB).
WASM_GZ_BUDGET := 3150000

.PHONY: all build site serve test test-go test-wasm bench bench-baseline bare posters clean wasm frozen soak font brotli

all: build

build: wasm
	@mkdir -p $(DIST)
	cp $(SITE_SRC) $(DIST)/
	cp site/embed.js $(DIST)/
	@mkdir -p $(DIST)/i18n
	cp scenarios/i18n/en.txt scenarios/i18n/zh.txt $(DIST)/i18n/
	gzip -9 -k -f $(DIST)/i18n/en.txt $(DIST)/i18n/zh.txt
	@$(MAKE) --no-print-directory brotli BROTLI_FILES="$(DIST)/i18n/en.txt $(DIST)/i18n/zh.txt"
	# The lessons' files, which main.wasm does not embed either: one
	# bundle, each file after a line "=== data/NAME" (scenarios.LoadBundle).
	{ for f in scenarios/data/curriculum.txt scenarios/data/*.scn; do printf '=== %s\n' "$${f#scenarios/}"; sed -e '$$a\' "$$f"; done; } > $(DIST)/scenarios.txt
	gzip -9 -k -f $(DIST)/scenarios.txt
	@$(MAKE) --no-print-directory brotli BROTLI_FILES="$(DIST)/scenarios.txt"
	@mkdir -p $(DIST)/examples
	cp -r site/examples/. $(DIST)/examples/
	@mkdir -p $(DIST)/posters
	cp site/posters/*.png $(DIST)/posters/
	@test -n "$(WASM_EXEC)" || { echo "wasm_exec.js not found under $(GOROOT)/lib/wasm or misc/wasm" >&2; exit 1; }
	cp $(WASM_EXEC) $(DIST)/wasm_exec.js
	$(GO) run ./cmd/gpuscope site --dist $(DIST) --base $(BASE_URL)
	@echo "built $(DIST)/ (main.wasm $$(wc -c < $(DIST)/main.wasm) bytes, gzip $$(wc -c < $(DIST)/main.wasm.gz) bytes$$(test -f $(DIST)/main.wasm.br && echo ", brotli $$(wc -c < $(DIST)/main.wasm.br) bytes"))"

# The course (site/course: lessons in Markdown beside the simulator) is
# built by make build's `gpuscope site` step; this says where it is.
site: build
	@echo "the course: $(DIST)/course/en/index.html (中文: $(DIST)/course/zh/index.html); make serve, then open http://$(ADDR)/course/en/"

# Inlining, in WebAssembly, copies a function's body — with the
# stack-switching prologue every Go wasm function carries — into each
# caller: measured on main.wasm (gzip -9, 2026-12-01), inlining in every
# package costs 466 kB of the 3.38 MB. It is kept where a frame, the
# start-up or the planner's search spends its time: the Go runtime,
# Ebiten, syscall/js (every WebGL call), sync, math, sort, slices,
# strconv, unicode and internal/... (small helpers the hot paths call: a
# package compiled with -l offers none of its functions for inlining), our
# painter (render/paint: the display list onto WebGL) and the engine's
# search and event loop (engine/parallel, engine/sim). render itself, the builders of the display lists, is compiled
# with -l since the mixture-of-experts lesson: 59 kB of gzip (3.171 →
# 3.112 MB) for 0–5% of a picture's build (scene.BenchmarkHeaviestFrame
# natively: pipeline-parallel 9.9 → 10.1 µs, 3d-parallel 14.3 → 15.1 µs,
# tensor-parallel 32.7 → 34.1 µs, medians of three). Everything else — the standard library's parsers, fmt, reflect,
# text/template and math/big that Ebiten's shader compiler and our loaders
# pull in, the lessons, the page glue — is compiled with -l: 3.093 MB
# instead of 3.379 MB, and the page's frames and first frame measured the
# same within the machine's noise (`make bench`). Since the fp8-training
# and rack-scale-nvlink lessons (3.173 MB without this), the engine keeps
# inlining only where the search and the event loop run (engine/parallel,
# engine/sim: the 405B search under Node is 0.90 s inlined, 1.73 s not),
# and Ebiten's shader compiler, run once at start-up, is compiled with -l:
# 3.146 MB. Since the sandbox, slices and sort are compiled with -l too
# (3.3 kB of gzip, and the 405B search under Node the same: 0.93 s, 0.94
# s), and strconv since latent attention's knobs (1.4 kB; math without
# inlining would save 3.5 kB but slow that search 1.13 → 1.57 s). Of the
# standard library's internal packages only internal/runtime/... (maps,
# atomics) and internal/sync keep their inlining: −13.5 kB of gzip, the
# search under Node 0.93–1.02 s before, 0.97–1.07 s after (this machine's
# spread). When a package matches several patterns, the last one wins.
WASM_GCFLAGS ?= -gcflags=all=-l -gcflags=runtime/...= -gcflags=github.com/hajimehoshi/...= \
	-gcflags=syscall/js= -gcflags=sync/...= -gcflags=math= -gcflags=math/bits= \
	-gcflags=unicode/...= -gcflags=internal/runtime/...= -gcflags=internal/sync= \
	-gcflags=github.com/gpuscope/gpuscope/render/paint/...= -gcflags=github.com/gpuscope/gpuscope/engine/parallel= \
	-gcflags=github.com/gpuscope/gpuscope/engine/sim= -gcflags=github.com/hajimehoshi/ebiten/v2/internal/shader/...=-l

# Always rebuilt: go build is incremental, and make cannot see Go's
# dependency graph. -tags i18nfetch leaves every catalogue and the lessons'
# files out of main.wasm: the page fetches English and the reader's
# catalogue (i18n/LANG.txt) and scenarios.txt (both written
# by make build). cmd/wasmopt then merges the linker's 100,000 data
# segments (their headers are ≈ 180 KB of gzip) and checks that the
# module still lays out the same memory.
#
# main.wasm is built with Ebiten's built-in shaders frozen (cmd/shaderfreeze:
# a copy of the module in out/frozen whose shader sources are not made by a
# text/template at run time; linking text/template's executor keeps every
# exported method of every type in the program: 465 kB of main.wasm's gzip,
# 3.228 → 2.763 MB). The bare yardstick (make bare) is Ebiten as shipped:
# 2.42 MB gzip, 1.77 MB frozen the same way.
FROZEN := out/frozen
wasm: frozen
	@mkdir -p $(DIST)
	GOOS=js GOARCH=wasm $(GO) build -modfile=$(FROZEN)/go.mod -trimpath -tags i18nfetch -ldflags="-s -w" $(WASM_GCFLAGS) -o $(DIST)/main.wasm $(WASM_PKG)
	$(GO) run ./cmd/wasmopt $(DIST)/main.wasm
	gzip -9 -k -f $(DIST)/main.wasm
	@$(MAKE) --no-print-directory brotli BROTLI_FILES=$(DIST)/main.wasm

frozen:
	$(GO) run ./cmd/shaderfreeze -o $(FROZEN)

# FILE.br beside FILE for each of BROTLI_FILES (gpuscope serve sends it to
# browsers that accept br), with Debian's brotli at -q 11: about 30 s of
# CPU for main.wasm, so it is skipped when FILE's content has not changed
# since (.FILE.br.sum; a dotfile, which the server never serves). Without
# the brotli command the site is built with .gz copies only.
brotli:
	@if ! command -v brotli >/dev/null 2>&1; then \
	  echo "brotli not installed: no .br copies of $(notdir $(BROTLI_FILES)) (apt-get install brotli)"; exit 0; \
	fi; \
	for f in $(BROTLI_FILES); do \
	  sum="$$(dirname $$f)/.$$(basename $$f).br.sum"; \
	  new="$$(sha256sum < $$f)"; \
	  if [ -f $$f.br ] && [ "$$(cat $$sum 2>/dev/null)" = "$$new" ]; then touch $$f.br; continue; fi; \
	  echo "brotli -q 11 $$f"; \
	  brotli -q 11 -k -f $$f && echo "$$new" > $$sum || exit 1; \
	done

serve: build
	$(GO) run ./cmd/gpuscope serve --addr $(ADDR) --dir $(DIST)

test:
	@.ci/deps.sh
	@echo "==> gofmt"
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	@echo "==> go vet"
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(WASM_PKG)/...
	GOOS=js GOARCH=wasm $(GO) vet -tags i18nfetch $(WASM_PKG)
	@echo "==> go test (native)"
	GPUSCOPE_REQUIRE_SSG=1 $(GO) test ./...
	$(GO) test -tags i18nfetch ./scenarios/i18n/
	@echo "==> go test (wasm, under Node.js) beside make build"
	@$(MAKE) --no-print-directory -j2 -O test-wasm build
	@echo "==> browser tests (headless Chromium, two tabs at a time)"
	GPUSCOPE_REQUIRE_SSG=1 GPUSCOPE_REQUIRE_FONTS=1 GPUSCOPE_SITE_DIR="$(CURDIR)/$(DIST)" $(GO) test -count=1 -timeout 30m ./site/browsertest/...
	@echo "make test: OK (gofmt, vet, native tests, wasm tests, build, browser tests; screenshots in out/screens/)"

# The Go tests of make test, natively and as WebAssembly under Node.js.
# make test runs the native ones alone (the CLI's trial holds commands to
# a CPU budget, which a build beside them inflates) and the wasm ones
# beside make build (the browser tests need the site, the Go tests do
# not), with room for a machine busy with the build (a package's 10-minute
# default was reached once).
test-go:
	GPUSCOPE_REQUIRE_SSG=1 $(GO) test ./...
	$(GO) test -tags i18nfetch ./scenarios/i18n/
	@$(MAKE) --no-print-directory test-wasm

# Under Node.js with -short: the same tests, the heaviest on a sample (a
# third of the engine's refusals, the searches below 1,024 GPUs, the
# ring's closed form for memory; testing.Short() in each) — the native run
# above runs them whole; this one checks the engine and the lessons give
# the same answers as WebAssembly.
test-wasm:
	PATH="$(WASM_PATH):$$PATH" GOOS=js GOARCH=wasm $(GO) test -short -timeout 30m ./engine/... ./scenarios/...

# make bench: runs of each Go benchmark, and of the page benchmark (about
# 4 minutes each); medians are compared.
BENCH_COUNT ?= 5
BENCH_PAGE_RUNS ?= 1

# Every budget the issues named: the Go benchmarks (-p 1: one package at a
# time, so they do not share the cores), the plan search as WebAssembly
# under Node.js, the page in headless Chromium, then cmd/benchcheck: wasm
# sizes (brotli too when the brotli command exists), budgets pass/fail, and
# every figure against bench/baseline.json. A figure more than 10% worse
# than recorded is a REGRESSION and make bench fails (BENCH_WARN_ONLY=1:
# warn only). BENCH_UPDATE=1 (make bench-baseline) records the run instead:
# bench/baseline.json and the table in BENCHMARKS.md.
bench: build bare
	@mkdir -p out
	@{ $(GO) test -p 1 -run='^$$' -bench=. -benchmem -count=$(BENCH_COUNT) ./engine/... ./render/ ./scene/ ./scenarios/ ./bench/; echo $$? > out/bench-go.rc; } | tee out/bench-go.txt; exit $$(cat out/bench-go.rc)
	@echo "plan search as WebAssembly under Node.js (the browser budget is 1 s):"
	@{ PATH="$(WASM_PATH):$$PATH" GOOS=js GOARCH=wasm $(GO) test -run='^$$' -bench='Search405B|SearchDeepSeekV3' -benchtime=3x -count=3 ./engine/parallel/; echo $$? > out/bench-wasm.rc; } | tee out/bench-wasm.txt; exit $$(cat out/bench-wasm.rc)
	@rm -f out/bench-page-*.txt
	@for i in $$(seq $(BENCH_PAGE_RUNS)); do \
	  echo "the page in headless Chromium, run $$i of $(BENCH_PAGE_RUNS) (about 4 minutes):"; \
	  GPUSCOPE_BENCH=1 GPUSCOPE_SITE_DIR="$(CURDIR)/$(DIST)" $(GO) test -count=1 -timeout 20m -run '^TestBenchPage$$' ./site/browsertest/ > out/bench-page.log 2>&1 || { cat out/bench-page.log; exit 1; }; \
	  sed -n '/^# The figures above/q;p' out/bench-page.txt; cp out/bench-page.txt out/bench-page-$$i.txt; \
	done
	$(GO) run ./cmd/benchcheck -wasm $(DIST)/main.wasm -bare $(DIST)/bare/bare.wasm -gzip-budget $(WASM_GZ_BUDGET) \
	  out/bench-go.txt out/bench-wasm.txt out/bench-page-*.txt

# make bench, recorded: rewrites bench/baseline.json and the table in
# BENCHMARKS.md from this run (then commit both, with a word on the machine).
bench-baseline:
	@BENCH_UPDATE=1 $(MAKE) --no-print-directory bench

# Issue 9's soak test (site/browsertest/soak_test.go): 3d-parallel at its
# largest, speed 4, played on a loop for GPUSCOPE_SOAK_MINUTES of wall time;
# after a warm-up the Go and JS heaps and the frame time must stay flat.
# Samples in out/soak.csv, the verdict in out/soak.txt.
# GPUSCOPE_SOAK_MINUTES=3 make soak for a shorter run.
GPUSCOPE_SOAK_MINUTES ?= 10

soak: build
	@mkdir -p out && rm -f out/soak.csv out/soak.txt
	GPUSCOPE_SOAK=1 GPUSCOPE_SOAK_MINUTES=$(GPUSCOPE_SOAK_MINUTES) GPUSCOPE_SITE_DIR="$(CURDIR)/$(DIST)" $(GO) test -count=1 -timeout 0 -v -run '^TestSoak$$' ./site/browsertest/; \
	 rc=$$?; cat out/soak.txt 2>/dev/null; exit $$rc

# The yardstick for size and time to first frame: a bare Ebiten program,
# served from site/dist/bare/ during make bench only.
bare:
	@mkdir -p $(DIST)/bare
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(DIST)/bare/bare.wasm ./wasm/bare
	gzip -9 -k -f $(DIST)/bare/bare.wasm
	cp wasm/bare/index.html wasm/bare/bare.js $(DIST)/bare/
	cp $(WASM_EXEC) $(DIST)/bare/wasm_exec.js

# The canvas font: Go Regular cut down to the runes the builders' literals
# and the catalogues hold (render/font/goregular-subset.ttf and runes.go,
# committed; a test in make test fails when they are stale).
font:
	$(GO) generate ./render/font

# Renders the embed's poster images (site/posters/ID-THEME.png, ID-THEME-zh.png
# in Chinese) and the handouts' figures (ID-handout-LANG.png) from the real
# renderer in headless Chromium, so it needs Chromium. The PNGs are committed,
# so make build does not need Chromium.
posters:
	@$(MAKE) --no-print-directory build
	$(GO) run ./cmd/posters --site $(DIST) --out site/posters

clean:
	rm -rf $(DIST) out site/browsertest/testdata/failed
