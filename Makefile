# kvscope — build, serve and test.
#   make serve   build the page and serve it on http://localhost:$(PORT)
#   make test    every test: vet, native, wasm under Node, browser (Chromium)
GO        ?= go
PORT      ?= 8080
GOROOT    := $(shell $(GO) env GOROOT)
# Runs GOOS=js test binaries under Node like $(GOROOT)/lib/wasm/go_js_wasm_exec,
# with the SIMD kernels (static/kernels.wasm) wired into their imports by
# static/kernels.js: a program linking core/internal/kernels cannot be
# instantiated without them. KVSCOPE_KERNELS=none runs it on the Go path.
WASM_EXEC_JS := $(CURDIR)/core/internal/kernels/testdata/exec_node.js
WASM_EXEC    := node --stack-size=8192 $(WASM_EXEC_JS)
MODEL_SRC ?= ../shared/models/stories260K.gguf
CHROMIUM  ?= /usr/bin/chromium
# apt-get runs as root here; elsewhere (a CI runner) through sudo.
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# $(call apt_install,COMMAND,PACKAGE) installs PACKAGE when COMMAND is
# missing. make test builds side by side, and two apt-gets at once fail on
# apt's lock: flock makes them take turns, and the second looks again
# once it has the lock.
define apt_install
	@command -v $(1) >/dev/null 2>&1 || flock /tmp/kvscope-apt.lock sh -c 'command -v $(1) >/dev/null 2>&1 || { \
	  echo "installing $(2)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; }'
endef

# Packages free of Ebiten and syscall/js: tested natively and as wasm
# (WASM_PKGS: all but the command line, which never runs as wasm).
PURE_PKGS    := ./core/... ./viz/view/... ./viz/scene/...
WASM_PKGS     = $(shell $(GO) list $(PURE_PKGS) | grep -v /cmd/)
# Packages that only build for the browser (Ebiten without cgo, syscall/js).
JS_PKGS      := ./viz/... ./wasm/...
BROWSER_PKGS := ./wasm/e2e/...
GO_SOURCES   := $(shell find core viz wasm -name '*.go' 2>/dev/null) go.mod go.sum

.PHONY: all build serve model site test-site test vet test-native test-wasm test-browser chromium wabt bench bench-wasm bench-kernels bench-native bench-wllama measure screenshot chart-picture embed-picture chart-export-pictures clean

all: build

build: static/main.wasm static/wasm_exec.js static/worker.wasm static/main.wasm.gz static/worker.wasm.gz static/kernels.wasm

# -s -w: no symbol table or DWARF in the download (panics still print Go
# stack traces from the runtime's own tables).
WASM_LDFLAGS := -s -w

static/main.wasm: $(GO_SOURCES)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="$(WASM_LDFLAGS)" -o $@ ./wasm

# The gzipped copies a static host would send (make serve and the browser
# tests send them the same way: wasm/internal/site).
%.wasm.gz: %.wasm
	gzip -9 -n -c $< > $@

# The sweep worker: the core engine without drawing, run by
# static/sweep-worker.js in a Web Worker for the memory-versus-fidelity chart.
static/worker.wasm: $(GO_SOURCES)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="$(WASM_LDFLAGS)" -o $@ ./wasm/worker

static/wasm_exec.js: $(GOROOT)/lib/wasm/wasm_exec.js
	cp $< $@

# The WebAssembly SIMD kernels the Go program calls on its own memory
# (core/internal/kernels; static/kernels.js wires them in), assembled by
# Debian's wabt, installed when missing.
WAT2WASM := wat2wasm
static/kernels.wasm: core/internal/kernels/kernels.wat | wabt
	$(WAT2WASM) $< -o $@

wabt:
	$(call apt_install,$(WAT2WASM),wabt)

# The test model is placed beside the page when it is available; the page
# also accepts a file the visitor picks.
model:
	@if [ -f "$(MODEL_SRC)" ]; then cp "$(MODEL_SRC)" static/stories260K.gguf; \
	else echo "note: $(MODEL_SRC) not found; real-model mode will ask for a .gguf file"; fi

serve: build model
	$(GO) run ./wasm/serve -dir static -addr localhost:$(PORT)

