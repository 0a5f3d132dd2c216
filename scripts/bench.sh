#!/usr/bin/env bash
# scripts/bench.sh: catchup's performance targets (docs/performance.md),
# measured so that they cannot flatter:
#   - catchup is built exactly as .goreleaser.yaml builds a release (its env,
#     flags and ldflags are read from that file, and checked in the binary);
#   - catchup and its reference run in turn, A B A B ..., and each row gives
#     the median of the per-pair ratios A/B with its spread (25th-75th
#     percentile), so that both sides of a pair see the same machine load;
#   - every command is started directly by scripts/bench/pair (fork, exec,
#     reap: no shell, no `date`), and every run must exit as expected; the
#     ledger is checked afterwards for the runs and replays it should hold.
# Prints one table; exits 1 if a target fails. Needs go, flock(1) and dash.
#
#   bash scripts/bench.sh            # full run (a few minutes on 2 cores)
#   QUICK=1 bash scripts/bench.sh    # fewer repetitions (about a minute, plus the boot storm)
#   NO_STORM=1 bash scripts/bench.sh # without the boot-storm rows (about 11 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in go flock dash; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install util-linux dash)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Repetitions: counted pairs for fast commands, for the 1M-run queries, for
# the 3,000-slot replay (seconds each), and for the 1 GiB output run.
if [ -n "${QUICK:-}" ]; then
  n_fast=15 n_ledger=5 n_replay=2 n_loud=1 warm=2
else
  n_fast=40 n_ledger=10 n_replay=5 n_loud=3 warm=3
fi

# --- The release build, read from .goreleaser.yaml ---------------------------
builds=$(awk '/^builds:/ {f = 1; next} /^[^ #]/ {f = 0} f' .goreleaser.yaml)
list() { # list KEY: the "- item" lines under KEY: in the builds section
  printf '%s\n' "$builds" | awk -v k="$1" '
    $1 == k":" {on = 1; next}
    on && /^ *- / {sub(/^ *- */, ""); print; next}
    {on = 0}'
}
rel_env=$(list env)
rel_flags=$(printf '%s\n' "$builds" | sed -n 's/^ *flags: *\[\(.*\)\] *$/\1/p' | tr ',' ' ')
rel_ldflags=$(list ldflags | sed 's/{{ *\.Version *}}/bench/g' | tr '\n' ' ')
if [ -z "$rel_env" ] || [ -z "$rel_flags" ] || [ -z "$rel_ldflags" ]; then
  echo "bench: cannot read env, flags and ldflags of builds in .goreleaser.yaml; update scripts/bench.sh" >&2
  exit 2
fi
release_build() { # release_build OUT PKG
  # shellcheck disable=SC2086 # the flags are words
  env $rel_env go build $rel_flags -ldflags "$rel_ldflags" -o "$1.linked" "$2"
  # Then lay it down as an install does (a package, a tarball: write(2)),
  # not as the linker leaves it (written through mmap): on this ext4 the
  # linker's file starts 11-14% slower than the same bytes installed, which
  # flock(1), installed from its package, does not pay (docs/performance.md).
  install -m 0755 "$1.linked" "$1" && rm "$1.linked"
}
echo "release build: env $(echo $rel_env) go build $(echo $rel_flags) -ldflags \"${rel_ldflags% }\"" >&2
release_build "$tmp/catchup" .
release_build "$tmp/floor" ./scripts/bench/floor
release_build "$tmp/ledgerfloor" ./scripts/bench/ledgerfloor
built=$(go version -m "$tmp/catchup")
# shellcheck disable=SC2046,SC2086
for want in $rel_env $(printf '%s=true ' $rel_flags); do
  grep -qF -- "build	$want" <<<"$built" || { echo "bench: the binary was not built with $want" >&2; exit 2; }
done
[ "$("$tmp/catchup" version)" = bench ] || { echo "bench: the ldflags were not applied" >&2; exit 2; }
go build -o "$tmp/pair" ./scripts/bench/pair
go build -o "$tmp/genledger" ./scripts/genledger
C="$tmp/catchup"
export TZ=UTC CATCHUP_HOST=bench CATCHUP_STATE_DIR="$tmp/state"
unset CATCHUP_DB CATCHUP_NOW

# --- The table ---------------------------------------------------------------
rows=()
fail=0
kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
r1() { awk -v x="$1" 'BEGIN {printf "%.1f", x}'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "pass" : "FAIL"}'; }
# ratio_row NAME REFERENCE TARGET LIMIT PAIR-OUTPUT: LIMIT empty = for the record
ratio_row() {
  local res v=info
  res="$(kv ratio "$5")x [$(kv ratio_p25 "$5")-$(kv ratio_p75 "$5")] cpu $(kv cpu_ratio "$5")x; $(r1 "$(kv a_ms "$5")")/$(r1 "$(kv b_ms "$5")") ms"
  if [ -n "$4" ]; then v=$(verdict "$(kv ratio "$5")" "$4"); fi
  [ "$v" != FAIL ] || fail=1
  rows+=("$1|$2|$3|$res|$v")
}
# abs_row NAME TARGET LIMIT VALUE UNIT
abs_row() {
  local v=info
  if [ -n "$3" ]; then v=$(verdict "$4" "$3"); fi
  [ "$v" != FAIL ] || fail=1
  rows+=("$1|-|$2|$4 $5|$v")
}
pair="$tmp/pair"

