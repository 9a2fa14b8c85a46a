#!/usr/bin/env bash
# The load run: wrk for WRK_DURATION (60s) with WRK_CONNECTIONS (64) against each SPEC, on
# the benchmark server (bench/server.sh), after a WRK_WARMUP (5s) run; prints wrk's summary
# and the errors it counted.
#
#   bench/load.sh PATH ["PATH|Header: value" ...]
#
# Passes when every run has no socket errors (connect, read, write, timeout) and no
# non-2xx/3xx responses; exits 1 otherwise. Environment as for bench/wrk_floor.sh.
#
# A run with errors during which the machine itself stalled (a sampler that sleeps 100 ms
# at a time saw a wake-up over STALL_SECONDS late: the virtual machine paused, and every
# connection's request timed out at once) is run once more, and the second run decides;
# both are printed.
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
STALL_SECONDS="${STALL_SECONDS:-1.0}"
stall_file="$(mktemp -t load-stall.XXXXXX)"
# The longest lateness, in seconds, of a 100 ms sleep while it runs (written as it grows).
sampler() {
    "$PY" - "$stall_file" <<'PYEOF' &
import sys, time
worst, last = 0.0, time.monotonic()
open(sys.argv[1], "w").write("0.00")
while True:
    time.sleep(0.1)
    now = time.monotonic()
    late, last = now - last - 0.1, now
    if late > worst:
        worst = late
        open(sys.argv[1], "w").write(f"{worst:.2f}")
PYEOF
    sampler_pid=$!
}
# One wrk run against $1 (args in the array "args"): prints wrk's summary and a RESULT line;
# sets run_ok (1 when no errors) and run_stall (the sampler's worst lateness).
run_once() {
    local path="$1" out requests rps socket status
    sampler
    echo "start $(date -u +%T), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    out="$(wrk "${args[@]}" "$BASE$path")" || out=""
    kill "$sampler_pid" 2>/dev/null || true
    wait "$sampler_pid" 2>/dev/null || true
    run_stall="$(cat "$stall_file")"
    if [[ -z "$out" ]]; then
        echo "wrk failed on $path"
        run_ok=0
        return
    fi
    echo "$out" | sed -E 's/(Bearer |Api-Key )[A-Za-z0-9_.-]+/\1KEY/'
    # wrk prints "Socket errors" only when one is non-zero, "Non-2xx or 3xx" likewise.
    requests="$(awk '/ requests in / {print $1}' <<<"$out")"
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
    socket="$(sed -n 's/^ *Socket errors: //p' <<<"$out")"
    status="$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")"
    echo "RESULT $path: ${requests:-0} requests, ${rps:-0} req/s, non-2xx/3xx ${status:-0}, socket errors: ${socket:-none}; the machine's longest stall ${run_stall} s"
    if [[ -n "$socket" || -n "$status" || "${requests:-0}" == 0 ]]; then run_ok=0; else run_ok=1; fi
}
failed=0
for spec in "$@"; do
    path="${spec%%|*}"
    args=(-t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency --timeout "${WRK_TIMEOUT:-2s}")  # 2s: wrk's own default
    [[ "$spec" == *"|"* ]] && args+=(-H "${spec#*|}")
    echo
    echo "## wrk ${args[*]:0:3} $path"
    wrk "${args[@]:0:2}" -d"$WARMUP" "${args[@]:4}" "$BASE$path" >/dev/null
    run_once "$path"
    if [[ $run_ok == 0 ]] && awk -v s="$run_stall" -v t="$STALL_SECONDS" 'BEGIN { exit !(s > t) }'; then
        echo "ERRORS in $path while the machine stalled for ${run_stall} s (over ${STALL_SECONDS} s): running it once more"
        run_once "$path"
    fi
    if [[ $run_ok == 1 ]]; then echo "no errors"; else failed=1; echo "ERRORS in $path"; fi
done
rm -f "$stall_file"
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
