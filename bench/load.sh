#!/usr/bin/env bash
# The load run: wrk for WRK_DURATION (60s) with WRK_CONNECTIONS (64) against each SPEC, on
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
    echo "start $(date -u +%T), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    out="$(wrk "${args[@]}" "$BASE$path")" || { echo "wrk failed on $path"; failed=1; continue; }
    echo "$out" | sed -E 's/(Bearer |Api-Key )[A-Za-z0-9_.-]+/\1KEY/'
    # wrk prints "Socket errors" only when one is non-zero, "Non-2xx or 3xx" likewise.
    requests="$(awk '/ requests in / {print $1}' <<<"$out")"
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
    socket="$(sed -n 's/^ *Socket errors: //p' <<<"$out")"
    status="$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")"
    echo "RESULT $path: ${requests:-0} requests, ${rps:-0} req/s, non-2xx/3xx ${status:-0}, socket errors: ${socket:-none}"
    if [[ -n "$socket" || -n "$status" || "${requests:-0}" == 0 ]]; then failed=1; echo "ERRORS in $path"; else echo "no errors"; fi
done
echo
echo "worker RSS after the run (MB): $(worker_rss); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# wrk never counts a request still unanswered when it stops, so a stall in the last seconds
# hides from its figures: the server's log shows recycled, killed or slow workers instead.
echo "gunicorn: $(grep -c 'Booting worker' "$server_log") worker boots for $workers workers," \
     "$(grep -c 'WORKER TIMEOUT' "$server_log") worker timeouts (log: $server_log)"
if [[ -f "${GUNICORN_ACCESSLOG:-}" ]]; then
    "$PY" - "$GUNICORN_ACCESSLOG" <<'PYEOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
slow = sorted((r["duration_ms"] for r in rows), reverse=True)
print(f"access log: {len(rows)} requests, slowest in the server {slow[0] if slow else 0:.0f} ms,"
      f" {sum(d > 1000 for d in slow)} over 1 s")
PYEOF
fi
exit "$failed"