# --- 1. Wrapper overhead: run, version and the Go floor vs flock(1) ------------
mkdir -p "$tmp/w"; : > "$tmp/w/flock"
W="$tmp/w/catchup.db"
"$C" --db "$W" run --task t -- true # the ledger exists, as on every fire but the first
FLOCK=(--vs "$(command -v flock)" -n "$tmp/w/flock" true)
out=$("$pair" -n "$n_fast" -warmup "$warm" -- "$C" --db "$W" run --task t -- true "${FLOCK[@]}")
ratio_row "run --task t -- true" "flock -n LOCK true" "<= 2.5x (3x min.)" 2.5 "$out"
runs=$("$C" --db "$W" history t --limit 1000000 -o json | grep -c '"status": "succeeded"')
[ "$runs" -eq $((1 + warm + n_fast)) ] \
  || { echo "bench: the ledger holds $runs succeeded runs of t, want $((1 + warm + n_fast))" >&2; exit 1; }
out=$("$pair" -n "$n_fast" -warmup "$warm" -- "$C" version "${FLOCK[@]}")
ratio_row "version" "flock -n LOCK true" "<= 1.5x" 1.5 "$out"
out=$("$pair" -n "$n_fast" -warmup "$warm" -- "$tmp/floor" "$tmp/w/floor.lock" true "${FLOCK[@]}")
ratio_row "floor: Go flock(2) + exec, no ledger" "flock -n LOCK true" "floor" "" "$out"
out=$("$pair" -n "$n_fast" -warmup "$warm" -- "$tmp/ledgerfloor" "$tmp/w/floor.db" true "${FLOCK[@]}")
ratio_row "floor with the design's ledger (modernc)" "flock -n LOCK true" "floor" "" "$out"

# --- 2. Peak RSS of run on 1 GiB of output ------------------------------------
out=$("$pair" -n "$n_loud" -warmup 0 -- "$C" --db "$W" run --task loud -- head -c 1073741824 /dev/zero)
mib=$(awk -v k="$(kv a_rss_kib "$out")" 'BEGIN {printf "%.1f", k / 1024}')
abs_row "run peak RSS, 1 GiB of output" "<= 20 MiB" 20 "$mib" MiB

# --- 3. Replay: scan of 3,000 missed slots vs a dash loop of 3,000 spawns -----
"$tmp/genledger" -db "$tmp/replay.db" -tasks 1 -runs 1 -cmd /bin/true -now 2026-11-01T00:00:00Z
# 3,005 minutes later: 3,000 missed slots, the last five still within --tolerance.
now=$(date -u -d '2026-11-01T00:00:00Z + 3005 minutes + 30 seconds' +%Y-%m-%dT%H:%M:%SZ)
R="$tmp/r.db"
rwarm=$((warm > 2 ? 1 : 0))
out=$(CATCHUP_NOW=$now "$pair" -n "$n_replay" -warmup "$rwarm" -out "$tmp/scan.out" \
  -prep "rm -rf '$R' '$R-wal' '$R-shm' '$R.locks' && cp '$tmp/replay.db' '$R'" \
  -- "$C" --db "$R" scan --max-age 30d --max-replays 3000 \
  --vs "$(command -v dash)" -c 'i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i+1)); done')
scans=$(grep -c '^scanned 1 task, 3000 missed slots: replayed 3000, failed 0' "$tmp/scan.out" || true)
[ "$scans" -eq $((rwarm + n_replay)) ] || { echo "bench: not every scan replayed 3000 slots:" >&2; cat "$tmp/scan.out" >&2; exit 1; }
ratio_row "scan replaying 3,000 slots of /bin/true" "dash loop, 3,000 spawns" "<= 2x" 2 "$out"

# --- 4. Scale: 1,000 tasks x 1,000 runs vs 1,000 tasks x 1 run -------------------
"$tmp/genledger" -db "$tmp/big.db" -tasks 1000 -runs 1000 -now 2026-11-20T00:00:00Z
"$tmp/genledger" -db "$tmp/small.db" -tasks 1000 -runs 1 -now 2026-11-20T00:00:00Z -registered 2026-11-19T23:59:00Z
"$tmp/genledger" -db "$tmp/cold.db" -tasks 1000 -runs 1000 -now 2026-11-20T00:00:00Z -cold
export CATCHUP_NOW=2026-11-20T01:00:00Z
for cmd in "ls" "ls --missed" "scan --dry-run"; do
  code=0; [ "$cmd" != "ls --missed" ] || code=1 # every task has missed slots: exit 1
  # shellcheck disable=SC2086 # $cmd is words
  out=$("$pair" -n "$n_ledger" -warmup 1 -code "$code" -bcode "$code" -- "$C" --db "$tmp/big.db" $cmd --vs "$C" --db "$tmp/small.db" $cmd)
  ratio_row "$cmd, 1M runs" "same, 1 run per task" "<= 2x" 2 "$out"