# A folder any static host serves as it is (GitHub Pages: .github/workflows/
# pages.yml): the page, its wasm files and their gzipped copies, the
# workers, and the built-in model when MODEL_SRC is there (without it the
# page explains how to get it). The README's pictures (PNG, SVG) stay out.
SITE ?= .site
site: build model
	rm -rf $(SITE) && mkdir -p $(SITE)
	find static -maxdepth 1 -type f ! -name '*.png' ! -name '*.svg' -exec cp {} $(SITE)/ \;
	@echo "site: $(SITE) ($$(du -sh $(SITE) | cut -f1))"

# What the Pages workflow runs, on this machine: fetch-model.sh keeps a
# model whose sha256 is right and refuses one whose sha256 is wrong, then
# make site builds the folder the browser tests serve under a sub-path.
SITE_TEST := $(CURDIR)/.site
test-site: build model
	@if [ -f "$(MODEL_SRC)" ]; then \
	  d=$$(mktemp -d); sum=$$(sha256sum "$(MODEL_SRC)" | cut -d' ' -f1); \
	  .github/scripts/fetch-model.sh "file://$(abspath $(MODEL_SRC))" "$$sum" "$$d/m.gguf" && \
	  if .github/scripts/fetch-model.sh "file://$(abspath $(MODEL_SRC))" "0$${sum#?}" "$$d/bad.gguf" 2>/dev/null; then \
	    echo "test-site: fetch-model.sh kept a file with the wrong sha256"; exit 1; fi; \
	  [ ! -e "$$d/bad.gguf" ] || { echo "test-site: a refused download was left behind"; exit 1; }; \
	  $(MAKE) --no-print-directory site SITE=$(SITE_TEST) MODEL_SRC="$$d/m.gguf"; rm -rf "$$d"; \
	else $(MAKE) --no-print-directory site SITE=$(SITE_TEST); fi

vet:
	@unformatted=$$(gofmt -l core viz wasm); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet $(PURE_PKGS)
	GOOS=js GOARCH=wasm $(GO) vet $(JS_PKGS) ./core/internal/kernels
	$(GO) vet ./wasm/serve ./wasm/e2e ./wasm/worker ./wasm/internal/site

# llama.cpp as the tests' oracle (node-llama-cpp's prebuilt CPU library, pinned
# in core/model/llamacpp/package-lock.json), installed when missing.
LLAMACPP_DIR := core/model/llamacpp
.PHONY: llamacpp
llamacpp:
	@[ -d $(LLAMACPP_DIR)/node_modules ] || (cd $(LLAMACPP_DIR) && npm ci --omit=optional --no-audit --no-fund)

# KVSCOPE_LLAMACPP=1: tests comparing with llama.cpp fail rather than skip.
test-native: llamacpp
	KVSCOPE_LLAMACPP=1 $(GO) test -count=1 $(PURE_PKGS)
	$(GO) test -count=1 ./wasm/worker ./wasm/internal/site

# The kernels' tests demand the SIMD path here, then run once more on the
# wasm Go path (no module attached); glue_test.js tests static/kernels.js.
# -short leaves out the long tests that only repeat the native run's
# arithmetic (core/internal/testenv.NativeOnly): the wasm run checks the port.
test-wasm: static/kernels.wasm
	KVSCOPE_WANT_PATH="wasm simd128" GOOS=js GOARCH=wasm $(GO) test -short -count=1 -exec="$(WASM_EXEC)" $(WASM_PKGS)
	KVSCOPE_KERNELS=none KVSCOPE_WANT_PATH=go GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" ./core/internal/kernels
	node --test core/internal/kernels/testdata/glue_test.js

# Debian's Chromium, installed when missing (CI starts from a clean machine).
chromium:
	$(call apt_install,$(CHROMIUM),chromium)

test-browser: chromium build model test-site
	@if [ -d wasm/e2e ]; then KVSCOPE_SITE=$(SITE_TEST) KVSCOPE_CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -timeout 25m $(BROWSER_PKGS); \
	else echo "no browser tests yet"; fi

# vet, the native, wasm and browser tests run side by side (none of them
# times anything; each target's output stays together): the browser tests
# start once the page is built, and mostly wait on the page, so the other
# suites use what they leave of the cores.
test:
	$(MAKE) --no-print-directory -j4 --output-sync=target vet test-native test-wasm test-browser

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PURE_PKGS)

