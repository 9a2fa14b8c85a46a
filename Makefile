# Two commands on a fresh machine with Python 3.11+ and make:
#   make run   - the site on SQLite with the demo newsroom, at http://127.0.0.1:8000
#   make test  - the whole test suite (DATABASE_URL picks the database; SQLite by default)
#   make lint  - ruff format --check, ruff check, the import contracts (pyproject.toml)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DEBUG ?= 1

.PHONY: run test lint venv serve bench-checks bench-peers clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py loaddemo
	$(PY) manage.py ensure_editor
	$(PY) manage.py runserver 127.0.0.1:8000

# Production-style serving: hashed static files for whitenoise, then gunicorn with
# gunicorn.conf.py (workers, timeouts, JSON access log; see docs/deploy.md). Production sets
# DEBUG=0, SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL, CACHE_URL in the environment.
serve: venv
	$(PY) manage.py collectstatic --noinput
	$(VENV)/bin/gunicorn --config gunicorn.conf.py

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles

# The checks benchmark (docs/benchmarks.md): PostgreSQL, its own database.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/bench_checks
bench-checks: venv
	psql "$(dir $(BENCH_DATABASE_URL))postgres" -c 'create database bench_checks' 2>/dev/null || true
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) bench/bench_checks.py

# The story page against the bare framework and a Wagtail peer (docs/benchmarks.md): needs wrk;
# builds its peers under .bench-peers/ (Wagtail from PyPI in a venv of its own on the first run).
bench-peers: venv
	$(PY) bench/peers.py
