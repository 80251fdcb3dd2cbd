# TrainScope: `make run` and `make test` do all the set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINSCOPE_WERROR=ON
XVFB = xvfb-run -a -s "-screen 0 1920x1080x24"

.PHONY: all deps build run test package package-test package-lint bench format clean

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
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

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

format:
	find app core views importers tests bench -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
