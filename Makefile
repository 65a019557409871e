# Sparrow: `make run` installs and starts; `make test` installs and runs the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
AXE    := tests/e2e/node_modules/axe-core/axe.min.js
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test install lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,bench,rl]'
	touch $(STAMP)

# axe-core for the browser tests' accessibility check, from npm (pinned in tests/e2e/package-lock.json);
# without npm the check is skipped with that reason.
$(AXE): tests/e2e/package.json tests/e2e/package-lock.json
	-npm ci --prefix tests/e2e --no-audit --no-fund --silent

install: $(STAMP)

run: $(STAMP)
	$(BIN)/sparrow serve --host $(HOST) --port $(PORT)

# The suite runs on every core (at most 4), a test file per process at a time (pytest-xdist).
test: $(STAMP) $(AXE)
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check game server tests benchmarks
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/analysis.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
