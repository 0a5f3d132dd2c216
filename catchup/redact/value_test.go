package redact

import "testing"

// TestValue: a flag's value holding a secret's shape is masked as an argv
// word is; a plain bad value is left whole (X11).
func TestValue(t *testing.T) {
	for name, tc := range map[string]struct{ v, want string }{
		"PGPASSWORD=":         {"PGPASSWORD=hunter2", "PGPASSWORD=***"},
		"TOKEN=":              {"TOKEN=abc123", "TOKEN=***"},
		"DB_PASS=":            {"DB_PASS=hunter2", "DB_PASS=***"},
		"a URL's password":    {"https://u:hunter2@h/x", "https://u:***@h/x"},
		"a cron expression":   {"TOKEN=abc123 * * * *", "TOKEN=*** * * * *"},
		"a header":            {"Authorization: Bearer abc123", "Authorization: Bearer ***"},
		"a plain duration":    {"5x", "5x"},
		"a zone":              {"Mars/Base", "Mars/Base"},
		"a cron":              {"61 * * * *", "61 * * * *"},
		"a variable's value":  {"PGPASSWORD=$PW", "PGPASSWORD=$PW"},
		"not a secret's name": {"MODE=fast", "MODE=fast"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Value(tc.v); got != tc.want {
				t.Errorf("Value(%q) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

// TestValueIn: each quoting of the value in a message, bare or as %q
// quotes it, is masked; a message quoting a plain value is left as it is.
func TestValueIn(t *testing.T) {
	for name, tc := range map[string]struct{ msg, v, want string }{
		"bare":     {`--timeout PGPASSWORD=hunter2: not a duration`, "PGPASSWORD=hunter2", `--timeout PGPASSWORD=***: not a duration`},
		"quoted":   {`invalid duration "a=1 TOKEN=\"x y\"": use 90s`, `a=1 TOKEN="x y"`, `invalid duration "a=1 TOKEN=\"***\"": use 90s`},
		"twice":    {`"TOKEN=abc" and TOKEN=abc`, "TOKEN=abc", `"TOKEN=***" and TOKEN=***`},
		"no match": {`invalid duration "5x"`, "5x", `invalid duration "5x"`},
	} {
		t.Run(name, func(t *testing.T) {
			if got := ValueIn(tc.msg, tc.v); got != tc.want {
				t.Errorf("ValueIn(%q, %q) = %q, want %q", tc.msg, tc.v, got, tc.want)
			}
		})
	}
}
