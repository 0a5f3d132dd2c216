package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRunExitStatus(t *testing.T) {
	tests := map[string]struct {
		script   string
		wantCode int
		wantSig  int
	}{
		"success":           {script: "true", wantCode: 0},
		"exit 3":            {script: "exit 3", wantCode: 3},
		"exit 255":          {script: "exit 255", wantCode: 255},
		"killed by SIGKILL": {script: "kill -9 $$", wantCode: 137, wantSig: 9},
		"killed by SIGTERM": {script: "kill -TERM $$", wantCode: 143, wantSig: 15},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := run(t, Config{Argv: sh(tc.script)})
			if !res.Started || res.StartErr != nil {
				t.Fatalf("Started=%v StartErr=%v, want started", res.Started, res.StartErr)
			}
			if res.ExitCode != tc.wantCode || res.Signal != tc.wantSig {
				t.Errorf("ExitCode=%d Signal=%d, want %d, %d", res.ExitCode, res.Signal, tc.wantCode, tc.wantSig)
			}
			if res.TimedOut {
				t.Error("TimedOut = true, want false")
			}
			if res.Pid <= 0 {
				t.Errorf("Pid = %d, want > 0", res.Pid)
			}
		})
	}
}

func TestRunStartFailures(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("\x7fNOT-AN-ELF\x00\x01"), 0o755); err != nil {
		t.Fatal(err)
	}
	pathDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pathDir, "noexec-tool"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		cfg      Config
		wantCode int
	}{
		"absolute path missing":  {cfg: Config{Argv: []string{filepath.Join(dir, "missing")}}, wantCode: 127},
		"name not in PATH":       {cfg: Config{Argv: []string{"catchup-no-such-command-xyz"}}, wantCode: 127},
		"bad interpreter":        {cfg: Config{Argv: []string{writeScript(t, "#!/nonexistent/sh\n")}}, wantCode: 127},
		"mode 0644":              {cfg: Config{Argv: []string{plain}}, wantCode: 126},
		"directory":              {cfg: Config{Argv: []string{dir}}, wantCode: 126},
		"not a valid executable": {cfg: Config{Argv: []string{garbage}}, wantCode: 126},
		"in PATH but not executable": {
			cfg:      Config{Argv: []string{"noexec-tool"}, Env: []string{"PATH=" + pathDir}},
			wantCode: 126,
		},
		"missing working directory": {
			cfg:      Config{Argv: []string{"/bin/true"}, Dir: filepath.Join(dir, "nope")},
			wantCode: 126,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := run(t, tc.cfg)
			if res.Started || res.StartErr == nil {
				t.Fatalf("Started=%v StartErr=%v, want not started with an error", res.Started, res.StartErr)
			}
			if res.ExitCode != tc.wantCode {
				t.Errorf("ExitCode = %d (%v), want %d", res.ExitCode, res.StartErr, tc.wantCode)
			}
			if res.Pid != 0 {
				t.Errorf("Pid = %d, want 0", res.Pid)
			}
		})
	}
}

// writeScript writes an executable file with the given content.
func writeScript(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunMisuse(t *testing.T) {
	tests := map[string]Config{
		"nil argv":      {},
		"empty argv":    {Argv: []string{}},
		"empty argv[0]": {Argv: []string{""}},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(context.Background(), cfg); err == nil {
				t.Fatal("Run: want an error for misuse")
			}
		})
	}
}

func TestRunPathFromEnv(t *testing.T) {
	bin := t.TempDir()
	tool := filepath.Join(bin, "catchup-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho from-tool \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, Config{
		Argv:     []string{"catchup-test-tool", "arg"},
		Env:      []string{"PATH=/nonexistent", "PATH=" + bin + ":/usr/bin:/bin"}, // last one wins
		TailSize: 100,
	})
	if res.ExitCode != 0 || string(res.StdoutTail) != "from-tool arg\n" {
		t.Fatalf("ExitCode=%d stdout=%q err=%v", res.ExitCode, res.StdoutTail, res.StartErr)
	}
}

func TestRunEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, Config{
		Argv:     sh(`printf '%s|%s|%s' "$FOO" "${HOME-unset}" "$(pwd -P)"`),
		Env:      []string{"FOO=bar baz", "PATH=/usr/bin:/bin"},
		Dir:      dir,
		TailSize: 4096,
	})
	if got, wantOut := string(res.StdoutTail), "bar baz|unset|"+want; got != wantOut {
		t.Fatalf("stdout = %q, want %q", got, wantOut)
	}
}

func TestRunOnStart(t *testing.T) {
	var got int
	res := run(t, Config{
		Argv:     sh(`echo $$`),
		TailSize: 64,
		OnStart:  func(pid int) { got = pid },
	})
	printed, err := strconv.Atoi(strings.TrimSpace(string(res.StdoutTail)))
	if err != nil {
		t.Fatalf("child printed %q: %v", res.StdoutTail, err)
	}
	if got == 0 || got != res.Pid || got != printed {
		t.Fatalf("OnStart pid=%d Result.Pid=%d child $$=%d, want all equal", got, res.Pid, printed)
	}
}

func TestRunStdin(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("line from stdin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := map[string]struct {
		stdin *os.File
		want  string
	}{
		"nil is /dev/null": {stdin: nil, want: ""},
		"file is passed":   {stdin: f, want: "line from stdin\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := run(t, Config{Argv: sh("cat"), Stdin: tc.stdin, TailSize: 100})
			if res.ExitCode != 0 || string(res.StdoutTail) != tc.want {
				t.Fatalf("ExitCode=%d stdout=%q, want 0, %q", res.ExitCode, res.StdoutTail, tc.want)
			}
		})
	}
}

func TestRunExtraFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	if err := os.WriteFile(p, []byte("held-by-fd3"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res := run(t, Config{
		Argv:       sh(`[ -e /proc/self/fd/3 ] || exit 9; cat <&3`),
		ExtraFiles: []*os.File{f},
		TailSize:   100,
	})
	if res.ExitCode != 0 || string(res.StdoutTail) != "held-by-fd3" {
		t.Fatalf("ExitCode=%d stdout=%q", res.ExitCode, res.StdoutTail)
	}
}

func TestRunCanceledBeforeStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCtx(t, ctx, Config{Argv: sh(`touch "$1"`, marker)})
	if res.Started || !errors.Is(res.StartErr, context.Canceled) || res.ExitCode != 125 {
		t.Fatalf("Started=%v StartErr=%v ExitCode=%d", res.Started, res.StartErr, res.ExitCode)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("command ran although ctx was already canceled")
	}
}
