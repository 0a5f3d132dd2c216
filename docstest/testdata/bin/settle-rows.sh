#!/bin/sh
# settle rows 1..10, recording a checkpoint after each one
done_upto=${CATCHUP_CHECKPOINT:-0}
[ "$CATCHUP_RESUMED" = 1 ] && echo "resuming after row $done_upto"
for row in $(seq $((done_upto + 1)) 10); do
  sleep 0.1                                   # settle one row
  [ "$row" = "$STALL_AT_ROW" ] && sleep 60    # the example makes one row hang
  catchup progress $((row * 10)) --note "$row"
done
echo "settled rows $((done_upto + 1))-10 for $CATCHUP_SLOT"
