#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 30s each; FUZZTIME=5m
# for a longer hunt). New failing inputs land in testdata/fuzz/ of the
# package: commit them, they become regression tests of `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-30s}
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r file; do
  pkg=./$(dirname "${file#./}")
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "== $pkg $target ($t)"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$t"
  done
done
