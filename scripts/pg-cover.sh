#!/usr/bin/env bash
# The scenarios go test runs on PostgreSQL are a covering set
# (testdata/postgres-cover.txt): together they run each block of the
# ledger's packages (./store/...) that the whole set of scenarios runs on
# PostgreSQL, three times over (-k, PGCOVER_K). This script runs every scenario on PostgreSQL with those
# packages instrumented, one coverage profile per scenario, and checks the
# list against them (or, with --write, picks the list anew: greedily, the
# scenario adding the most blocks first). Run it with --write after adding
# scenarios or changing the store; scripts/stress-tests.sh runs them all
# on PostgreSQL either way. It needs CATCHUP_TEST_POSTGRES_DSN.
#
#   scripts/pg-cover.sh [--write]
set -euo pipefail
cd "$(dirname "$0")/.."
write=()
if [ "${1:-}" = "--write" ]; then write=(-write); fi

# The profiles stay in $keep after the run: PGCOVER_REUSE=1 picks or checks
# again from them without running the scenarios (with another -k, say).
keep="${TMPDIR:-/tmp}/catchup-pg-cover"
if [ -n "${PGCOVER_REUSE:-}" ] && [ -d "$keep" ]; then
  go run ./scripts/pgcover -profiles "$keep" -list testdata/postgres-cover.txt "${write[@]}" ${PGCOVER_K:+-k "$PGCOVER_K"}
  exit
fi
if [ -z "${CATCHUP_TEST_POSTGRES_DSN:-}" ]; then
  echo "pg-cover: set CATCHUP_TEST_POSTGRES_DSN to a server where tests may create schemas" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/raw" "$tmp/profiles"
# Every scenario, instrumented, takes 10-25 minutes on a slow or busy guest:
# past go test's default ten-minute timeout.
echo "== every scenario on PostgreSQL, ./store/... instrumented"
CATCHUP_TEST_PG_SCRIPTS=all CATCHUP_TEST_SCRIPT_COVERDIR="$tmp/raw" \
  go test -count=1 -timeout 60m -cover -coverpkg=./store/... ./pgscripts/... >"$tmp/test.log" 2>&1 || {
  cat "$tmp/test.log"
  exit 1
}
for dir in "$tmp"/raw/*/; do
  name=$(basename "$dir")
  if ls "$dir" | grep -q '^covmeta'; then
    go tool covdata textfmt -i="$dir" -o "$tmp/profiles/$name.txt"
  fi
done
echo "== $(ls "$tmp/profiles" | wc -l) scenarios ran catchup on PostgreSQL"
rm -rf "$keep" && cp -r "$tmp/profiles" "$keep"
go run ./scripts/pgcover -profiles "$keep" -list testdata/postgres-cover.txt "${write[@]}" ${PGCOVER_K:+-k "$PGCOVER_K"}
