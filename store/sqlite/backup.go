package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Backup implements store.Store with VACUUM INTO: a snapshot of every
// committed run, the WAL's included, in one standalone file (no -wal or
// -shm needed beside it). The file is created 0600 first (the ledger holds
// the jobs' output tails), never through a symlink, and the snapshot is
// written through that descriptor, never to dest by name: whoever else can
// write dest's directory could swap the new file for a symlink to a file
// of theirs before SQLite opened the name (SQLite follows symlinks), and
// read the ledger there. The snapshot is made under a temporary name
// beside the ledger (snapshot), so a backup takes the ledger's size there
// for its time. It is synced with its directory afterwards.
func (s *Ledger) Backup(ctx context.Context, dest string) error {
	ctx = uncancelled(ctx)
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("back up ledger %s: %w; fix: name a file in a directory this user (uid %d) can write", s.path, err, os.Getuid())
	}
	if err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	done := false
	defer func() {
		if !done && isFile(dest, f) {
			os.Remove(dest)
		}
		f.Close()
	}()
	if backupCreated != nil {
		backupCreated(dest)
	}
	if err := s.snapshot(ctx, f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	if !isFile(dest, f) {
		return fmt.Errorf("back up ledger %s: %s was replaced while the backup was written (by another user who can write %s?), "+
			"so it is not the backup: back up into a directory only you can write", s.path, dest, filepath.Dir(dest))
	}
	if err := syncFile(filepath.Dir(dest)); err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	done = true
	return nil
}

// snapshot writes a VACUUM INTO copy of the ledger to w. SQLite writes it
// by name, so under a temporary name beside the ledger (the ledger's own
// directory: no one else can swap it), named as a new ledger's temporary
// file so that removeLeftovers removes it if this process dies; it is
// copied to w, then removed.
//
// A ledger whose directory this user cannot write (a read-only copy, read
// as it is) is snapshot in a directory of this process's own instead,
// created 0700 in the temporary directory: no one else can enter it.
func (s *Ledger) snapshot(ctx context.Context, w io.Writer) error {
	tmp, err := createTemp(s.real)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		var dir string
		if dir, err = os.MkdirTemp("", "catchup-backup-"); err == nil {
			defer os.RemoveAll(dir)
			tmp, err = os.Create(filepath.Join(dir, "snapshot.db"))
		}
	}
	if err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	defer func() {
		tmp.Close()
		for _, p := range []string{tmp.Name(), tmp.Name() + "-journal"} {
			os.Remove(p)
		}
	}()
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, tmp.Name()); err != nil {
		return s.wrap("back up ledger", err)
	}
	if _, err := io.Copy(w, tmp); err != nil {
		return fmt.Errorf("back up ledger %s: %w", s.path, err)
	}
	return nil
}

// isFile reports whether path names, without following a symlink, the
// file open as f.
func isFile(path string, f *os.File) bool {
	a, err1 := os.Lstat(path)
	b, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
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

// backupCreated, when set (tests), is called once the backup's file is
// created, before the snapshot is written.
var backupCreated func(dest string)
