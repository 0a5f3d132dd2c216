package crontab

import (
	"fmt"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"
)

// endless is a file beside a crontab that reads NUL bytes, counting them,
// with the size its Stat reports; it ends at 64 MiB, for a test that fails
// to end.
type endless struct {
	size int64
	read *int64
}

func (e endless) Stat() (fs.FileInfo, error) { return endlessInfo(e.size), nil }
func (e endless) Close() error               { return nil }
func (e endless) Read(p []byte) (int, error) {
	if *e.read >= 64<<20 {
		return 0, io.EOF
	}
	clear(p)
	*e.read += int64(len(p))
	return len(p), nil
}

type endlessInfo int64

func (s endlessInfo) Name() string       { return "big" }
func (s endlessInfo) Size() int64        { return int64(s) }
func (s endlessInfo) Mode() fs.FileMode  { return 0o644 }
func (s endlessInfo) ModTime() time.Time { return time.Time{} }
func (s endlessInfo) IsDir() bool        { return false }
func (s endlessInfo) Sys() any           { return nil }

// bigFS is a MapFS but for "big", an endless file.
type bigFS struct {
	fstest.MapFS
	big endless
}

func (b bigFS) Open(name string) (fs.File, error) {
	if name == "big" {
		return b.big, nil
	}
	return b.MapFS.Open(name)
}

func (b bigFS) ReadFile(name string) ([]byte, error) {
	if name == "big" {
		return io.ReadAll(b.big)
	}
	return b.MapFS.ReadFile(name)
}

func (b bigFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := b.MapFS.ReadDir(name)
	return append(entries, fs.FileInfoToDirEntry(endlessInfo(b.big.size))), err
}

// TestDuplicatesOfReadsAtMostMaxSize: a file beside the crontab is read
// no further than MaxSize + 1 bytes, and not at all when its size is over
// MaxSize (a user's sparse file of gigabytes beside a crontab in her
// cron.d directory made a root scan read it all: 1 GiB took 2 GB), and is
// not judged.
func TestDuplicatesOfReadsAtMostMaxSize(t *testing.T) {
	const own = "0 * * * * catchup run --task x -- /bin/x\n"
	tests := map[string]struct {
		size    int64 // what the file's Stat says
		readMax int64
	}{
		"its size over the cap":      {size: 2 << 30, readMax: 0},
		"no size said (like /proc)":  {size: 0, readMax: MaxSize + 1},
		"a size under what it holds": {size: 100, readMax: MaxSize + 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var read int64
			fsys := bigFS{MapFS: fstest.MapFS{"own": {Data: []byte(own)}}, big: endless{size: tc.size, read: &read}}
			if got := DuplicatesOf(fsys, "own", own, false); len(got) != 0 {
				t.Errorf("DuplicatesOf = %+v, want none", got)
			}
			if read > tc.readMax {
				t.Errorf("read %d bytes of the file beside it, want at most %d", read, tc.readMax)
			}
		})
	}
}

// manyFS holds n files beside "own", each of size bytes of NULs (read,
// counted, never allocated): a user's sparse files beside her crontab in
// her cron.d directory.
type manyFS struct {
	own          []byte
	n            int
	size         int64
	read, opened *int64
}

func (m manyFS) Open(name string) (fs.File, error) {
	if name == "own" {
		return fstest.MapFS{"own": {Data: m.own}}.Open("own")
	}
	*m.opened++
	left := m.size
	return &sized{endless: endless{size: m.size, read: m.read}, left: &left}, nil
}

func (m manyFS) ReadDir(string) ([]fs.DirEntry, error) {
	out := []fs.DirEntry{fs.FileInfoToDirEntry(endlessInfo(len(m.own)))}
	for i := range m.n {
		out = append(out, namedEntry{fmt.Sprintf("f%05d", i), m.size})
	}
	return out, nil
}

// sized is an endless file that ends at its size.
type sized struct {
	endless
	left *int64
}

func (s *sized) Read(p []byte) (int, error) {
	if *s.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), *s.left)]
	n, err := s.endless.Read(p)
	*s.left -= int64(n)
	return n, err
}

type namedEntry struct {
	name string
	size int64
}

func (e namedEntry) Name() string               { return e.name }
func (e namedEntry) IsDir() bool                { return false }
func (e namedEntry) Type() fs.FileMode          { return 0 }
func (e namedEntry) Info() (fs.FileInfo, error) { return endlessInfo(e.size), nil }

// TestDuplicatesOfReadsAtMostMaxSizeInAll: the files beside a crontab are
// read no further than MaxSize bytes in all, and no more than maxBeside of
// them are opened: 200 sparse files of MaxSize - 1 bytes each (8 KB of a
// user's disk) beside her crontab in her cron.d directory made a root scan
// take 15 s, 10,000 of them 13 minutes, at every scan (cron waits for the
// boot's).
func TestDuplicatesOfReadsAtMostMaxSizeInAll(t *testing.T) {
	const own = "0 * * * * catchup run --task x -- /bin/x\n"
	tests := map[string]struct {
		n    int
		size int64
	}{
		"many files near the cap": {n: 8, size: MaxSize - 1},
		"very many small files":   {n: 5000, size: 10},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var read, opened int64
			fsys := manyFS{own: []byte(own), n: tc.n, size: tc.size, read: &read, opened: &opened}
			if got := DuplicatesOf(fsys, "own", own, false); len(got) != 0 {
				t.Errorf("DuplicatesOf = %+v, want none", got)
			}
			if read > MaxSize+1 {
				t.Errorf("read %d bytes beside the crontab, want at most %d in all", read, MaxSize+1)
			}
			if opened > maxBeside {
				t.Errorf("opened %d files beside the crontab, want at most %d", opened, maxBeside)
			}
		})
	}
}
