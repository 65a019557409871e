# Sparrow: `make run` installs what the server needs and starts it; `make test` installs what the
# tests need too (the dev, bench and rl extras) and runs them.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
AXE    := tests/e2e/node_modules/axe-core/axe.min.js
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test install lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The server alone: its own dependencies, nothing for tests, benchmarks or training.
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $(RUN_STAMP)

# The tests, the linters and the benchmarks: the server plus the dev, bench and rl extras.
$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,bench,rl]'
	touch $(TEST_STAMP) $(RUN_STAMP)

# axe-core for the browser tests' accessibility check, from npm (pinned in tests/e2e/package-lock.json);
# without npm the check is skipped with that reason.
$(AXE): tests/e2e/package.json tests/e2e/package-lock.json
	-npm ci --prefix tests/e2e --no-audit --no-fund --silent

install: $(TEST_STAMP)

run: $(RUN_STAMP)
	$(BIN)/sparrow serve --host $(HOST) --port $(PORT)

# The suite runs in 4 processes, a test file per process at a time (pytest-xdist), whatever the cores:
# most tests wait on timers, leases, sockets and the browser, so 4 beat one per core on 2 cores (8:40
# against 11:11 for the whole suite on the development machine, one run each, the same hour).
test: $(TEST_STAMP) $(AXE)
	$(BIN)/python -m pytest -n 4 --dist loadfile

lint: $(TEST_STAMP)
	$(BIN)/ruff check game server tests benchmarks
	$(BIN)/mypy

# The hand analysis beside the `mahjong` package, then the CPU of short `sparrow` commands, start-up included.
bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/analysis.py
	$(BIN)/python benchmarks/startup.py --repeat 3

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
