#!/bin/sh
# page.sh: hand the failure to the pager (here: print it)
echo "PAGE: $CATCHUP_TASK run $CATCHUP_RUN_ID slot=$CATCHUP_SLOT status=$CATCHUP_STATUS exit=$CATCHUP_EXIT_CODE stderr=$CATCHUP_STDERR_TAIL"
