#!/usr/bin/env bash
# Runs the tests that drive real processes (faults, load, ledger faults, the
# CLI scripts; the PostgreSQL ones too when CATCHUP_TEST_POSTGRES_DSN is set)
# N times in a row (default 10), with -count=1, while busy loops keep every
# CPU busy. It works on a fresh clone under a private (0700) directory, with
# HOME and TMPDIR in there too, so that a test that depends on where the
# checkout lives, on who may reach it, or on $HOME fails here as well as a
# test that fails by chance. It stops at the first failure and says which.
#
#   scripts/stress-tests.sh [N]
#
# The clone is HEAD plus the working tree's changes (untracked files too).
set -euo pipefail
rounds=${1:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)

tmp=$(mktemp -d) # private: 0700
keep="${TMPDIR:-/tmp}/catchup-stress-failed.log" # a failing group's whole log, kept
busy=()
cleanup() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== a fresh clone in $tmp (mode $(stat -c %a "$tmp"))"
git clone -q "$repo" "$tmp/c"
if ! git -C "$repo" diff --quiet HEAD; then
  git -C "$repo" diff --binary HEAD | git -C "$tmp/c" apply
fi
(cd "$repo" && git ls-files -z --others --exclude-standard | xargs -0 -r cp --parents -t "$tmp/c")

echo "== building the test binaries"
(cd "$tmp/c" && go test -c -o "$tmp/root.test" . && go test -c -o "$tmp/pgfirst.test" ./pgscripts/first && go test -c -o "$tmp/pgsecond.test" ./pgscripts/second && go test -c -o "$tmp/e2e.test" ./e2e)

# The load tests at the size go test runs smaller, to keep CI within its
# ten minutes: three seeds of the faults' plan, the fleet's 100 jobs.
export CATCHUP_TEST_SEED=${CATCHUP_TEST_SEED:-3,14,27} CATCHUP_FLEET_JOBS=${CATCHUP_FLEET_JOBS:-100}

# Each group: a name, the binary, the directory it runs in, -test.run.
groups=(
  "CLI scripts|root.test|c|^TestScripts$"
  "faults|e2e.test|c/e2e|^(TestFault.*|TestSignalsToCatchup)$"
  "load|e2e.test|c/e2e|^TestLoad.*$"
  "exactly once under faults|e2e.test|c/e2e|^TestScanExactlyOnceUnderFaults$"
  "ledger faults|e2e.test|c/e2e|^TestLedgerFaults$"
  "processes and pings|e2e.test|c/e2e|^(TestPing.*|TestLoudJobMemory|TestDaemonHoldingPipes)$"
)
if [ -n "${CATCHUP_TEST_POSTGRES_DSN:-}" ]; then
  # Every scenario on PostgreSQL, not only the covering set go test runs
  # there (testdata/postgres-cover.txt).
  export CATCHUP_TEST_PG_SCRIPTS=all
  groups+=("CLI scripts on PostgreSQL, first half|pgfirst.test|c/pgscripts/first|^TestScriptsPostgres$")
  groups+=("CLI scripts on PostgreSQL, second half|pgsecond.test|c/pgscripts/second|^TestScriptsPostgres$")
  groups+=("PostgreSQL fleets and outages|e2e.test|c/e2e|^(TestFleet.*|TestLedgerDownAtFireTime|TestLedgerLostMidRun|TestMigrate.*)$")
else
  echo "== PostgreSQL tests skipped: set CATCHUP_TEST_POSTGRES_DSN to include them"
fi

workers=${GOMAXPROCS:-$(nproc)}
echo "== $workers busy loops beside the tests"
for _ in $(seq "$workers"); do
  (while :; do :; done) &
  busy+=($!)
done

mkdir -m 0700 "$tmp/home" "$tmp/tmp"
export HOME="$tmp/home" TMPDIR="$tmp/tmp"
start=$SECONDS
for round in $(seq "$rounds"); do
  round_start=$SECONDS
  times=()
  for g in "${groups[@]}"; do
    IFS='|' read -r name bin dir run <<<"$g"
    group_start=$SECONDS
    log="$tmp/last.log"
    if ! (cd "$tmp/$dir" && "$tmp/$bin" -test.count=1 -test.timeout=15m -test.v -test.run "$run") >"$log" 2>&1; then
      echo "FAIL: round $round of $rounds, $name (-run '$run'):"
      grep -aE '^\s*--- FAIL|^(panic|FAIL)' "$log" || true
      echo "---- the failing tests' output (whole log: $keep):"
      grep -avE '^\s*(=== (RUN|PAUSE|CONT)|--- (PASS|SKIP))' "$log" | tail -n 60
      cp "$log" "$keep"
      exit 1
    fi
    times+=("$name $((SECONDS - group_start))s")
  done
  echo "round $round/$rounds ok in $((SECONDS - round_start))s: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g')"
done
echo "stress: $rounds rounds green in $((SECONDS - start))s"
