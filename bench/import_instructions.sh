#!/usr/bin/env bash
# Instructions an import through the gate executes, counted by callgrind: the importing
# process and each of its checks' workers, and their sum. Unlike CPU seconds, the count
# does not change with what else the machine is doing, so two versions of the code can be
# compared on a busy or noisy machine. PostgreSQL's backend is not counted.
#
#   DEBUG=0 SECRET_KEY=... SIGNING_KEY=... DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> \
#       bench/import_instructions.sh [N]
#
# Runs `bench/import_rate.py --write N` (default 200) under `valgrind --tool=callgrind`, so
# its rules hold: the database is migrated and holds the demo story's manifests, and the
# stories must not be in it yet (import into a fresh copy each time). The child that writes
# the file is spawned (a new program), which callgrind does not follow: it is not counted.
# The worker processes are forked and are. About 40 times slower than the import itself.
# Which process checks which story depends on timing, so compare the sums.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
n="${1:-200}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

(cd "$ROOT" && valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" --dump-instr=no -q \
    "$PYTHON" bench/import_rate.py --write "$n" "$out/stories.jsonl") >"$out/log" 2>&1 || {
    cat "$out/log" >&2
    exit 1
}
tail -n 1 "$out/log"  # import_rate.py's line (its rates are callgrind's, not the code's)

total=0
first=1
for f in $(for g in "$out"/cg.*; do echo "${g##*.} $g"; done | sort -n | cut -d' ' -f2); do
    count="$(sed -n 's/^totals: //p' "$f")"
    if ((first)); then role="importing process"; first=0; else role="checks' worker"; fi
    printf '%s (pid %s): %s instructions\n' "$role" "${f##*.}" "$count"
    total=$((total + count))
done
printf 'together: %s instructions\n' "$total"
