package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// parseRunIDs reads variable name's value, run ids separated by commas
// (backfill's word to a crontab line's catchup run), "" for none.
func parseRunIDs(name, v string) ([]int64, error) {
	if v == "" {
		return nil, nil
	}
	var ids []int64
	for _, f := range strings.Split(v, ",") {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("invalid %s %q: want run ids separated by commas (backfill sets it for a crontab line's run)", name, v)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
