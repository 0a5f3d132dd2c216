package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSquattedSpareNoteDirKeepsTheNote: another user (uid 54321) made
// nobody's spare note directory first, in a shared sticky directory (as
// /dev/shm/catchup-65534), where nobody can neither use nor remove it.
// nobody's fire whose ledger's filesystem is read-only runs unrecorded and
// keeps its note in a private directory of its own beside it, saying who
// made the squatted one and that root can remove it; `ls` counts the note,
// and the scan once the ledger is writable records it: the slot that ran
// is not run again.
func TestSquattedSpareNoteDirKeepsTheNote(t *testing.T) {
	dir := reachableTempDir(t)
	cred := asNobody(t, dir)
	if cred == nil {
		t.Skip("needs root, to act as two users")
	}
	shm := filepath.Join(dir, "shm")
	if err := os.Mkdir(shm, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shm, 0o777|os.ModeSticky)
	noteDir := filepath.Join(shm, "catchup-65534")
	squat := exec.Command("mkdir", "-m", "755", noteDir)
	squat.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 54321, Gid: 54321}}
	if out, err := squat.CombinedOutput(); err != nil {
		t.Fatalf("another user's mkdir: %v: %s", err, out)
	}
	state := filepath.Join(dir, "state")
	os.Mkdir(state, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", state).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", state).Run() })
	giveTo(t, state, cred)
	remount := func(mode string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+mode, state).CombinedOutput(); err != nil {
			t.Fatalf("remount %s: %v %s", mode, err, out)
		}
	}
	db := filepath.Join(state, "catchup.db")
	log := filepath.Join(dir, "who.log")
	runAs := runningAs(t, dir, cred)
	work := filepath.Join(dir, "work") // a working directory a replay trusts (dir is 1777)
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	giveTo(t, work, cred)
	as := func(now string, args ...string) (*catchupProc, int) {
		p := runAs(newCatchup(t, db, now, args...))
		p.cmd.Dir = work
		p.cmd.Env = append(p.cmd.Env, "CATCHUP_NOTE_DIR="+noteDir, "W="+log)
		return p, p.run(t)
	}
	fire := []string{"run", "--task", "who", "--cron", "0 * * * *", "--tz", "UTC", "--",
		"sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> "$W"`}
	if p, code := as("2026-03-10T01:00:05Z", fire...); code != 0 {
		t.Fatalf("first fire exited %d: %s", code, p.stderr.String())
	}
	checkpointed(t, db)
	remount("ro")
	p, code := as("2026-03-10T02:00:05Z", fire...)
	out := p.stderr.String()
	t.Logf("fire on a read-only ledger: exit %d\n%s", code, out)
	if code != 0 || strings.Contains(out, "cannot keep a note") {
		t.Errorf("the fire kept no note: exit %d: %s", code, out)
	}
	if !strings.Contains(out, "made by uid 54321") || !strings.Contains(out, "ask root to remove it") ||
		!strings.Contains(out, "meanwhile notes of unrecorded fires go to "+noteDir+".") {
		t.Errorf("the fire does not say who made the squatted directory, who can remove it and where notes go: %s", out)
	}
	if p, code := as("2026-03-10T02:10:00Z", "ls", "--missed"); code != 0 || strings.Contains(p.stdout.String(), "who") {
		t.Errorf("ls --missed on a read-only ledger: exit %d, names the noted slot: %s%s", code, p.stdout.String(), p.stderr.String())
	}
	remount("rw")
	p, code = as("2026-03-10T02:30:00Z", "scan")
	t.Logf("scan: exit %d\n%s%s", code, p.stdout.String(), p.stderr.String())
	if code != 0 || !strings.Contains(p.stderr.String(), "recorded 1 fire ") {
		t.Errorf("scan: exit %d, want the note recorded: %s", code, p.stderr.String())
	}
	want := "2026-03-10T01:00:00Z schedule|2026-03-10T02:00:00Z schedule"
	if got := strings.Join(readLines(t, log), "|"); got != want {
		t.Errorf("the job ran for %q, want %q: 02:00 once", got, want)
	}
}
