package catchup

import (
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestSplitPaused(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 2, 0, 0, 0, time.UTC) }
	slots := []time.Time{day(1), day(2), day(3), day(4), day(5)}
	causes := []string{"a", "b", "c", "d", "e"}
	tests := map[string]struct {
		from, until  time.Time
		wantPaused   []time.Time
		wantSlots    []time.Time
		wantCauses   []string
		wantExpiring int
	}{
		"never paused": {wantSlots: slots, wantCauses: causes, wantExpiring: 2},
		"paused until resume": {from: day(2).Add(-time.Hour), wantPaused: slots[1:],
			wantSlots: slots[:1], wantCauses: causes[:1], wantExpiring: 1},
		"a pause that ended": {from: day(2), until: day(4), wantPaused: slots[1:3],
			wantSlots: []time.Time{day(1), day(4), day(5)}, wantCauses: []string{"a", "d", "e"}, wantExpiring: 1},
		"the end is not in the pause": {from: day(4), until: day(5), wantPaused: slots[3:4],
			wantSlots: []time.Time{day(1), day(2), day(3), day(5)}, wantCauses: []string{"a", "b", "c", "e"}, wantExpiring: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := missed{slots: append([]time.Time{}, slots...), causes: append([]string{}, causes...), expiring: 2}
			paused := splitPaused(store.Task{PausedAt: tc.from, PausedUntil: tc.until}, &res)
			if !reflect.DeepEqual(paused, tc.wantPaused) || !reflect.DeepEqual(res.slots, tc.wantSlots) ||
				!reflect.DeepEqual(res.causes, tc.wantCauses) || res.expiring != tc.wantExpiring {
				t.Errorf("paused %v, left %v %v expiring %d; want %v, %v %v expiring %d",
					paused, res.slots, res.causes, res.expiring, tc.wantPaused, tc.wantSlots, tc.wantCauses, tc.wantExpiring)
			}
		})
	}
}
