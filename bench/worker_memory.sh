#!/usr/bin/env bash
# Worker memory under a long run of mixed pages: does a worker grow?
#
#   bench/worker_memory.sh PATH...        e.g. / /n/demo/ /s/81/ /api/v1/stories/
#
# Starts the benchmark server (bench/server.sh) with worker recycling off
# (GUNICORN_MAX_REQUESTS=0), sends the PATHs round robin (bench/mixed.lua) in chunks of
# WRK_DURATION [10s] until BENCH_REQUESTS [100000] requests have been served, and prints each
# worker's resident memory after every chunk. The target: every worker under 150 MB,
# and flat after the first chunks.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export GUNICORN_MAX_REQUESTS="${GUNICORN_MAX_REQUESTS:-0}"
# shellcheck source=bench/server.sh
. "$ROOT/bench/server.sh"
start_server

(( $# )) || set -- /healthz /
export BENCH_PATHS="$*"
target="${BENCH_REQUESTS:-100000}"
served=0
echo "gunicorn: $workers workers, recycling off; paths: $BENCH_PATHS; until $target requests"
echo
echo "| requests served | worker RSS (MB) |"
echo "|---|---|"
echo "| 0 | $(worker_rss) |"
while (( served < target )); do
    out="$(wrk -t"${WRK_THREADS:-2}" -c"${WRK_CONNECTIONS:-64}" -d"${WRK_DURATION:-10s}" -s "$ROOT/bench/mixed.lua" "$BASE")"
    grep -q "Non-2xx or 3xx responses" <<<"$out" && echo "warning: non-2xx/3xx responses" >&2
    served=$(( served + $(awk '/requests in/ {print $1}' <<<"$out") ))
    echo "| $served | $(worker_rss) |"
done
