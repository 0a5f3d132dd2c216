package cmd

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// TestDaemonLedgerGoneSaysWhy: the SQLite ledger's directory removed
// under a running daemon, every call after the first refused one (its
// reopen failing, the old ledger closed) said only "sql: database is
// closed", which names neither the ledger nor what happened. Each call
// says which ledger, that its directory (or file) is gone, and the fix.
func TestDaemonLedgerGoneSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		gone func(path string) error
		want string
	}{
		{name: "directory_removed", gone: func(path string) error { return os.RemoveAll(filepath.Dir(path)) },
			want: "its directory " + "%DIR%" + " was removed"},
		{name: "file_deleted", gone: func(path string) error { return os.Remove(path) }, want: "its file was deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "ledger.db")
			ctx := context.Background()
			loc, err := store.ParseLocation(path)
			if err != nil {
				t.Fatal(err)
			}
			first, err := ledger.Open(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			rl := reopenable(first, path, slog.New(slog.NewTextHandler(&log, nil)))
			t.Cleanup(func() { rl.Close() })
			if err := tc.gone(path); err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tc.want, "%DIR%", dir)
			task := store.Task{Name: "t", Schedule: "* * * * *", TZ: "UTC", RegisteredAt: time.Unix(0, 0)}
			for i := range 4 {
				err := rl.UpsertTask(ctx, task) // the first finds the file gone
				if i%2 == 1 {
					_, err = rl.Task(ctx, "t") // a fire reads its task first
				}
				if err == nil {
					t.Fatalf("call %d on a ledger gone succeeded", i)
				}
				if i == 0 {
					continue // the write that finds the file gone: "it was deleted"
				}
				msg := err.Error()
				if strings.Contains(msg, "database is closed") || !strings.Contains(msg, "ledger "+path) ||
					!strings.Contains(msg, want) || !errors.Is(err, store.ErrLedgerMoved) {
					t.Errorf("call %d: %v\nwant the ledger %s named, %q, the fix, and store.ErrLedgerMoved", i, err, path, want)
				}
			}
		})
	}
}
