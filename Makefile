# Doublet — everything a fresh clone needs: `make demo` and `make test`.
# Both create the virtual environment in .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
EXT    := client-vscode
NPM_STAMP := $(EXT)/node_modules/.installed
# The platform the .vsix is for, in VS Code's names (vsce package --target): linux-x64,
# linux-arm64, darwin-x64, darwin-arm64 or win32-x64; this machine's unless given
# (make vsix PLATFORM=win32-x64 builds it here too: pip fetches that platform's wheels).
HOST_PLATFORM := $(shell uname -s | sed -e 's/^Linux$$/linux/' -e 's/^Darwin$$/darwin/' -e 's/^MINGW.*/win32/' -e 's/^MSYS.*/win32/')-$(shell uname -m | sed -e 's/^x86_64$$/x64/' -e 's/^amd64$$/x64/' -e 's/^aarch64$$/arm64/')
PLATFORM ?= $(HOST_PLATFORM)
VSIX   := $(EXT)/doublet-$(PLATFORM)-$(VERSION).vsix
BUNDLE := $(EXT)/scripts/bundle_libs.py

.PHONY: demo test test-python test-extension test-vscode test-report test-deps lint vsix vsix-lock bench bench-quality bench-speed bench-setup clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Doublet needs Python 3.10 or newer; this is " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

demo: $(STAMP)
	$(BIN)/doublet scan examples

test: test-python test-extension test-vscode test-report

test-python: $(STAMP) test-deps
	$(BIN)/ruff check server tests bench
	$(BIN)/python -m pytest

# Programs the tests drive for real: Neovim (tests/lsp/test_neovim.py). Installed
# with apt when missing and we may; otherwise that test fails saying how to install it.
test-deps:
	@command -v nvim >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi; \
	  if [ "$$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends neovim; \
	  else \
	    echo "test-deps: Neovim is missing and cannot be installed here (not root, no sudo, or no apt-get)." >&2; \
	    echo "test-deps: install it (sudo apt-get install neovim); until then tests/lsp/test_neovim.py fails." >&2; \
	  fi; }

# The extension: its own unit tests (mocha, no editor).
test-extension: $(NPM_STAMP)
	cd $(EXT) && npm test --silent

$(NPM_STAMP): $(EXT)/package.json $(EXT)/package-lock.json
	cd $(EXT) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The VS Code extension for one platform, with the server and every package it imports
# inside (bundled/libs: pure-Python ones once, compiled ones for each CPython 3.10-3.14;
# about 125 MB), so that installing the .vsix is enough: the extension runs
# `python -S -m doublet serve` with them, no pip, no package index (docs/editors.md).
# The pins are $(EXT)/requirements-bundled.txt; `make vsix-lock` renews them.
# BUNDLE_PYTHONS="3.12 3.13" bundles fewer CPython versions (a smaller .vsix; the others
# then install with pip). The bundle is then run with every local CPython of a bundled
# version, whose bytecode goes into the .vsix (bundle_libs.py check --compile).
# About 3 minutes the first time (the wheels are downloaded), 1.5 after.
vsix: $(VSIX)

$(VSIX): $(STAMP) $(NPM_STAMP) $(shell find server -name '*.py') $(wildcard $(EXT)/src/*.ts $(EXT)/src/logic/*.ts) $(EXT)/package.json $(EXT)/README.md $(wildcard $(EXT)/media/*) $(EXT)/requirements-bundled.txt $(wildcard $(EXT)/python/*.py) $(BUNDLE)
	rm -f $(EXT)/bundled/*.whl $@ $(EXT)/doublet-$(VERSION).vsix
	$(BIN)/python -m pip wheel --no-deps --quiet -w $(EXT)/bundled .
	$(BIN)/python $(BUNDLE) build --platform $(PLATFORM) --wheel $(EXT)/bundled/doublet-$(VERSION)-py3-none-any.whl $(if $(BUNDLE_PYTHONS),--pythons "$(BUNDLE_PYTHONS)")
	$(BIN)/python $(BUNDLE) check --compile
	cd $(EXT) && npx tsc -p ./
	@# vsce's secret scan takes 5 minutes over the third-party libraries (pinned by hash):
	@# it runs on a package of our own files, then the real one is packed without it.
	cd $(EXT) && ours=$$(mktemp) && { cat .vscodeignore; printf 'bundled/libs/**\n!bundled/libs/common/doublet/**\n'; } > $$ours \
	  && npx vsce package --target $(PLATFORM) --no-rewrite-relative-links --ignoreFile $$ours --out $$ours.vsix >/dev/null; \
	  status=$$?; rm -f $$ours $$ours.vsix; exit $$status
	cd $(EXT) && npx vsce package --target $(PLATFORM) --no-rewrite-relative-links --allow-package-all-secrets --out $(notdir $(VSIX)) \
	  || { rm -f $(notdir $(VSIX)); exit 1; }
	@ls -l $@ | awk '{ printf "%s: %.0f MB\n", $$NF, $$5 / 1e6 }'

# Resolves pyproject.toml's dependencies again for every platform and CPython version
# and rewrites $(EXT)/requirements-bundled.txt (versions and hashes). About 3 minutes.
vsix-lock: $(STAMP)
	$(BIN)/python $(BUNDLE) lock

# The extension in a real VS Code workbench (code-server + headless Chromium), tests/vscode-e2e/.
# setup.sh installs its tools once (about 80 s); after that it downloads nothing.
test-vscode: $(VSIX)
	bash tests/vscode-e2e/setup.sh
	DOUBLET_VSIX=$(VSIX) node --test tests/vscode-e2e/extension.test.mjs

# The HTML report opened from disk in headless Chromium (with the browser and
# playwright-core of the VS Code tests) and in Firefox (firefox-esr and puppeteer-core,
# installed by tests/report-browser/setup.sh).
test-report: $(STAMP)
	bash tests/vscode-e2e/setup.sh
	bash tests/report-browser/setup.sh
	node --test tests/report-browser/report.test.mjs tests/report-browser/firefox.test.mjs

lint: $(STAMP)
	$(BIN)/ruff check server tests bench
	$(BIN)/ruff format --check server tests bench

# Benchmarks read ../shared/data (override with DOUBLET_DATA=...) and run the
# anchors (copydetect, Dolos) side by side; results go to bench/results/.
bench-setup: $(STAMP)
	$(BIN)/python -m bench.anchors setup

bench-quality: bench-setup
	$(BIN)/python -m bench.quality
	$(BIN)/python -m bench.ir_plag

bench-speed: bench-setup
	$(BIN)/python -m bench.speed

bench: bench-quality bench-speed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis bench/.cache $(EXT)/bundled $(EXT)/*.vsix
