package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSpoolRefusesForeignNotes: a notes file another user could have
// written is refused (it could make a slot look done), and a bad line is
// skipped without losing the others.
func TestReadSpoolRefusesForeignNotes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, spoolName)
	notes := `{"task":"settle","trigger":"schedule","ran":false,"error":"x"}` + "\nnot json\n" +
		`{"task":"../etc","ran":true}` + "\n" + `{"task":"other","ran":true,"status":"succeeded"}` + "\n"
	if err := os.WriteFile(path, []byte(notes), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readSpool(path, os.Geteuid())
	if err != nil || len(got) != 2 || got[0].Task != "settle" || got[1].Task != "other" {
		t.Fatalf("readSpool = %+v, %v; want settle and other", got, err)
	}
	if err := os.Chmod(path, 0o622); err != nil {
		t.Fatal(err)
	}
	if _, err := readSpool(path, os.Geteuid()); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("group/other-writable notes: %v, want refused", err)
	}
	os.Chmod(path, 0o600)
	if _, err := readSpool(path, os.Geteuid()+1); err == nil {
		t.Error("notes owned by another user were read")
	}
}
