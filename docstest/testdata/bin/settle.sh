#!/bin/sh
echo "settle: $CATCHUP_PREV_SLOT .. $CATCHUP_SLOT ($CATCHUP_TRIGGER)"
