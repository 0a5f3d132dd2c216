package catchup

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAlertList(t *testing.T) {
	t.Parallel()
	words := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = strconv.Itoa(i + 1)
		}
		return w
	}
	tests := map[string]struct {
		n                  int
		wantWords          int
		wantFirst, wantGap string
		wantLast           string
	}{
		"empty":               {n: 0, wantWords: 0},
		"short list is whole": {n: 3, wantWords: 3, wantFirst: "1", wantLast: "3"},
		"at the bound whole":  {n: 200, wantWords: 200, wantFirst: "1", wantGap: "101", wantLast: "200"},
		"one over the bound":  {n: 201, wantWords: 201, wantFirst: "1", wantGap: "...", wantLast: "201"},
		"a long outage":       {n: 7195, wantWords: 201, wantFirst: "1", wantGap: "...", wantLast: "7195"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := strings.Fields(alertList(words(tc.n)))
			if len(got) != tc.wantWords {
				t.Fatalf("%d words, want %d", len(got), tc.wantWords)
			}
			if tc.n == 0 {
				return
			}
			if got[0] != tc.wantFirst || got[len(got)-1] != tc.wantLast {
				t.Errorf("first %q, last %q; want %q, %q", got[0], got[len(got)-1], tc.wantFirst, tc.wantLast)
			}
			if len(got) > alertListEnds && got[alertListEnds] != tc.wantGap {
				t.Errorf("word %d is %q, want %q", alertListEnds+1, got[alertListEnds], tc.wantGap)
			}
		})
	}
}

// TestAlertSlotsIsAlertListOfTheirTimes: alertSlots formats only the
// slots it keeps, and says what alertList says of them all formatted.
func TestAlertSlotsIsAlertListOfTheirTimes(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2*alertListEnds - 1, 2 * alertListEnds, 2*alertListEnds + 1, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			slots := make([]time.Time, n)
			words := make([]string, n)
			at := time.Date(2026, 3, 29, 0, 0, 0, 0, time.FixedZone("+02", 7200))
			for i := range slots {
				slots[i] = at.Add(time.Duration(i) * time.Minute)
				words[i] = slots[i].UTC().Format(time.RFC3339)
			}
			if got, want := alertSlots(n, func(i int) time.Time { return slots[i] }), alertList(words); got != want {
				t.Errorf("alertSlots of %d slots:\n%q\nwant alertList of them formatted:\n%q", n, got, want)
			}
		})
	}
}
