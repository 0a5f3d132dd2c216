package taskname

import (
	"regexp"
	"strings"
	"testing"
)

// taskNameOracle is the grammar as the contract states it.
var taskNameOracle = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func TestCheck(t *testing.T) {
	tests := map[string]struct {
		name string
		ok   bool
	}{
		"simple":           {"daily-settle", true},
		"dots and digits":  {"a.b_c-9", true},
		"128 chars":        {strings.Repeat("a", 128), true},
		"129 chars":        {strings.Repeat("a", 129), false},
		"empty":            {"", false},
		"traversal":        {"../etc", false},
		"slash":            {"a/b", false},
		"leading dot":      {".hidden", false},
		"leading dash":     {"-x", false},
		"space":            {"a b", false},
		"non-ascii letter": {"tâche", false},
		"nul":              {"a\x00b", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Check(tc.name)
			if (err == nil) != tc.ok {
				t.Fatalf("Check(%q) = %v, want ok=%v", tc.name, err, tc.ok)
			}
		})
	}
}

func FuzzValidTaskName(f *testing.F) {
	for _, s := range []string{"a", "../x", ".a", "a.b-c_d", strings.Repeat("z", 129), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), taskNameOracle.MatchString(s); got != want {
			t.Fatalf("Valid(%q) = %v, the grammar says %v", s, got, want)
		}
	})
}
