#!/usr/bin/env bash
# scripts/bench.sh: catchup's performance targets, measured side by side in
# one run as ratios (these machines are noisy; absolute times are not
# stable). Uses hyperfine when installed (apt-get install hyperfine), else a
# loop that reports medians. Prints one table; exits 1 if a target fails.
#
#   bash scripts/bench.sh            # full run (a few minutes)
#   QUICK=1 bash scripts/bench.sh    # fewer repetitions
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
reps=${QUICK:+3}; reps=${reps:-10}

go build -o "$tmp/catchup" .
go build -o "$tmp/genledger" ./scripts/genledger
C="$tmp/catchup"
export TZ=UTC CATCHUP_HOST=bench

# median_ms CMD...: median wall time in ms of `reps` runs (after a warm-up).
median_ms() {
  if command -v hyperfine >/dev/null; then
    hyperfine -N -i -w 2 -r "$reps" --export-csv "$tmp/h.csv" "$*" >/dev/null 2>&1 \
      || hyperfine -i -w 2 -r "$reps" --export-csv "$tmp/h.csv" "$*" >/dev/null
    awk -F, 'NR==2 {printf "%.3f", $4*1000}' "$tmp/h.csv"
  else
    for _ in $(seq "$reps"); do
      s=$(date +%s%N); sh -c "$*" >/dev/null 2>&1; e=$(date +%s%N)
      echo $(( (e - s) / 1000 ))
    done | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}'
  fi
}

rows=()
fail=0
# row FIGURE CATCHUP REFERENCE RATIO TARGET OK
row() { rows+=("$(printf '%s|%s|%s|%s|%s|%s' "$@")"); [ "$6" = pass ] || fail=1; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "pass" : "FAIL"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# 1. Wrapper overhead: catchup run vs flock(1), on a ledger that exists.
export CATCHUP_DB="$tmp/w/catchup.db"
"$C" run --task t -- true
mkdir -p "$tmp/w"; : > "$tmp/w/flock"
fl=$(median_ms flock -n "$tmp/w/flock" true)
cr=$(median_ms "$C" run --task t -- true)
r=$(ratio "$cr" "$fl")
row "run --task t -- true (ms)" "$cr" "flock -n: $fl" "$r" "<= 3x" "$(verdict "$r" 3)"
rss=0
for _ in $(seq 20); do
  k=$(/usr/bin/time -f %M "$C" run --task t -- true 2>&1 >/dev/null | tail -1)
  [ "$k" -gt "$rss" ] && rss=$k
done
mib=$(awk -v k="$rss" 'BEGIN {printf "%.1f", k/1024}')
row "run peak RSS (MiB)" "$mib" "-" "-" "<= 20" "$(verdict "$mib" 20)"

# 2. Replay throughput: 10,000 missed slots of /bin/true vs a shell loop.
"$tmp/genledger" -db "$tmp/replay.db" -tasks 1 -runs 1 -cmd /bin/true -now 2026-11-01T00:00:00Z
now=$(date -u -d '2026-11-01T00:00:00Z + 10005 minutes + 30 seconds' +%Y-%m-%dT%H:%M:%SZ)
best_scan=""
for _ in 1 2 3; do
  cp "$tmp/replay.db" "$tmp/r.db"; rm -rf "$tmp/r.db.locks"
  s=$(date +%s%N)
  CATCHUP_DB="$tmp/r.db" CATCHUP_NOW=$now "$C" scan --max-age 30d --max-replays 10000 >"$tmp/scan.out" 2>&1
  e=$(date +%s%N)
  t=$(( (e - s) / 1000000 ))
  [ -z "$best_scan" ] || [ "$t" -lt "$best_scan" ] && best_scan=$t
done
grep -q 'replayed 10000,' "$tmp/scan.out" || { echo "scan did not replay 10000 slots:"; cat "$tmp/scan.out"; exit 1; }
loop=$(median_ms bash -c "'for i in \$(seq 10000); do /bin/true; done'")
r=$(ratio "$best_scan" "$loop")
row "scan replaying 10,000 slots (ms)" "$best_scan" "shell loop: $loop" "$r" "<= 3x" "$(verdict "$r" 3)"

# 3. Scale: 1,000 tasks x 1,000 runs vs 1,000 tasks x 1 run, same missed slots.
"$tmp/genledger" -db "$tmp/big.db" -tasks 1000 -runs 1000 -now 2026-11-20T00:00:00Z
"$tmp/genledger" -db "$tmp/small.db" -tasks 1000 -runs 1 -now 2026-11-20T00:00:00Z -registered 2026-11-19T23:59:00Z
export CATCHUP_NOW=2026-11-20T01:00:00Z
for cmd in "ls" "ls --missed" "scan --dry-run"; do
  small=$(CATCHUP_DB="$tmp/small.db" median_ms "$C" $cmd)
  big=$(CATCHUP_DB="$tmp/big.db" median_ms "$C" $cmd)
  r=$(ratio "$big" "$small")
  row "$cmd, 1M runs (ms)" "$big" "1 run/task: $small" "$r" "<= 2x" "$(verdict "$r" 2)"
done
# For the record, not a target: the same ledger before any scan has set the
# watermarks (the first scan after an upgrade reads the 7-day window once).
"$tmp/genledger" -db "$tmp/cold.db" -tasks 1000 -runs 1000 -now 2026-11-20T00:00:00Z -cold
cold=$(CATCHUP_DB="$tmp/cold.db" median_ms "$C" ls)
rows+=("$(printf 'ls, 1M runs, no watermark yet (ms)|%s|-|-|info|-' "$cold")")
unset CATCHUP_NOW

# 4. Slot enumeration: every minute for 30 days; daily for 10 years.
"$tmp/genledger" -db "$tmp/month.db" -tasks 1 -runs 1 -cron '* * * * *' -now 2026-10-21T00:00:00Z
ms=$(CATCHUP_DB="$tmp/month.db" CATCHUP_NOW=2026-11-20T00:00:00Z median_ms "$C" scan --dry-run --max-age 31d)
row "scan --dry-run, 43,200 missed (ms)" "$ms" "-" "-" "< 1000" "$(verdict "$ms" 999)"
"$tmp/genledger" -db "$tmp/decade.db" -tasks 1 -runs 1 -cron '0 2 * * *' -now 2016-11-20T02:00:00Z
ms=$(CATCHUP_DB="$tmp/decade.db" CATCHUP_NOW=2026-11-20T03:00:00Z median_ms "$C" ls --max-age 3700d)
row "ls, daily task over 10 years (ms)" "$ms" "-" "-" "< 100" "$(verdict "$ms" 99)"

printf '\n%-36s %-12s %-22s %-7s %-8s %s\n' FIGURE CATCHUP REFERENCE RATIO TARGET RESULT
for r in "${rows[@]}"; do
  IFS='|' read -r a b c d e f <<<"$r"
  printf '%-36s %-12s %-22s %-7s %-8s %s\n' "$a" "$b" "$c" "$d" "$e" "$f"
done
printf '\n(%s repetitions, %s, %s cores, %s)\n' "$reps" "$(command -v hyperfine >/dev/null && echo hyperfine || echo shell loop)" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
exit "$fail"
