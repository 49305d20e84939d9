# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB := src/tumble/web

.PHONY: demo test lint setup clean bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml | $(WEB)/node_modules
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

# three.js and lil-gui for the Poinsot view, pinned in package-lock.json (npm registry)
$(WEB)/node_modules: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/tumble demo --out out/demo

lint: $(STAMP)
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports --config pyproject.toml
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/freerot.py

clean:
	rm -rf out .pytest_cache
