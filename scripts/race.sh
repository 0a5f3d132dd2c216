#!/usr/bin/env bash
# The race detector over every library where goroutines meet, in full, and
# over the concurrent CLI and end-to-end scenarios: what CI runs under
# -race and more (CI runs only ./catchup's tests that start goroutines of
# their own, to stay within its ten minutes: this package's full run under
# -race takes 80-110 s, each test starting race-built processes). Run it
# before landing a change to the run lifecycle or scan. It needs cgo (a C
# compiler).
#
#   scripts/race.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1
go test -race -short ./catchup ./catchup/daemon ./catchup/notify ./cmd/... ./runner/... ./store/sqlite ./store/postgres
go test -race -short -run '^(TestClaimConcurrentProcesses|TestSetSettledInterruptRace|TestAddRunsExpiresASlotOnce)$' ./store
go test -race -short -run '^TestConcurrentUse$' ./catchup/schedule
go test -race -short -run \
  'TestScripts/(run_signal_forward|run_lock_.*|run_wait_signal|progress_checkpoint|scan_interrupted_.*|scan_down_for_days|run_retries|ls_running|run_notify_cmd)$' .
go test -race -short -run '^(TestPing.*|TestDaemonHoldingPipes)$' ./e2e
echo "race: green"
