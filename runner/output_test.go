package runner

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunStreamsNotMerged(t *testing.T) {
	var out, errb bytes.Buffer
	res := run(t, Config{
		Argv:     sh(`echo out1; echo err1 >&2; echo out2; echo err2 >&2`),
		Stdout:   &out,
		Stderr:   &errb,
		TailSize: 100,
	})
	tests := map[string]struct{ got, want string }{
		"stdout writer": {out.String(), "out1\nout2\n"},
		"stderr writer": {errb.String(), "err1\nerr2\n"},
		"stdout tail":   {string(res.StdoutTail), "out1\nout2\n"},
		"stderr tail":   {string(res.StderrTail), "err1\nerr2\n"},
	}
	for name, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", name, tc.got, tc.want)
		}
	}
	if res.StdoutBytes != 10 || res.StderrBytes != 10 {
		t.Errorf("StdoutBytes=%d StderrBytes=%d, want 10, 10", res.StdoutBytes, res.StderrBytes)
	}
}

func TestRunBinaryOutput(t *testing.T) {
	data := make([]byte, 0, 3*256)
	for i := range 3 * 256 {
		data = append(data, byte(i*7+i/256))
	}
	data = append(data, "\xff\xfe\x00\xc3\x28"...) // invalid UTF-8 too
	p := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	res := run(t, Config{
		Argv:     sh(`cat "$1"; cat "$1" >&2`, p),
		Stdout:   &out,
		Stderr:   &errb,
		TailSize: len(data),
	})
	for name, got := range map[string][]byte{
		"stdout writer": out.Bytes(), "stderr writer": errb.Bytes(),
		"stdout tail": res.StdoutTail, "stderr tail": res.StderrTail,
	} {
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from the input (%d vs %d bytes)", name, len(got), len(data))
		}
	}
}

func TestRunLargeOutputKeepsTailOnly(t *testing.T) {
	const size = 5_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, Config{
		Argv:     sh(`head -c 5000000 /dev/zero | tr '\0' a; printf END; head -c 1000 /dev/zero >&2`),
		Stdout:   io.Discard,
		TailSize: 1024,
	})
	runtime.ReadMemStats(&after)
	if res.ExitCode != 0 {
		t.Fatalf("ExitCode = %d", res.ExitCode)
	}
	if res.StdoutBytes != size+3 || res.StderrBytes != 1000 {
		t.Errorf("StdoutBytes=%d StderrBytes=%d, want %d, 1000", res.StdoutBytes, res.StderrBytes, size+3)
	}
	want := strings.Repeat("a", 1021) + "END"
	if string(res.StdoutTail) != want {
		t.Errorf("stdout tail: len %d, ends %q", len(res.StdoutTail), res.StdoutTail[max(0, len(res.StdoutTail)-8):])
	}
	if len(res.StderrTail) != 1000 {
		t.Errorf("stderr tail len = %d, want 1000", len(res.StderrTail))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/2 {
		t.Errorf("allocated %d bytes for %d bytes of output; memory is not bounded", alloc, size)
	}
}

func TestRunFailingWriterKeepsDraining(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // writes to w now fail with EPIPE
	defer w.Close()
	tests := map[string]Config{
		"writer returns error": {Stdout: errWriter{}, Stderr: errWriter{}},
		"closed pipe file":     {Stdout: w, Stderr: w},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			cfg.Argv = sh(`head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2; printf X; exit 4`)
			cfg.TailSize = 1
			res := run(t, cfg)
			if res.ExitCode != 4 {
				t.Errorf("ExitCode = %d, want 4 (child must not be blocked or killed)", res.ExitCode)
			}
			if res.StdoutBytes != 1_000_001 || res.StderrBytes != 300_000 || string(res.StdoutTail) != "X" {
				t.Errorf("StdoutBytes=%d StderrBytes=%d tail=%q", res.StdoutBytes, res.StderrBytes, res.StdoutTail)
			}
		})
	}
}

func TestRunChildClosesStdoutEarly(t *testing.T) {
	res := run(t, Config{
		Argv:     sh(`echo before; exec >&-; sleep 0.2; echo after >&2; exit 5`),
		TailSize: 100,
	})
	if res.ExitCode != 5 || string(res.StdoutTail) != "before\n" || string(res.StderrTail) != "after\n" {
		t.Fatalf("ExitCode=%d stdout=%q stderr=%q", res.ExitCode, res.StdoutTail, res.StderrTail)
	}
}

func TestRunNoCapture(t *testing.T) {
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outF.Close()
	var errb bytes.Buffer // not a file: still piped and captured
	res := run(t, Config{
		Argv:      sh(`echo direct; [ -f /proc/self/fd/1 ] && echo isfile; echo piped >&2`),
		Stdout:    outF,
		Stderr:    &errb,
		NoCapture: true,
		TailSize:  100,
	})
	got, err := os.ReadFile(outF.Name())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "direct\nisfile\n" {
		t.Errorf("stdout file = %q", got)
	}
	if len(res.StdoutTail) != 0 || res.StdoutBytes != 0 {
		t.Errorf("stdout captured despite NoCapture: %q, %d bytes", res.StdoutTail, res.StdoutBytes)
	}
	if errb.String() != "piped\n" || string(res.StderrTail) != "piped\n" {
		t.Errorf("stderr writer=%q tail=%q, want piped", errb.String(), res.StderrTail)
	}
}

func TestRunDaemonHoldsPipes(t *testing.T) {
	start := time.Now()
	res := run(t, Config{
		Argv:       sh(`sleep 30 & echo hi`),
		OutputWait: 300 * time.Millisecond,
		TailSize:   100,
	})
	t.Cleanup(func() { _ = syscall.Kill(-res.Pid, syscall.SIGKILL) })
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("Run took %v with a daemon holding the pipes", elapsed)
	}
	if res.ExitCode != 0 || string(res.StdoutTail) != "hi\n" {
		t.Fatalf("ExitCode=%d stdout=%q", res.ExitCode, res.StdoutTail)
	}
}
