package postgres_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestImportPause: migrate carries a pause of the host's (there) into the
// shared ledger (here) when here has none, or only one that had ended
// before it began; a pause here that is live then, or newer, is here's own
// and stays; the same pause carried again changes nothing.
func TestImportPause(t *testing.T) {
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	type pause struct{ at, until time.Time }
	tests := map[string]struct {
		here, there, want pause
	}{
		"none here":                             {here: pause{}, there: pause{h(1), h(2)}, want: pause{h(1), h(2)}},
		"a later pause there, here's had ended": {here: pause{h(1), h(2)}, there: pause{h(3), time.Time{}}, want: pause{h(3), time.Time{}}},
		"here's ended as there's began":         {here: pause{h(1), h(3)}, there: pause{h(3), h(4)}, want: pause{h(3), h(4)}},
		"the same pause again":                  {here: pause{h(1), h(2)}, there: pause{h(1), h(2)}, want: pause{h(1), h(2)}},
		"here's still ran when there's began":   {here: pause{h(1), h(5)}, there: pause{h(3), time.Time{}}, want: pause{h(1), h(5)}},
		"here's until resume":                   {here: pause{h(1), time.Time{}}, there: pause{h(3), h(4)}, want: pause{h(1), time.Time{}}},
		"a newer pause here":                    {here: pause{h(3), h(4)}, there: pause{h(1), h(2)}, want: pause{h(3), h(4)}},
		"none there":                            {here: pause{h(1), h(2)}, there: pause{}, want: pause{h(1), h(2)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			dst := openPG(t, pgLedger(t))
			task := store.Task{Name: "p", Schedule: "@hourly", Replay: "all", Argv: []string{}, Source: "run",
				RegisteredAt: t0, UpdatedAt: t0}
			if _, err := dst.Import(ctx, "old-host", []store.Task{task}, nil); err != nil {
				t.Fatal(err)
			}
			if !tc.here.at.IsZero() {
				if err := dst.SetPause(ctx, "p", tc.here.at, tc.here.until); err != nil {
					t.Fatal(err)
				}
			}
			task.PausedAt, task.PausedUntil = tc.there.at, tc.there.until
			if _, err := dst.Import(ctx, "old-host", []store.Task{task}, nil); err != nil {
				t.Fatal(err)
			}
			got, err := dst.Task(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			if !got.PausedAt.Equal(tc.want.at) || !got.PausedUntil.Equal(tc.want.until) {
				t.Errorf("pause after import = %v until %v; want %v until %v", got.PausedAt, got.PausedUntil, tc.want.at, tc.want.until)
			}
		})
	}
}
