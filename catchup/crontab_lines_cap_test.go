package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestCrontabCatchupLinesCapped: a crontab file of more catchup lines
// than cron itself loads entries of one crontab (crontab.MaxCatchupLines)
// is refused whole, in one warning that names it and the fix, and the
// crontab beside it is read all the same: a user's crontab of 267,000
// catchup lines (15 MB, under the 16 MiB cap) took a root scan minutes
// and gigabytes, at every scan. Lines that do not run catchup are not
// counted: they cost the scan nothing to speak of.
func TestCrontabCatchupLinesCapped(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		catchup, other int
		refused        bool
	}{
		"at the cap":                    {catchup: crontab.MaxCatchupLines},
		"one over the cap":              {catchup: crontab.MaxCatchupLines + 1, refused: true},
		"many lines without catchup":    {catchup: 1, other: 3 * crontab.MaxCatchupLines},
		"over the cap among other ones": {catchup: crontab.MaxCatchupLines + 1, other: 10, refused: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			big, small := filepath.Join(dir, "big"), filepath.Join(dir, "small")
			var b strings.Builder
			for i := range tc.other {
				fmt.Fprintf(&b, "0 * * * * echo other%d\n", i)
			}
			b.WriteString(catchupLines(tc.catchup))
			if err := os.WriteFile(big, []byte(b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(small, []byte("0 * * * * catchup run --task beside -- true\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cts := newCrontabs(Machine{UID: os.Geteuid()})
			entries, warnings, err := cts.discover([]CrontabSource{{Name: big, Path: big}, {Name: small, Path: small}})
			if err != nil {
				t.Fatal(err)
			}
			if last := entries[len(entries)-1]; last.Task != "beside" {
				t.Errorf("last line read is task %s; want the crontab beside's (beside)", last.Task)
			}
			if !tc.refused {
				if len(entries) != tc.catchup+1 || len(cts.warnings) != 0 || len(warnings) != 0 {
					t.Fatalf("%d lines, warnings %q %q; want all %d, no warning", len(entries), cts.warnings, warnings, tc.catchup+1)
				}
				return
			}
			want := fmt.Sprintf("crontab %s: refused: it holds more than %d catchup lines, the most cron loads of one crontab: none of them were read; fix: ",
				big, crontab.MaxCatchupLines)
			if len(entries) != 1 || cts.refused != 1 || len(cts.warnings) != 1 || !strings.HasPrefix(cts.warnings[0], want) ||
				strings.Contains(cts.warnings[0], "\n") {
				t.Fatalf("%d lines, %d refused, warnings %q; want the crontab beside's only, one warning starting %q", len(entries), cts.refused, cts.warnings, want)
			}
		})
	}
}