# The README's wasm speed figures: under Node with V8's optimizing tier
# from the start (--no-liftoff), the code a page runs once it is warm. With
# V8's default tiering, the first tens of seconds of a process run partly
# on its baseline compiler and measure up to 40 % slower.
WASM_EXEC_OPT := node --no-liftoff --stack-size=8192 $(WASM_EXEC_JS)
bench-wasm: static/kernels.wasm
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC_OPT)" -run='^$$' -bench='BenchmarkStep$$' -benchtime=1000x -count=2 ./core/sim
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC_OPT)" -run='^$$' -bench=Seed000 -benchtime=2000x -count=3 ./core/kv
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC_OPT)" -run='^$$' -bench='BenchmarkSweep' -benchtime=1x -count=2 ./core/sim

# The SIMD kernels against their Go path, under Node as bench-wasm runs
# (GFLOP/s per matrix shape); natively there is only the Go path.
bench-kernels: static/kernels.wasm
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC_OPT)" -run='^$$' -bench=. -count=3 ./core/internal/kernels

# One kvscope decoder natively beside llama.cpp native, one thread each
# (node-llama-cpp's prebuilt CPU library), on the files of core/model/bench
# (synthesized once into $$TMPDIR/kvscope-shapes): decode and prompt
# tokens per second and their ratios, as a table. Figures need a quiet
# machine.
bench-native: llamacpp
	KVSCOPE_BENCH=1 KVSCOPE_LLAMACPP=1 $(GO) test -count=1 -v -timeout 60m -run '^TestNative$$' ./core/model/bench

# wllama (llama.cpp compiled to WebAssembly with SIMD; the npm package
# pinned in wasm/e2e/testdata/wllama/package-lock.json, installed when
# missing) on one thread beside one kvscope decoder in the sweep worker on
# the SIMD kernels, in one tab of the same headless Chromium, on the same
# files as bench-native: decode and prompt tokens per second and the ratios
# kvscope ÷ wllama, as a table (wasm/e2e/bench_test.go). Not part of make
# test. Figures need a quiet machine.
WLLAMA_DIR := wasm/e2e/testdata/wllama
.PHONY: wllama
wllama:
	@[ -f $(WLLAMA_DIR)/node_modules/@wllama/wllama/esm/index.js ] || (cd $(WLLAMA_DIR) && npm ci --no-audit --no-fund)

bench-wllama: chromium build wllama
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_BENCH=1 $(GO) test -count=1 -v -timeout 120m -run '^TestBenchWllama$$' $(BROWSER_PKGS)

# The README's page figures (presented first frame, slider-to-map latency,
# replay speed, a long link's main thread, frame times), measured by the
# browser tests' harness as a visitor sees them. Figures need a quiet
# machine.
measure: chromium build model
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_MEASURE=1 $(GO) test -count=1 -v -timeout 150m \
	  -run 'TestPresentedFirstFrame|TestGoInit|TestSliderLatency|TestReplaySpeed|TestLongLinkMainThread|TestFrameTimes|TestChartSweep|TestRealShapesInPage|TestPlayFrames|TestRealModelFigures|TestRealShapeMemory|TestDocumentFirstStep' $(BROWSER_PKGS) | grep -E '^\s+\S+_test.go'

# The README's picture of the page, taken by the browser tests' harness.
screenshot: chromium build model
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_SCREENSHOT=$(CURDIR)/static/screenshot.png $(GO) test -count=1 -run 'TestScreenshot$$' $(BROWSER_PKGS)

# The README's picture of the memory-versus-fidelity chart (static/chart.js
# drawing the default stream's sweep), taken by headless Chromium.
chart-picture: chromium
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_CHART_PNG=$(CURDIR)/static/chart.png $(GO) test -count=1 -run TestChartPicture ./wasm/worker

# The README's picture of the embedded view at 640×360 (#embed=1, the
# size of the page's embed code), taken by the browser tests' harness.
embed-picture: chromium build model
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_EMBED_PNG=$(CURDIR)/static/embed.png $(GO) test -count=1 -run 'TestEmbedFits$$' $(BROWSER_PKGS)

# The README's pictures of the chart as the page exports it: the PNG, the
# SVG, and the SVG as headless Chromium renders it.
chart-export-pictures: chromium build model
	KVSCOPE_CHROMIUM=$(CHROMIUM) KVSCOPE_EXPORT_PICTURES=$(CURDIR)/static $(GO) test -count=1 -run 'TestExportPictures$$' $(BROWSER_PKGS)

clean:
	rm -f static/main.wasm static/worker.wasm static/kernels.wasm static/*.wasm.gz static/wasm_exec.js static/*.gguf
