#!/usr/bin/env bash
# Issue 8 "Load": wrk for WRK_DURATION (60s) with WRK_CONNECTIONS (64) against each SPEC, on
# the benchmark server (bench/server.sh), after a WRK_WARMUP (5s) run; prints wrk's summary
# and the errors it counted.
#
#   bench/load.sh PATH ["PATH|Header: value" ...]
#
# Passes when every run has no socket errors (connect, read, write, timeout) and no
# non-2xx/3xx responses; exits 1 otherwise. Environment as for bench/wrk_floor.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${WRK_THREADS:-2}"
CONNECTIONS="${WRK_CONNECTIONS:-64}"
DURATION="${WRK_DURATION:-60s}"
WARMUP="${WRK_WARMUP:-5s}"  # fresh workers first load templates and connect: not the steady state
# shellcheck source=bench/server.sh
. "$ROOT/bench/server.sh"
start_server
echo "gunicorn: $workers workers on $BASE; cache $CACHE_URL; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
failed=0
for spec in "$@"; do
    path="${spec%%|*}"
    args=(-t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency --timeout "${WRK_TIMEOUT:-2s}")  # 2s: wrk's own default
    [[ "$spec" == *"|"* ]] && args+=(-H "${spec#*|}")
    echo
    echo "## wrk ${args[*]:0:3} $path"
    wrk "${args[@]:0:2}" -d"$WARMUP" "${args[@]:4}" "$BASE$path" >/dev/null
    out="$(wrk "${args[@]}" "$BASE$path")"
    echo "$out" | grep -v "^ *[0-9.]*% " | sed -E 's/(Bearer )[A-Za-z0-9_-]+/\1KEY/'
    if grep -qE "Socket errors|Non-2xx or 3xx" <<<"$out"; then failed=1; echo "ERRORS in $path"; else echo "no errors"; fi
done
echo
echo "worker RSS after the run (MB): $(worker_rss); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$failed"
