#!/usr/bin/env bash
# The catchup story in a few seconds: a daily job runs, the host is down over
# a weekend, `ls --missed` notices, `scan` replays each missed day in order,
# and `history` shows what happened. The clock is moved with CATCHUP_NOW; the
# ledger is a throw-away file.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "building catchup (go build; the first build takes a while)..."
go build -o "$tmp/catchup" .
export CATCHUP_DB="$tmp/ledger.db" PATH="$tmp:$PATH"
job='echo "settling the day before $CATCHUP_SLOT (trigger: $CATCHUP_TRIGGER)"'

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step "# Friday 02:00: cron fires the nightly settlement through catchup"
export CATCHUP_NOW=2026-11-20T02:00:05Z
step "catchup run --task settle --cron '0 2 * * *' --tz UTC -- sh -c '$job'"
catchup run --task settle --cron '0 2 * * *' --tz UTC -- sh -c "$job"

step "# Friday night the host dies. It comes back on Monday at 09:00."
export CATCHUP_NOW=2026-11-23T09:00:00Z
step "catchup ls --missed    # exit 1: there are missed slots"
catchup ls --missed || echo "(exit $?)"

step "catchup scan           # at boot: replay every missed slot, oldest first"
catchup scan 2>&1   # replayed jobs write to stderr; the report goes to stdout

step "catchup scan           # again: nothing left to do"
catchup scan 2>&1   # replayed jobs write to stderr; the report goes to stdout

step "# 02:00 cron fires again on Tuesday, as usual"
export CATCHUP_NOW=2026-11-24T02:00:03Z
catchup run --task settle --cron '0 2 * * *' --tz UTC -- sh -c "$job"

step "catchup history"
catchup history
