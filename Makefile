# Two commands: `make run` and `make test`. Each sets everything up on a fresh machine that has
# Python 3.11+ and make.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip

.PHONY: run test test-sqlite lint install install-dev migrate seed static smoke clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet '.[dev]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

migrate: install
	$(BIN)/python manage.py migrate --noinput

seed: migrate
	$(BIN)/python manage.py seed_demo

# Production names static files by their hash (a manifest collectstatic writes); the web server
# refuses to start without it.
static: install
	$(BIN)/python manage.py collectstatic --noinput

ifeq ($(STUDIO_MODE),production)
run: static
endif
run: seed
	$(BIN)/python -m studio.launcher

# The import rules (docs/architecture.md, "Import rules"): import-linter's contracts in
# .importlinter, and the private-names rule it cannot express (a test that reads the modules).
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/studio/test_layering.py
	$(BIN)/python manage.py makemigrations --check --dry-run

# The suite in TEST_PROCESSES parallel processes (pytest-xdist), each with its own test database,
# queues and ports (docs/testing.md); a test file stays in one process, so its module fixtures
# (a browser, generated videos) are made once; files go out in collection order, the slowest
# first (tests/conftest.py SLOW_FIRST). TEST_PROCESSES=0 runs in this process alone.
TEST_PROCESSES ?= 3
PYTEST_PARALLEL = -n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder --durations=20

test: lint
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) $(PYTEST_ARGS)

# The same suite on the embedded SQLite default; CI runs only the tests marked sqlite there
# (PYTEST_ARGS="-m sqlite", docs/testing.md).
test-sqlite: install-dev
	env -u DATABASE_URL -u CELERY_BROKER_URL -u CELERY_RESULT_BACKEND \
		$(BIN)/python -m pytest $(PYTEST_PARALLEL) $(PYTEST_ARGS)

clean:
	rm -rf var
