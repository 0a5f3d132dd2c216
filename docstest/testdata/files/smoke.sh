#!/bin/sh
# ci/catchup-smoke.sh: the nightly job runs through catchup, and an outage is caught up
set -eu
export CATCHUP_DB="$(mktemp -d)/ledger.db"
# Friday 02:00: the first fire registers the task
CATCHUP_NOW=2026-11-20T02:00:03Z catchup run --task daily-settle --cron '0 2 * * *' --tz UTC -- settle.sh
CATCHUP_NOW=2026-11-20T09:00:00Z catchup ls --missed     # exit 1 would fail the build
# Monday 09:00, after a weekend outage: 3 slots missed, scan replays them in order
if CATCHUP_NOW=2026-11-23T09:00:00Z catchup ls --missed >/dev/null; then
  echo "expected missed slots" >&2; exit 1
fi
CATCHUP_NOW=2026-11-23T09:00:00Z catchup scan
CATCHUP_NOW=2026-11-23T09:00:00Z catchup ls --missed
echo "smoke check passed"
