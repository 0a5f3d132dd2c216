package catchup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestParallelNotesOnAFullDiskKeepEachOther: fires append their notes to one
// notes file at once on a full disk, with room for some of them. A note the
// disk refuses is taken back; one that was kept (appendNote said so) stays,
// whole: its fire told no one that its slot would run again. Before, a note
// taken back was cut at the size the file had when it looked, before another
// fire's note went in: that note, kept, was cut with it (parallel fires whose
// jobs filled the disk: a slot that ran was run again, said by no one).
func TestParallelNotesOnAFullDiskKeepEachOther(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (root only): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	notes, filler := filepath.Join(dir, spoolName), filepath.Join(dir, "filler")
	const fires, room = 8, 2 * 4096 // two pages free: two notes and part of a third
	for round := range 2000 {
		os.Remove(notes)
		fillAllBut(t, filler, room)
		lines := make([][]byte, fires)
		errs := make([]error, fires)
		var wg sync.WaitGroup
		for i := range fires {
			lines[i] = append(bytes.Repeat([]byte{byte('a' + i)}, 3000), '\n')
			wg.Go(func() { errs[i] = appendNote(notes, lines[i]) })
		}
		wg.Wait()
		b, err := os.ReadFile(notes)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for i := range fires {
			if errs[i] == nil && !bytes.Contains(b, lines[i]) {
				t.Fatalf("round %d: note %c was kept (appendNote returned nil), then lost: the file holds %s",
					round, 'a'+i, heads(b))
			}
		}
	}
}

// fillAllBut fills the filesystem holding path with the file at path, then
// frees room bytes of it.
func fillAllBut(t *testing.T, path string, room int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); errors.Is(err, syscall.ENOSPC) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(max(0, fi.Size()/4096*4096-room)); err != nil {
		t.Fatal(err)
	}
}

// heads names the notes a notes file of test notes holds, by their letter.
func heads(b []byte) string {
	var s []byte
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(l) > 0 {
			s = append(s, l[0])
		}
	}
	return fmt.Sprintf("%q", s)
}

// TestNotesAppendedWhileAScanTakesThemAreKept: fires append their notes
// while scans take the notes file (rename it, record what it holds, remove
// it) over and over: every note a fire kept is recorded once. Before, a
// fire that had opened the file before a scan took it appended to the
// taken file after the scan had read it, and the scan removed it: its note
// was lost, said by no one, and its slot, which ran, was run again
// (parallel fires, some of which found notes and recorded them).
func TestNotesAppendedWhileAScanTakesThemAreKept(t *testing.T) {
	// 400 appends, each synced, queue for the notes file's lock: on a slow
	// disk the last waits seconds. This test is about the scan's take, not
	// that bound (TestAStuckNoteHoldsNoOneForever): no note may go past it.
	// Its scans take the file as soon as a note is kept: on a starved
	// machine one note lost 100 such races in a row (30 of 400, at load
	// 25-60), a bound a scan's pace reaches nowhere else.
	defer func(w time.Duration, n int) { noteLockWait, appendTries = w, n }(noteLockWait, appendTries)
	noteLockWait, appendTries = 10*time.Minute, 100_000
	st, db := testLedger(t)
	now := mustTime(t, "2026-03-01T12:00:00Z")
	m := testMachine(db, now)
	const fires = 400
	var kept, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range fires {
		wg.Go(func() {
			at := now.Add(-time.Duration(i+1) * time.Minute)
			e := spoolEntry{Task: fmt.Sprintf("t%d", i%7), Slot: at, Trigger: "schedule", Host: m.Host, BootID: m.BootID,
				PID: 100 + i, StartedAt: at, EndedAt: at, Ran: true, Status: "succeeded", Error: "ledger unreachable"}
			if err := writeNote(m, e); err != nil {
				failed.Add(1)
				t.Errorf("note of fire %d: %v", i, err)
				return
			}
			kept.Add(1)
		})
	}
	done := make(chan struct{})
	recorded := 0
	go func() {
		defer close(done)
		for seen := int64(0); kept.Load()+failed.Load() < fires; {
			if k := kept.Load(); k == seen {
				runtime.Gosched() // a scan takes the notes when there are new ones
				continue
			} else {
				seen = k
			}
			n, err := importSpool(context.Background(), st, m, DefaultTolerance, nil)
			if err != nil {
				t.Errorf("import: %v", err)
				return
			}
			recorded += n.total()
		}
	}()
	wg.Wait()
	<-done
	n, err := importSpool(context.Background(), st, m, DefaultTolerance, nil)
	if err != nil {
		t.Fatal(err)
	}
	if recorded += n.total(); recorded != int(kept.Load()) {
		t.Errorf("%d notes kept, %d recorded: %d lost", kept.Load(), recorded, int(kept.Load())-recorded)
	}
}

// TestAStuckNoteHoldsNoOneForever: a process that holds the notes file's
// lock and goes no further (stopped, frozen on a slow disk) holds a fire's
// note for noteLockWait at most, which then goes elsewhere (an error here:
// writeNote tries the spare note directory next), and a scan's import for
// as long, which then reads what the file holds.
func TestAStuckNoteHoldsNoOneForever(t *testing.T) {
	defer func(w time.Duration) { noteLockWait = w }(noteLockWait)
	noteLockWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), spoolName)
	holder, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- appendNote(path, []byte("a note\n")) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("appendNote wrote beside a note under way (the file's lock held)")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("appendNote still waits for the lock a stuck process holds, after 10 s")
	}
	go func() { awaitAppends(path); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("awaitAppends still waits for the lock a stuck process holds, after 10 s")
	}
}
