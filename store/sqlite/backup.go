package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Backup implements store.Store with VACUUM INTO: a snapshot of every
// committed run, the WAL's included, in one standalone file (no -wal or
// -shm needed beside it). The file is created 0600 first (the ledger holds
// the jobs' output tails), and synced with its directory afterwards.
func (s *Ledger) Backup(ctx context.Context, dest string) error {
	ctx = uncancelled(ctx)
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	f.Close()
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		os.Remove(dest)
		return s.wrap("back up ledger", err)
	}
	if err := syncFile(dest); err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	if err := syncFile(filepath.Dir(dest)); err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	return nil
}

// syncFile fsyncs the file or directory at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
