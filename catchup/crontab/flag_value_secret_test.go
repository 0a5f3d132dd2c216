package crontab

import (
	"strings"
	"testing"
)

// TestFlagValueSecretNotEchoed: the error of a catchup line whose flag got
// a secret-shaped value (a VAR=secret written after a flag) shows it
// masked as package redact masks it, in both readers of a crontab (Parse
// for scan, ParseJobs for the daemon); a plain bad value is quoted as
// written (X11).
func TestFlagValueSecretNotEchoed(t *testing.T) {
	for name, tc := range map[string]struct{ line, want string }{
		"timeout":        {"* * * * * catchup run --task a --timeout PGPASSWORD=hunter2 -- true", `invalid --timeout "PGPASSWORD=***"`},
		"retries":        {"* * * * * catchup run --task a --retries TOKEN=hunter2 -- true", `invalid --retries "TOKEN=***"`},
		"tolerance":      {"* * * * * catchup run --task a --tolerance=DB_PASS=hunter2 -- true", `invalid --tolerance "DB_PASS=***"`},
		"a switch":       {"* * * * * catchup run --task a --force=API_TOKEN=hunter2 -- true", `invalid value "API_TOKEN=***" for --force`},
		"task":           {"* * * * * catchup run --task PGPASSWORD=hunter2 -- true", `invalid task name "PGPASSWORD=***"`},
		"a URL":          {"* * * * * catchup run --task a --kill-after https://u:hunter2@h/x -- true", `invalid --kill-after "https://u:***@h/x"`},
		"plain, kept":    {"* * * * * catchup run --task a --timeout 5x -- true", `invalid --timeout "5x"`},
		"plain task":     {"* * * * * catchup run --task -x- -- true", `invalid task name "-x-"`},
		"an unset value": {"* * * * * catchup run --task a --timeout PGPASSWORD=$PW -- true", ``},
	} {
		t.Run(name, func(t *testing.T) {
			_, errs := Parse(strings.NewReader(tc.line+"\n"), "c", false)
			if tc.want == "" {
				if len(errs) != 0 {
					t.Fatalf("Parse: %v; want no error", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("Parse: %v; want one error", errs)
			}
			if got := errs[0].Error(); !strings.Contains(got, tc.want) || strings.Contains(got, "hunter2") {
				t.Errorf("Parse: %q; want it to hold %q and no hunter2", got, tc.want)
			}
		})
	}
}
