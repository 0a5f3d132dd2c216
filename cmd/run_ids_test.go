package cmd

import (
	"slices"
	"strings"
	"testing"
)

// TestParseRunIDs: CATCHUP_BACKFILL_SAID, backfill's word to a crontab
// line's run, is run ids separated by commas; anything else is an error
// naming the variable.
func TestParseRunIDs(t *testing.T) {
	for name, tc := range map[string]struct {
		in      string
		want    []int64
		wantErr bool
	}{
		"none":     {in: ""},
		"one":      {in: "7", want: []int64{7}},
		"several":  {in: "2,15", want: []int64{2, 15}},
		"a word":   {in: "2,x", wantErr: true},
		"zero":     {in: "0", wantErr: true},
		"trailing": {in: "2,", wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := parseRunIDs("CATCHUP_BACKFILL_SAID", tc.in)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "CATCHUP_BACKFILL_SAID") {
					t.Fatalf("got %v, %v; want an error naming the variable", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
