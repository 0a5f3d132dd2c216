package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkTrustedWorkDir is the cost of one check of a registered
// working directory three levels under the test's temporary directory,
// which scan makes before each replay's claim (the job's start: stillSeen).
func BenchmarkTrustedWorkDir(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "work", "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	uid := os.Geteuid()
	if err := trustedWorkDir(dir, uid); err != nil {
		b.Skipf("the test's directory is not trusted here: %v", err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := trustedWorkDir(dir, uid); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStillSeen is what a replay's job start pays instead, while the
// directory is still the one the scan's check saw.
func BenchmarkStillSeen(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "work", "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	seen, err := checkedWorkDir(dir, os.Geteuid())
	if err != nil {
		b.Skipf("the test's directory is not trusted here: %v", err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !stillSeen(dir, seen) {
			b.Fatal("not still seen")
		}
	}
}
