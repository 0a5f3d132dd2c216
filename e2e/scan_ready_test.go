package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBootScanTellsSystemdItStarted: the packaged unit orders cron after
// the boot scan, so a replayed job that hangs kept cron from starting, and
// with it every cron job on the host, until the job ended. Under systemd
// (Type=notify: NOTIFY_SOCKET set) scan says it has started (READY=1) at
// --ready-after, its replays running on; at its end at the latest. A
// replayed job does not get NOTIFY_SOCKET (it would speak for the unit).
func TestBootScanTellsSystemdItStarted(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	dir, db := tempLedger(t)
	released := filepath.Join(dir, "release")
	job := `echo "$CATCHUP_SLOT ${NOTIFY_SOCKET:-none}" >> ` + filepath.Join(dir, "ran") +
		`; [ "$CATCHUP_TRIGGER" = replay ] || exit 0; i=0; while [ ! -e ` + released + ` ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done`
	if code := newCatchup(t, db, "2026-03-01T10:00:10Z", "run", "--task", "hang", "--cron", "0 * * * *", "--", "sh", "-c", job).run(t); code != 0 {
		t.Fatalf("first fire exited %d", code)
	}
	socket := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	scan := newCatchup(t, db, "2026-03-01T12:10:00Z", "scan", "--ready-after", "1s")
	scan.cmd.Env = append(scan.cmd.Env, "NOTIFY_SOCKET="+socket)
	if err := scan.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, ended := make(chan error, 1), make(chan struct{})
	go func() { exited <- scan.cmd.Wait(); close(ended) }()
	defer func() {
		touch(t, released)
		select {
		case <-ended:
		case <-time.After(waitLimit):
			syscall.Kill(-scan.cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(waitLimit))
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no READY=1 from scan within %v while its replay hangs (cron would wait for it): %v; stderr:\n%s", waitLimit, err, scan.stderr.String())
	}
	if got := string(buf[:n]); !strings.HasPrefix(got, "READY=1\nSTATUS=") {
		t.Errorf("scan sent %q, want READY=1 and a STATUS", got)
	}
	select {
	case err := <-exited:
		t.Fatalf("scan exited (%v) before its replay was released: READY=1 was its end's, not --ready-after's", err)
	default:
	}
	touch(t, released)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("scan: %v; stderr:\n%s", err, scan.stderr.String())
		}
	case <-time.After(waitLimit):
		t.Fatalf("scan did not end within %v of its replay's release", waitLimit)
	}
	conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := conn.Read(buf); err == nil {
		t.Errorf("scan sent a second datagram %q: READY=1 goes once", buf[:n])
	}
	b, err := os.ReadFile(filepath.Join(dir, "ran"))
	if err != nil {
		t.Fatal(err)
	}
	want := "2026-03-01T10:00:00Z none\n2026-03-01T11:00:00Z none\n2026-03-01T12:00:00Z none\n"
	if string(b) != want {
		t.Errorf("the job ran for\n%swant\n%s(each missed slot replayed, without NOTIFY_SOCKET)", b, want)
	}

	// A scan that ends before --ready-after says it started as it ends:
	// a Type=notify service that exits without READY=1 fails to start.
	quick := newCatchup(t, db, "2026-03-01T12:20:00Z", "scan")
	quick.cmd.Env = append(quick.cmd.Env, "NOTIFY_SOCKET="+socket)
	if code := quick.run(t); code != 0 {
		t.Fatalf("scan with nothing to replay exited %d: %s", code, quick.stderr.String())
	}
	conn.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := conn.Read(buf); err != nil || !strings.HasPrefix(string(buf[:n]), "READY=1\n") {
		t.Errorf("a scan with nothing to replay sent %q (%v), want READY=1 at its end", buf[:max(n, 0)], err)
	}

	// An error (exit 2) says nothing: systemd fails the start and restarts
	// the scan, cron waiting for that (an unreachable shared ledger at boot).
	bad := newCatchup(t, db, "2026-03-01T12:30:00Z", "scan", "--task", "nosuch")
	bad.cmd.Env = append(bad.cmd.Env, "NOTIFY_SOCKET="+socket)
	if code := bad.run(t); code != 2 {
		t.Fatalf("scan --task nosuch exited %d, want 2: %s", code, bad.stderr.String())
	}
	conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := conn.Read(buf); err == nil {
		t.Errorf("a scan that exits 2 sent %q: systemd would start cron at once, not retry the scan first", buf[:n])
	}
}
