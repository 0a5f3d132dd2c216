package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTextfileChmodsOnlyItsOwnFile: --textfile gives its own temporary file
// mode 0644 through the descriptor, never by name. In a directory another
// user can write (a shared textfile directory), that user renamed the
// temporary file away and put a symlink in its place: root's chmod by name
// followed it and made any file world-readable (/etc/shadow; reproduced
// with a racing process).
func TestTextfileChmodsOnlyItsOwnFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(victim, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	textfileWritten = func(tmp string) {
		if err := os.Rename(tmp, tmp+".away"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(victim, tmp); err != nil {
			t.Error(err)
		}
	}
	defer func() { textfileWritten = nil }()
	err := writeTextfile(filepath.Join(dir, "catchup.prom"), nil)
	if fi, serr := os.Stat(victim); serr != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file a symlink planted in place of the temporary file points to: %v, mode %v; want it untouched, 0600", serr, fi.Mode().Perm())
	}
	if err == nil {
		t.Error("writeTextfile succeeded although its temporary file was replaced: want an error saying so")
	}
}
