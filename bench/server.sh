# Sourced by the bench scripts: the benchmark server, set up the same way for every run.
#   start_server   set up the database (unless BENCH_SETUP=0), start gunicorn on
#                  127.0.0.1:$BENCH_PORT with gunicorn.conf.py, wait for /healthz, and stop
#                  it when the calling script exits. Sets ROOT, PY, BASE, gunicorn_pid, workers.
#   worker_rss     resident memory of each worker, in MB, comma-separated.
# Environment: see the header of bench/wrk_floor.sh.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
PORT="${BENCH_PORT:-8001}"
BASE="http://127.0.0.1:$PORT"

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

export DEBUG=0
export SECRET_KEY="${SECRET_KEY:-$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')}"
export SIGNING_KEY="${SIGNING_KEY:-$("$PY" -c 'import secrets; print(secrets.token_urlsafe(32))')}"
export ALLOWED_HOSTS="127.0.0.1,localhost"
export SECURE_SSL_REDIRECT=0
export BENCH_FLOOR=1
export DATABASE_URL="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/newsroom_bench}"
export CACHE_URL="${BENCH_CACHE_URL:-redis://127.0.0.1:6379/15}"
export CONN_MAX_AGE="${CONN_MAX_AGE:-600}"
export LOG_LEVEL="${LOG_LEVEL:-WARNING}"
export GUNICORN_BIND="127.0.0.1:$PORT"
export GUNICORN_ACCESSLOG="${GUNICORN_ACCESSLOG:-/dev/null}"

start_server() {
    if [[ "${BENCH_SETUP:-1}" == 1 ]]; then
        if [[ "$DATABASE_URL" == postgres* ]]; then
            local db_name="${DATABASE_URL##*/}" server_url="${DATABASE_URL%/*}/postgres" exists
            exists="$(psql "$server_url" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db_name'")"
            [[ "$exists" == 1 ]] || psql "$server_url" -qc "CREATE DATABASE \"$db_name\""
        fi
        "$PY" manage.py migrate --noinput -v0
        "$PY" manage.py loaddemo >/dev/null
        "$PY" manage.py collectstatic --noinput -v0
    fi
    server_log="$(mktemp -t bench-gunicorn.XXXXXX.log)"
    "$ROOT/.venv/bin/gunicorn" --config gunicorn.conf.py >"$server_log" 2>&1 &
    gunicorn_pid=$!
    trap 'kill "$gunicorn_pid" 2>/dev/null; wait "$gunicorn_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
        kill -0 "$gunicorn_pid" 2>/dev/null || { cat "$server_log" >&2; exit 1; }
        sleep 0.1
    done
    workers="$(pgrep -P "$gunicorn_pid" | wc -l)"
}

worker_rss() {
    ps -o rss= --ppid "$gunicorn_pid" | awk '{printf "%s%.1f", sep, $1/1024; sep=", "}'
}
