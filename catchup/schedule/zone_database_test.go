package schedule

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownZoneWithoutDatabase: on a system with no zone database (a
// container image without tzdata), every zone name is unknown, and the
// error says why and what to install, not only that the name is unknown.
func TestUnknownZoneWithoutDatabase(t *testing.T) {
	empty := t.TempDir()
	for name, tc := range map[string]struct {
		dirs []string
		want bool
	}{
		"none of them":      {[]string{filepath.Join(empty, "nope"), filepath.Join(empty, "nor")}, false},
		"one is there":      {[]string{filepath.Join(empty, "nope"), empty}, true},
		"the system's list": {zoneDatabases, true}, // this machine has tzdata: the tests of zones need it
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("ZONEINFO", "")
			if got := hasZoneDatabase(tc.dirs); got != tc.want {
				t.Errorf("hasZoneDatabase(%v) = %v, want %v", tc.dirs, got, tc.want)
			}
		})
	}
	t.Run("the error", func(t *testing.T) {
		saved := zoneDatabases
		defer func() { zoneDatabases = saved }()
		zoneDatabases = []string{filepath.Join(empty, "nope")}
		t.Setenv("ZONEINFO", "")
		_, err := LoadZone("Europe/Nowhere")
		if err == nil || !strings.Contains(err.Error(), "no zone database") || !strings.Contains(err.Error(), "install tzdata") {
			t.Errorf("LoadZone = %v; want the missing zone database named, and tzdata", err)
		}
	})
}
