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

func TestQuoted(t *testing.T) {
	a64 := strings.Repeat("a", 64)
	tests := map[string]struct{ name, want string }{
		"short":            {"job", `"job"`},
		"newline escaped":  {"bad\nname", `"bad\nname"`},
		"64 kept whole":    {a64, `"` + a64 + `"`},
		"65 cut":           {a64 + "b", `"` + a64 + `"... (65 characters)`},
		"5000 cut":         {strings.Repeat("a", 5000), `"` + a64 + `"... (5000 characters)`},
		"runes not bytes":  {strings.Repeat("é", 70), `"` + strings.Repeat("é", 64) + `"... (70 characters)`},
		"invalid byte one": {a64 + "\xff", `"` + a64 + `"... (65 characters)`},
		"escape in cut":    {"\x1b[2J" + strings.Repeat("a", 100), `"\x1b[2J` + strings.Repeat("a", 60) + `"... (104 characters)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Quoted(tc.name); got != tc.want {
				t.Fatalf("Quoted(%q) = %s, want %s", tc.name, got, tc.want)
			}
		})
	}
}
