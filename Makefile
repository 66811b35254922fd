# privmap: make run opens the GUI, make test runs every check.
# Both install what is missing first (make deps).

SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin
# C.UTF-8 is in every Debian's libc; en_US.UTF-8 may not be generated,
# and Perl (dpkg, lintian) then warned of the locale.
export LANG := C.UTF-8

GO      ?= go
BIN     ?= privmap
SHOT    ?= screenshot.png
# make test's smoke screenshots go to a temporary folder of their own,
# removed once the smoke test has looked at them, so that neither the
# tree nor the temporary folder keeps them, unless SHOT is given on the
# command line.
TEST_SHOT := $(if $(filter command line,$(origin SHOT)),$(SHOT))
# Packages tested with the race detector: every package but the GUI's
# (app/gui and the root package run headless with CGO_ENABLED=0 instead),
# listed by go list so that a new package is never left out.
HEADLESS_PKGS := ./app/gui/ .
RACE_PKGS = $$($(GO) list ./... | grep -v -x -e '.*/app/gui' -e 'github.com/privmap/privmap')
STATICCHECK := inherit,ST1000,ST1003,ST1016,ST1020,ST1021,ST1022
# Packages with native fuzz targets, and how long make fuzz runs each.
FUZZ_PKGS ?= ./core ./geo ./geo/census ./app/pipeline ./app/basemap ./app/cli ./internal/parquetcheck
FUZZTIME  ?= 10s

# Debian packages: the C toolchain and X11/OpenGL headers that Fyne's cgo
# driver builds against, Xvfb, xdotool and ImageMagick for the GUI
# smoke test and screenshots, and GDAL and Poppler, whose tools check
# the GIS layers and the reports the tests write.
APT_PKGS := gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev \
	libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev \
	xvfb xauth libgl1-mesa-dri xdotool imagemagick gdal-bin poppler-utils

.PHONY: all deps build release run test lint unit unit-race unit-headless smoke-test fuzz smoke screenshot bench package package-windows generate clean

all: build

# The packages' tools: dpkg-shlibdeps, lintian and appstreamcli for the
# Linux packages, MinGW-w64, zip and wine for the Windows one and its test.
PACKAGE_APT_PKGS := dpkg-dev lintian appstream zip unzip
WINDOWS_APT_PKGS := gcc-mingw-w64-x86-64 imagemagick zip unzip wine wine64

# apt-install installs the Debian packages of $(1) that are missing
# (apt-get update first), as root or through sudo.
define apt-install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo -n "$$p "; done); \
	if [ -n "$$missing" ]; then \
		cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing"; \
		if [ "$$(id -u)" = 0 ]; then echo "make: installing $$missing"; bash -c "$$cmd"; \
		elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then echo "make: installing $$missing"; sudo bash -c "$$cmd"; \
		else echo "make: missing Debian packages: $$missing"; echo "run as root:  $$cmd"; exit 1; fi; \
	fi
endef

## deps: install missing Debian packages (apt-get update first) and Go modules
deps:
	@command -v $(GO) >/dev/null || { echo "make deps: Go 1.26 or newer is needed on PATH (or in /usr/local/go/bin); see README.md, Two commands"; exit 1; }
	$(call apt-install,$(APT_PKGS))
	@$(GO) mod download

## build: the privmap binary (cgo, Fyne's GLFW driver), stamped with its
## commit when built in a git checkout (reports print it)
build: deps
	$(GO) build -buildvcs=auto -o $(BIN) .

## release: a stripped build with Fyne's threading checks opted in
release: deps
	$(GO) build -buildvcs=auto -tags migrated_fynedo -trimpath -ldflags="-s -w" -o $(BIN) .

## run: open the GUI on the embedded default data
run: build
	./$(BIN)

## test: lint, unit tests (race detector off the GUI), the GUI smoke test
## and, when CI is set (or FUZZ=1), every fuzz target for FUZZTIME; make
## fuzz runs them on its own. The checks run $(TEST_JOBS) at a time: the
## race tests do not wait for cgo's build of OpenGL (minutes, one core)
## that go vet and the binary need.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_GOALS = lint unit-race $(if $(or $(CI),$(FUZZ)),fuzz) unit-headless smoke-test
test: deps
	+@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(if $(CI),--output-sync=target) $(TEST_GOALS)

lint:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) tool staticcheck -checks $(STATICCHECK) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) tool gocyclo -over 15 -ignore '_test\.go$$' .

unit: unit-race unit-headless

# The timeouts are sized for a loaded machine (two cores under
# stress-ng --cpu 4 took app/cli's race tests 25 minutes, against 7
# unloaded), so that only a test that hangs reaches them: no test
# measures wall-clock time.
unit-race:
	$(GO) test -race -count=1 -timeout 80m $(RACE_PKGS)

unit-headless:
	CGO_ENABLED=0 $(GO) test -tags ci -count=1 -timeout 60m $(HEADLESS_PKGS)

# smoke-test is make test's smoke test: after lint, whose go vet has
# built OpenGL's cgo package that the binary links, so that the two never
# build it at once.
smoke-test: build | lint
	@shots=$$(mktemp -d); trap 'rm -rf "$$shots"' EXIT; \
	.ci/smoke ./$(BIN) $(or $(TEST_SHOT),"$$shots/screenshot.png")

## fuzz: every native fuzz target for $(FUZZTIME) (make fuzz FUZZTIME=10m
## locally); a finding fails, and go test writes it to the package's
## testdata/fuzz, where it stays as a regression case once fixed
## (.ci/fuzz also reruns a target stopped by Go 1.26's fuzz deadline race)
fuzz: deps
	GO=$(GO) .ci/fuzz $(FUZZTIME) $(FUZZ_PKGS)

## smoke: start the real binary under its own Xvfb and check its window
smoke: build
	.ci/smoke ./$(BIN) $(SHOT)

## screenshot: write $(SHOT), a screenshot of the GUI under Xvfb
screenshot: smoke

## bench: speed and memory benchmarks, all of them without a time limit
## (hours: each of BenchmarkOracles' million-user rows on 4,096 symbols
## takes minutes); BENCH selects, e.g.
## make bench BENCH='BenchmarkOracles/olh/K=384/'
BENCH ?= .
bench: deps
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -timeout 0 ./...

## package: the Linux packages in dist/ (a .deb checked by lintian and a
## .tar.xz, each with the .desktop file, icon, AppStream metainfo and man
## page), then their install test: the .deb unpacked with dpkg -x runs
## privmap version and the README's San Francisco pipeline
package: deps
	$(call apt-install,$(PACKAGE_APT_PKGS))
	GO=$(GO) .ci/package dist
	.ci/package-test dist

## package-windows: privmap.exe cross-built with MinGW-w64 (icon, version
## resource) zipped with its licences in dist/, then run under wine: its
## version and a grid/simulate/estimate pipeline whose files must equal,
## byte for byte, those of the Linux build
package-windows: build
	$(call apt-install,$(WINDOWS_APT_PKGS))
	GO=$(GO) .ci/package-windows dist
	.ci/package-windows-test ./$(BIN) dist

## generate: rebuild the embedded default data and icon
generate:
	$(GO) generate ./assets

clean:
	rm -rf $(BIN) $(SHOT) *.tar.xz dist
