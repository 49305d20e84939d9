# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB := src/tumble/web

.PHONY: demo test lint setup clean bench vendor qgis-plugin

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

# three.js and lil-gui as pinned in package-lock.json (npm registry): the package ships the files
# the pages load in $(WEB)/vendor; the tests check that copy against these
$(WEB)/node_modules: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

# copy the files the pages load from node_modules into the package (after a version bump)
vendor: $(STAMP) $(WEB)/node_modules
	$(BIN)/python -m tumble.web.assets

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/tumble demo --out out/demo

lint: $(STAMP)
	$(BIN)/ruff format --check src tests benchmarks qgis
	$(BIN)/ruff check src tests benchmarks qgis
	$(BIN)/lint-imports --config pyproject.toml
	$(BIN)/mypy

test: lint $(WEB)/node_modules
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/freerot.py

# the QGIS plugin as the QGIS plugin repository takes it: dist/tumble_qgis.zip holding tumble_qgis/
qgis-plugin:
	find qgis -name __pycache__ -prune -exec rm -rf {} +
	mkdir -p dist
	rm -f dist/tumble_qgis.zip
	$(PYTHON) -m zipfile -c dist/tumble_qgis.zip qgis/tumble_qgis

clean:
	rm -rf out .pytest_cache
