#!/usr/bin/env bash
# Measure pages against the framework floor: the same gunicorn config, the same middleware,
# a trivial view (/bench/floor?bytes=N) returning as many bytes as the page.
#
#   bench/wrk_floor.sh [SPEC ...]
#
# SPEC is a path, optionally followed by "|304" (send the conditional header the page's
# first response allows -- If-None-Match from its ETag, else If-Modified-Since -- and compare
# with a 0-byte floor) or by "|Header: value" (sent with every request, to page and floor).
# Without SPECs it measures /healthz and /.
#
# Environment (defaults in brackets):
#   BENCH_DATABASE_URL  [postgres://postgres@127.0.0.1:5432/newsroom_bench]
#   BENCH_CACHE_URL     [redis://127.0.0.1:6379/15]; dummycache:// for the cold path
#   BENCH_PORT          [8001]
#   BENCH_SETUP         [1]: create the database if missing, migrate, loaddemo, collectstatic
#   WRK_THREADS [2]  WRK_CONNECTIONS [64]  WRK_DURATION [10s]  WRK_WARMUP [2s]
#   WEB_CONCURRENCY     gunicorn workers cap (gunicorn.conf.py: 2*cores+1)
#   GUNICORN_ACCESSLOG  [/dev/null]: the JSON access log is formatted as in production
# Prints a Markdown table: page rps, floor rps, ratio, page mean latency.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${WRK_THREADS:-2}"
CONNECTIONS="${WRK_CONNECTIONS:-64}"
DURATION="${WRK_DURATION:-10s}"
WARMUP="${WRK_WARMUP:-2s}"

# shellcheck source=bench/server.sh
. "$ROOT/bench/server.sh"
start_server

# wrk_rps URL [HEADER]: requests per second and mean latency ("rps latency").
wrk_rps() {
    local url="$1" header="${2:-}" args=(-t"$THREADS" -c"$CONNECTIONS")
    [[ -n "$header" ]] && args+=(-H "$header")
    wrk "${args[@]}" -d"$WARMUP" "$url" >/dev/null
    local out
    out="$(wrk "${args[@]}" -d"$DURATION" --latency "$url")"
    if grep -q "Non-2xx or 3xx responses" <<<"$out"; then
        echo "warning: non-2xx/3xx responses from $url" >&2
    fi
    local rps latency
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
    latency="$(awk '$1 == "Latency" {print $2; exit}' <<<"$out")"
    echo "$rps $latency"
}

# conditional_header URL: the If-None-Match / If-Modified-Since header a client would send.
conditional_header() {
    local headers etag modified
    headers="$(curl -s -D - -o /dev/null "$1" | tr -d '\r')"
    etag="$(awk -F': ' 'tolower($1) == "etag" {print $2}' <<<"$headers")"
    modified="$(awk -F': ' 'tolower($1) == "last-modified" {print $2}' <<<"$headers")"
    if [[ -n "$etag" ]]; then echo "If-None-Match: $etag";
    elif [[ -n "$modified" ]]; then echo "If-Modified-Since: $modified";
    else echo ""; fi
}

(( $# )) || set -- /healthz /
echo "gunicorn: $workers workers on $BASE; wrk -t$THREADS -c$CONNECTIONS -d$DURATION (after ${WARMUP} warm-up); cache $CACHE_URL"
echo
echo "| page | status | bytes | page req/s | floor req/s | ratio | page mean latency |"
echo "|---|---|---|---|---|---|---|"
for spec in "$@"; do
    path="${spec%%|*}"
    extra=""
    [[ "$spec" == *"|"* ]] && extra="${spec#*|}"
    url="$BASE$path"
    header="$extra"
    if [[ "$extra" == 304 ]]; then
        header="$(conditional_header "$url")"
        [[ -n "$header" ]] || { echo "| $path | no ETag or Last-Modified: cannot ask for 304 | | | | | |"; continue; }
    fi
    curl_args=(-s -o /dev/null -w '%{http_code} %{size_download}\n')
    [[ -n "$header" ]] && curl_args+=(-H "$header")
    read -r status bytes < <(curl "${curl_args[@]}" "$url")
    read -r floor_rps _ < <(wrk_rps "$BASE/bench/floor?bytes=$bytes" "$header")
    read -r page_rps page_latency < <(wrk_rps "$url" "$header")
    ratio="$(awk -v p="$page_rps" -v f="$floor_rps" 'BEGIN { printf "%.2f", (f > 0 ? p / f : 0) }')"
    label="$path"
    [[ -n "$extra" ]] && label="$path ($( [[ "$extra" == 304 ]] && echo conditional || echo "$extra"))"
    echo "| \`$label\` | $status | $bytes | $page_rps | $floor_rps | $ratio | $page_latency |"
done

# Resident memory of each worker after the run (the target: under 150 MB, no growth). Run with
# GUNICORN_MAX_REQUESTS=0 to measure without worker recycling.
echo
echo "worker RSS after the run (MB): $(worker_rss)"
echo "requests served per worker are bounded by GUNICORN_MAX_REQUESTS=${GUNICORN_MAX_REQUESTS:-2000} (0: never recycled)"
