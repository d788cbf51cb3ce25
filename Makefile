# Doublet — everything a fresh clone needs: `make demo` and `make test`.
# Both create the virtual environment in .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench bench-quality bench-speed bench-setup clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Doublet needs Python 3.10 or newer; this is " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

demo: $(STAMP)
	$(BIN)/doublet scan examples

test: $(STAMP)
	$(BIN)/ruff check server tests bench
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check server tests bench
	$(BIN)/ruff format --check server tests bench

# Benchmarks read ../shared/data (override with DOUBLET_DATA=...) and run the
# anchors (copydetect, Dolos) side by side; results go to bench/results/.
bench-setup: $(STAMP)
	$(BIN)/python -m bench.anchors setup

bench-quality: bench-setup
	$(BIN)/python -m bench.quality

bench-speed: bench-setup
	$(BIN)/python -m bench.speed

bench: bench-quality bench-speed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis bench/.cache
