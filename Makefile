# TrainScope: `make run` and `make test` do all the set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
# Debug info as line tables (-g1): backtraces, crash records and perf keep function and
# file:line; the build takes a third of the disk of -g and less compile time (docs/BUILD.md,
# "How long a cold build takes"). Full -g: CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo".
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINSCOPE_WERROR=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
XVFB = xvfb-run -a -s "-screen 0 1920x1080x24"

# The sanitizer build (CMakePresets.json "asan": clang, ASan + UBSan, the libFuzzer targets,
# no GUI): `make test` runs the suite there too and each fuzz target for FUZZ_CI_SECONDS;
# `make fuzz` runs each target for FUZZ_SECONDS (FUZZ_TARGETS="chrome_import hdf5" for some).
ASAN_BUILD = build-asan
FUZZ_SECONDS ?= 60
# "ci": a fixed number of inputs per target (about 6 s each here; tests/fuzz/run_fuzz.sh)
FUZZ_CI_SECONDS ?= ci
FUZZ_TARGETS ?=
# Not run under the sanitizers (docs/BUILD.md, "The sanitizer build and the fuzz targets"):
# the tests that crash a child on purpose (a null store, a division by zero) to check the
# fatal-signal handler of the crash recorder: UBSan and ASan's SEGV handler stop the child
# first, by design. (The GUI tests and the package test are not built there: no GUI.)
ASAN_EXCLUDE ?= ^(RdrSignal|RdrSignalDisabled|Fatal/RdrSignal|RdrEngine\.RealSegfault)
SANITIZER_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# ctest starts the tests it knows to take longest first, from the durations it keeps in
# Testing/Temporary/CTestCostData.txt. A clean clone has none, and would start the longest
# (the Python hooks, a whole corpus import under ASan) last, with one core idle meanwhile:
# tests/ctest_costs/<tree>.txt (the tests over a second, from a cold run) seed a build folder
# that has no durations yet; ctest then keeps its own.
seed_costs = @f=$(1)/Testing/Temporary/CTestCostData.txt; \
  if [ ! -f $$f ]; then mkdir -p $$(dirname $$f) && cp tests/ctest_costs/$(2).txt $$f; fi

.PHONY: all deps build run test package package-test package-lint bench format clean \
  asan-build test-asan fuzz fuzz-ci

all: build

deps:
	@bash packaging/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
	  echo "make run: no display (DISPLAY is unset); run it under Xvfb instead: xvfb-run -a $(BUILD)/app/trainscope"; \
	  exit 1; \
	fi
	$(BUILD)/app/trainscope

test: build
	$(call seed_costs,$(BUILD),main)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900
	@$(MAKE) --no-print-directory test-asan fuzz-ci

$(ASAN_BUILD)/build.ninja:
	cmake --preset asan

asan-build: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The whole suite once more, under ASan + UBSan (a finding fails its test).
test-asan: asan-build
	$(call seed_costs,$(ASAN_BUILD),asan)
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) --timeout 1800 \
	  -E '$(ASAN_EXCLUDE)'

fuzz-ci: asan-build
	@$(SANITIZER_ENV) bash tests/fuzz/run_fuzz.sh $(ASAN_BUILD) $(FUZZ_CI_SECONDS)

fuzz: asan-build
	@$(SANITIZER_ENV) bash tests/fuzz/run_fuzz.sh $(ASAN_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The Debian package: $(BUILD)/trainscope_<version>_amd64.deb (packaging/CMakeLists.txt).
package: build
	cmake --build $(BUILD) --target package

# Builds the package again in a temp folder, installs it there (and with dpkg -i as root) and
# runs it: the ctest test labelled "package", which `make test` runs with the others.
package-test: build
	cd $(BUILD) && ctest -L package --output-on-failure

# lintian is not among the dependencies (large); install it with apt-get install lintian.
package-lint: package
	@command -v lintian >/dev/null || { echo "make package-lint: apt-get install lintian"; exit 1; }
	lintian --info --display-info $(BUILD)/trainscope_*_amd64.deb

bench: build
	@bash packaging/install-deps.sh --bench
	@bash bench/run_all.sh $(BUILD)

# Formats every source with clang-format 14 (Debian 12's clang-format-14, the version the
# ctest format.clang_format checks against: packaging/check-format.sh).
format:
	find app core views importers tests bench -name '*.cpp' -o -name '*.h' -o -name '*.cu' | xargs clang-format-14 -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
