package crontab

import (
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
