# Two commands on a fresh machine with Python 3.11+ and make:
#   make run   - the site on SQLite with the demo newsroom, at http://127.0.0.1:8000
#   make test  - the whole test suite (DATABASE_URL picks the database; SQLite by default)
#   make lint  - ruff format --check, ruff check, the import contracts (pyproject.toml)
#   make screenshots - the guides' images again, from the browser tests
#   make test-client - the client's framework adapters (verifiers, Inspect) in .venv-client,
#                      with the client installed from client/ with those extras; the rest of
#                      tests/client runs in make test
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DEBUG ?= 1

.PHONY: run test test-client lint venv serve screenshots bench-checks bench-api bench-sitemaps bench-peers clean

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

# axe-core for the accessibility tests (package.json); skipped, with the tests, without npm.
node_modules/.installed: package.json package-lock.json
	if command -v npm >/dev/null; then npm ci --no-audit --no-fund --silent && touch $@; \
	else echo "npm not found: the accessibility tests will be skipped"; fi

test: venv node_modules/.installed
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

# The client and its framework adapters, tested in their own virtualenv: verifiers and
# inspect-ai are heavy (about 1 GB installed) and stay out of the project's .venv.
CLIENT_VENV := .venv-client
$(CLIENT_VENV)/.installed: requirements.txt requirements-dev.txt client/pyproject.toml client/constraints.txt
	test -x $(CLIENT_VENV)/bin/python || $(PYTHON) -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CLIENT_VENV)/bin/python -m pip install --quiet -r requirements-dev.txt -c client/constraints.txt './client[signatures,verifiers,inspect]'
	touch $@

test-client: $(CLIENT_VENV)/.installed
	$(CLIENT_VENV)/bin/python -m pip install --quiet --no-deps --force-reinstall ./client
	$(CLIENT_VENV)/bin/python -m pytest -p no:cacheprovider tests/client/test_rewards_frameworks.py $(PYTEST_ARGS)

# The guides' screenshots, taken again by the browser tests (a plain test run saves them
# under the system's temporary directory and leaves docs/ alone).
screenshots: venv node_modules/.installed
	SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(PY) -m pytest -m browser \
		tests/public/test_screenshots.py tests/stories/test_admin_browser.py tests/stories/test_editor_browser.py

clean:
	rm -rf $(VENV) $(CLIENT_VENV) db.sqlite3 staticfiles

# The checks benchmark (docs/benchmarks.md): PostgreSQL, its own database.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/bench_checks
bench-checks: venv
	psql "$(dir $(BENCH_DATABASE_URL))postgres" -c 'create database bench_checks' 2>/dev/null || true
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) bench/bench_checks.py

# The partner API against the bare framework (bench/api_peers.py; gunicorn -w 2, wrk -t2 -c32).
BENCH_API_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/bench_api
bench-api: venv
	BENCH_DATABASE_URL=$(BENCH_API_DATABASE_URL) $(PY) bench/api_peers.py --cold

# Cold sitemaps on generated rows (bench/sitemap_scale.py; fill the database first, see there).
BENCH_SITEMAPS_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/bench_sitemaps
bench-sitemaps: venv
	DATABASE_URL=$(BENCH_SITEMAPS_DATABASE_URL) $(PY) bench/sitemap_scale.py

# The story page against the bare framework and a Wagtail peer (docs/benchmarks.md): needs wrk;
# builds its peers under .bench-peers/ (Wagtail from PyPI in a venv of its own on the first run).
bench-peers: venv
	$(PY) bench/peers.py
