#!/usr/bin/env bash
# CI step (run by .ci/run after the test suites): the load run, then the fault run.
#
#   bench/ci_load.sh            # both parts
#   CI_LOAD_FAULT=0 bench/ci_load.sh   # the load part only (no PostgreSQL restart)
#
# 1. Load: a PostgreSQL database of its own (CI_LOAD_DATABASE_URL, default ci_load; dropped
#    and created again each run), migrate + loaddemo + collectstatic (DEBUG=0: the manifest
#    storage) + an API key; gunicorn with gunicorn.conf.py on a free port, DEBUG=0, Redis
#    cache in DB 12 (flushed first; CI_LOAD_CACHE_URL), the partner throttle lifted. Then
#    bench/load.sh: `wrk -t2 -c64 -d60s` (after 5 s of warm-up) against the story page, the
#    API list and the API story detail. Fails on any non-2xx/3xx response or socket error
#    (connect, read, write, timeout) in any of them (a run with errors during which the
#    machine itself stalled for over a second is run once more, and that run decides:
#    bench/load.sh).
# 2. Faults: bench/fault_pg_restart.py (PostgreSQL restarted under load: 200 or 503 with
#    Retry-After, recovery without a process restart). It RESTARTS THE MACHINE'S POSTGRESQL
#    CLUSTER, disconnecting every other user of it: in CI it runs last, after the PostgreSQL
#    test suite. PostgreSQL is started again on exit whatever happened.
#
# Exits non-zero when either part fails; both always run. About 5 minutes.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
started=$SECONDS

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

DB_URL="${CI_LOAD_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ci_load}"
DB_NAME="${DB_URL##*/}"
SERVER_URL="${DB_URL%/*}/postgres"
CACHE="${CI_LOAD_CACHE_URL:-redis://127.0.0.1:6379/12}"
STORY="/stories/2026-10-16/agent-training-stack/"   # the demo story (loaddemo)

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pg_cluster() { echo "${PG_CLUSTER:-$(ls /etc/postgresql | sort | head -n1) main}"; }
ensure_postgres() {
    pg_isready -h 127.0.0.1 -p 5432 -q && return 0
    echo "== PostgreSQL is down: starting it again"
    # shellcheck disable=SC2046
    pg_ctlcluster --skip-systemctl-redirect $(pg_cluster) start || true
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && return 0; sleep 1; done
    echo "PostgreSQL did not come back" >&2
    return 1
}
trap ensure_postgres EXIT

echo "== load: setting up $DB_NAME, cache $CACHE; $(date -u +%T), load average $(cut -d' ' -f1-3 /proc/loadavg)"
export DEBUG=0 SECURE_SSL_REDIRECT=0 ALLOWED_HOSTS="127.0.0.1,localhost"
SECRET_KEY="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')"
export SECRET_KEY
SIGNING_KEY="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(32))')"
export SIGNING_KEY
export DATABASE_URL="$DB_URL" CACHE_URL="$CACHE" API_RATE="100000000/min" LOG_LEVEL=WARNING
setup() {
    psql "$SERVER_URL" -qc "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" &&
    psql "$SERVER_URL" -qc "CREATE DATABASE \"$DB_NAME\"" &&
    redis-cli -u "$CACHE" flushdb >/dev/null &&
    "$PY" manage.py migrate --noinput -v0 &&
    "$PY" manage.py loaddemo >/dev/null &&
    "$PY" manage.py collectstatic --noinput -v0 &&
    KEY="$("$PY" manage.py create_api_key ci-load 2>/dev/null | tail -n1)" &&
    STORY_ID="$(psql "$DB_URL" -tAc "SELECT id FROM stories_story WHERE slug = 'agent-training-stack'")" &&
    [[ -n "$KEY" && -n "$STORY_ID" ]]
}
load_status=0
if setup; then
    access_log="$(mktemp -t ci-load-access.XXXXXX.log)"
    BENCH_SETUP=0 BENCH_DATABASE_URL="$DB_URL" BENCH_CACHE_URL="$CACHE" BENCH_PORT="$(free_port)" \
    GUNICORN_ACCESSLOG="$access_log" WRK_DURATION="${WRK_DURATION:-60s}" WRK_CONNECTIONS=64 \
        bench/load.sh "$STORY" \
            "/api/v1/stories/|Authorization: Bearer $KEY" \
            "/api/v1/stories/$STORY_ID/|Authorization: Bearer $KEY"
    load_status=$?
    rm -f "$access_log"
else
    echo "load: setup failed" >&2
    load_status=1
fi
echo "== load: $([[ $load_status == 0 ]] && echo passed || echo FAILED) ($((SECONDS - started)) s so far)"

fault_status=0
if [[ "${CI_LOAD_FAULT:-1}" == 1 ]]; then
    echo "== faults: PostgreSQL restarted under load (bench/fault_pg_restart.py)"
    FAULT_PG_RESTART=1 FAULT_PORT="$(free_port)" "$PY" bench/fault_pg_restart.py
    fault_status=$?
    ensure_postgres || fault_status=1
    echo "== faults: $([[ $fault_status == 0 ]] && echo passed || echo FAILED)"
fi
echo "== load and faults: $((SECONDS - started)) s"
(( load_status == 0 && fault_status == 0 ))
