# Two commands a newcomer needs: `make dev` and `make test`.
# Both create .venv and install everything on a fresh machine (Python 3.11+ and make).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The portal's browser tests drive Debian's Chromium (Playwright is pointed at it; nothing is downloaded).
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: dev test lint lock format bench train-detectors clean

# requirements.lock pins every package (regenerate it with `make lock` after editing pyproject.toml),
# so a fresh machine installs exactly the versions CI tested.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements.lock -e ".[dev]"
	touch $(STAMP)

lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 --universal \
	  --custom-compile-command "make lock" -o requirements.lock

# Installed only when missing, so the step costs nothing once done. Without apt-get (not Debian)
# the browser tests skip themselves, except under CI.
$(CHROMIUM):
	@if command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for the portal's browser tests (once)"; \
	  $(SUDO) apt-get update -qq >/dev/null && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "No apt-get: install Chromium as $(CHROMIUM) to run the portal's browser tests"; \
	fi

dev: $(STAMP)
	$(BIN)/switchboard dev

# The slowest tests are listed at the end of each run: CI must stay under 30 minutes on 2 cores.
# Failures are shown as Python prints tracebacks (--tb=native): pytest's own format parses each frame's
# source with `ast`, and CPython 3.11's parser can then fail with "AST constructor recursion depth
# mismatch", an INTERNALERROR that ends the run and hides the failure (pytest-dev/pytest#10874).
test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest -q --durations=15 --tb=native $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Every bench on the embedded defaults (SQLite; the API and the worker a process each, as `switchboard dev`
# runs them), then the send and inbound benches in the deployed shape: PostgreSQL,
# `switchboard api --workers 2` and `switchboard worker` as their own processes.
BENCH_POSTGRES ?= postgresql+psycopg://postgres@127.0.0.1:5432/postgres

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done
	@if pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then \
	  for script in send_throughput inbound_to_webhook; do \
	    echo "== bench/$$script.py on PostgreSQL, API and worker as processes"; \
	    $(BIN)/python bench/$$script.py --database-url $(BENCH_POSTGRES) --processes || exit 1; \
	  done; \
	else echo "No PostgreSQL on 127.0.0.1:5432: the deployed-shape runs are skipped"; fi

# Rebuilds the urgency classifier the package ships from the corpus under corpora/urgency/train.
train-detectors: $(STAMP)
	$(BIN)/python scripts/train_detectors.py

clean:
	rm -rf $(VENV) .switchboard .pytest_cache .ruff_cache