done
# For the record, not a target: the same ledger before any scan has set the
# watermarks (the first scan after an upgrade reads the 7-day window once).
out=$("$pair" -n 3 -warmup 0 -- "$C" --db "$tmp/cold.db" ls)
abs_row "ls, 1M runs, no watermark yet" "-" "" "$(r1 "$(kv a_ms "$out")")" ms
unset CATCHUP_NOW

# --- 5. Slot enumeration: every minute for 30 days; daily for 10 years -----------
"$tmp/genledger" -db "$tmp/month.db" -tasks 1 -runs 1 -cron '* * * * *' -now 2026-10-21T00:00:00Z
out=$(CATCHUP_NOW=2026-11-20T00:00:00Z "$pair" -n "$n_ledger" -warmup 1 -- "$C" --db "$tmp/month.db" scan --dry-run --max-age 31d)
abs_row "scan --dry-run, 43,200 missed slots" "< 1000 ms" 999 "$(r1 "$(kv a_ms "$out")")" ms
"$tmp/genledger" -db "$tmp/decade.db" -tasks 1 -runs 1 -cron '0 2 * * *' -now 2016-11-20T02:00:00Z
out=$(CATCHUP_NOW=2026-11-20T03:00:00Z "$pair" -n "$n_ledger" -warmup 1 -- "$C" --db "$tmp/decade.db" ls --max-age 3700d)
abs_row "ls, daily task over 10 years" "< 100 ms" 99 "$(r1 "$(kv a_ms "$out")")" ms

# --- 6. Boot storm: 100 tasks x 30 missed slots of a 100 ms job ------------------
# scan --concurrency 8 vs --concurrency 1 (wall ratio, ideally 1/8), and
# --concurrency 1 vs a dash loop spawning the same 3,000 jobs (throughput).
# One pair each: a --concurrency 1 scan alone takes 5 minutes. -prep runs
# before A only, so it copies a fresh ledger for B (run right after A) too.
if [ -z "${NO_STORM:-}" ]; then
  printf '#!/bin/sh\nexec sleep 0.1\n' > "$tmp/job100"; chmod +x "$tmp/job100"
  "$tmp/genledger" -db "$tmp/storm.db" -tasks 100 -runs 1 -cron '0 * * * *' -cmd "$tmp/job100" -now 2026-11-01T00:00:00Z
  S8="$tmp/s8.db" S1="$tmp/s1.db"
  fresh() { for f in "$@"; do printf "rm -rf '%s' '%s-wal' '%s-shm' '%s.locks' && cp '%s' '%s' && " "$f" "$f" "$f" "$f" "$tmp/storm.db" "$f"; done; echo true; }
  export CATCHUP_NOW=2026-11-02T06:30:00Z # 30 hourly slots missed per task; the next is an hour away, so a long scan never sees a 31st
  out=$("$pair" -n 1 -warmup 0 -out "$tmp/storm.out" -prep "$(fresh "$S8" "$S1")" \
    -- "$C" --db "$S8" scan --concurrency 8 --vs "$C" --db "$S1" scan --concurrency 1)
  ratio_row "boot storm 100x30 x 100ms, --concurrency 8" "same, --concurrency 1" "~ 1/8 (0.125x)" "" "$out"
  out=$("$pair" -n 1 -warmup 0 -out "$tmp/storm.out" -prep "$(fresh "$S1")" \
    -- "$C" --db "$S1" scan --concurrency 1 \
    --vs "$(command -v dash)" -c "i=0; while [ \$i -lt 3000 ]; do $tmp/job100; i=\$((i+1)); done")
  ratio_row "boot storm, --concurrency 1" "dash loop, same 3,000 jobs" "<= 2.5x" 2.5 "$out"
  storms=$(grep -c '^scanned 100 tasks, 3000 missed slots: replayed 3000, failed 0' "$tmp/storm.out" || true)
  [ "$storms" -eq 2 ] || { echo "bench: a boot-storm scan did not replay 3000 slots:" >&2; tail "$tmp/storm.out" >&2; exit 1; }
  unset CATCHUP_NOW
fi

# --- Print ------------------------------------------------------------------------
f='%-40s %-24s %-18s %-50s %s\n'
# shellcheck disable=SC2059 # the format is ours
printf "\n$f" ROW "REFERENCE (B)" TARGET "RESULT: median A/B [p25-p75], cpu; A/B ms" VERDICT
for r in "${rows[@]}"; do
  IFS='|' read -r a b c d e <<<"$r"
  # shellcheck disable=SC2059
  printf "$f" "$a" "$b" "$c" "$d" "$e"
done
printf '\n(release build; pairs A B A B: %s fast, %s ledger, %s replay; %s cores; load %s; %s)\n' \
  "$n_fast" "$n_ledger" "$n_replay" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(date -u +%Y-%m-%dT%H:%MZ)"
if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN {exit !(l > n)}'; then
  echo "warning: the load was above the number of cores: pairs see the same load, but a busy machine"
  echo "inflates catchup's ratios (it has more to schedule than flock); rerun when the machine is quiet"
fi
exit "$fail"
