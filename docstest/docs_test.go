package docstest

// TestDocs runs every ```console block of README.md and docs/*.md against a
// catchup binary built from this checkout, and fails when a command prints
// anything else than the block shows. The conventions of a block:
//
//   - "$ CMD" is a command, run by bash; the lines after it, up to the next
//     command, are what it prints (stdout and stderr interleaved).
//   - "(exit N)" after the output is the command's exit status; without it
//     the status must be 0. Give a background job's status with `wait $!`.
//   - "#" lines right before a command (or before another such line) are
//     comments. Output whose last line starts with "#" therefore cannot be
//     directly followed by a command.
//   - "..." in an output line stands for any text, also none (pids, boot
//     ids, durations, random names). Trailing blanks are ignored.
//
// How a block runs:
//
//   - Each block is one bash session (an `export` carries to its later
//     commands), started in the file's scratch directory, and it ends by
//     waiting for its background jobs. The blocks of a file run in order and
//     share that directory: "/tmp/docs2" in a command stands for it, and its
//     path is printed back as "/tmp/docs2". The files run in parallel.
//   - The environment is fixed: TZ=UTC, CATCHUP_HOST=vm, HOME=/tmp/docs2,
//     CATCHUP_STATE_DIR=/tmp/docs2/state, CATCHUP_NOTE_DIR=/tmp/docs2/.notes
//     (the spare note directory),
//     CATCHUP_LOCALTIME=/tmp/docs2/.localtime naming UTC (the zone cron reads
//     a crontab line in, whatever this machine's), CATCHUP_CRON_PATH naming
//     the binary's directory (cron's default PATH, where crontab wrap looks
//     for catchup), and on PATH the catchup binary and
//     the helper scripts of testdata/bin (slot, settle.sh, await, running...).
//     Examples pin the clock with CATCHUP_NOW.
//   - "127.0.0.1:18765" is a healthchecks-style HTTP server of the test: it
//     appends each request it receives to /tmp/docs2/hc.log.
//   - An HTML comment "<!-- docs-test ... -->" right before a block holds
//     hidden setup lines, run first, whose output is not shown and which must
//     exit 0. `resume` takes the environment and directory where the
//     previous block of the file ended; `needs TOOL...` skips the block when
//     a tool (sqlite3) is not installed; $DOCSTEST_FILES holds the files of
//     testdata/files to copy in place.
//
// A failure names the file and line of the command, its exit status, and the
// block's lines (-) against the output (+). One file:
// go test ./docstest -run 'TestDocs/docs/slots.md'.

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// binDir holds the catchup binary built by TestMain.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "docstest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "docstest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "catchup"), "github.com/catchup/catchup")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "docstest: go build catchup:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

func TestDocs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the examples use Linux tools and /proc")
	}
	if testing.Short() {
		t.Skip("-short: the docs' examples take half a minute; the full run checks them")
	}
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, path := range append([]string{"../README.md"}, files...) {
		name := strings.TrimPrefix(path, "../")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseBlocks(string(src))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		total += len(blocks)
		if len(blocks) > 0 {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runFile(t, name, blocks)
			})
		}
	}
	if total == 0 {
		t.Fatal("no console block found in README.md and docs/*.md")
	}
	t.Logf("%d console blocks", total)
}

// session is what the blocks of one file share.
type session struct {
	file      string
	env       []string
	toScratch *strings.Replacer // a block's text as it runs
	toDoc     *strings.Replacer // the output as the block shows it
	dir       string
}

func runFile(t *testing.T, file string, blocks []block) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	helpers, err := filepath.Abs(filepath.Join("testdata", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Abs(filepath.Join("testdata", "files"))
	hc := startPingServer(t, filepath.Join(root, "hc.log"))
	localtime := filepath.Join(root, ".localtime") // the host's zone, as cron reads it: UTC
	if err := os.Symlink("/usr/share/zoneinfo/UTC", localtime); err != nil {
		t.Fatal(err)
	}
	s := &session{
		file: file,
		dir:  root,
		env: []string{
			"PATH=" + binDir + ":" + helpers + ":" + os.Getenv("PATH"),
			"HOME=" + root,
			"TZ=UTC",
			"LC_ALL=C",
			"CATCHUP_HOST=vm",
			"CATCHUP_STATE_DIR=" + filepath.Join(root, "state"),
			"CATCHUP_NOTE_DIR=" + filepath.Join(root, ".notes"),
			"CATCHUP_LOCALTIME=" + localtime,
			"CATCHUP_CRON_PATH=" + binDir,
			"DOCSTEST_FILES=" + files,
			"DOCSTEST_ENV=" + filepath.Join(t.TempDir(), "env"),
		},
		toScratch: strings.NewReplacer("/tmp/docs2", root, "127.0.0.1:18765", hc),
		toDoc:     strings.NewReplacer(root, "/tmp/docs2", hc, "127.0.0.1:18765"),
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line_%d", b.line), func(t *testing.T) { s.run(t, b) })
	}
}

// prelude defines the commands of the hidden setup. A skipped block leaves
// nothing to resume, so that a block resuming it fails instead of running in
// the wrong place.
const prelude = `resume() { . "$DOCSTEST_ENV"; }
needs() { for t; do command -v "$t" >/dev/null || { rm -f "$DOCSTEST_ENV"; echo "DOCSTEST-SKIP: needs $t"; exit 0; }; done; }
`

// epilogue keeps where the block ended for `resume`, and waits for its
// background jobs.
const epilogue = `{ export -p | sed 's/^declare -x /export /'; printf 'cd %q\n' "$PWD"; } >"$DOCSTEST_ENV"
wait
`

// run runs a block as one bash script in which each step (setup line or
// command) is followed by a marker line with the step's number and status.
func (s *session) run(t *testing.T, b block) {
	mark := "@@docstest-" + rand.Text() + "@@"
	steps := append(append([]string{}, b.setup...), commandTexts(b.cmds)...)
	var script strings.Builder
	script.WriteString(prelude)
	for i, step := range steps {
		fmt.Fprintf(&script, "%s\nprintf '\\n%s %d %%d\\n' \"$?\"\n", s.toScratch.Replace(step), mark, i)
	}
	script.WriteString(epilogue)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir, cmd.Env, cmd.WaitDelay = s.dir, s.env, 5*time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s:%d: the block's bash session: %v", s.file, b.line, err)
	}
	text := string(out)
	if i := strings.Index(text, "DOCSTEST-SKIP: "); i >= 0 {
		t.Skipf("%s:%d: %s", s.file, b.line, strings.TrimSpace(text[i+len("DOCSTEST-SKIP: "):]))
	}
	outputs, statuses, trailing := splitOutput(text, mark)
	for i, step := range steps {
		got, ok := outputs[i]
		if !ok {
			t.Fatalf("%s:%d: the block stopped before %q; its output:\n%s", s.file, b.line, step, s.toDoc.Replace(text))
		}
		got = s.toDoc.Replace(got)
		if i < len(b.setup) {
			if statuses[i] != 0 {
				t.Errorf("%s:%d: hidden setup %q exited %d:\n%s", s.file, b.line, step, statuses[i], got)
			}
			continue
		}
		c := b.cmds[i-len(b.setup)]
		if i == len(steps)-1 {
			got += s.toDoc.Replace(trailing)
		}
		lines := outputLines(got)
		if statuses[i] != c.status || !matchLines(c.want, lines) {
			t.Errorf("%s:%d: $ %s\nexit status %d, want %d; output (- block, + binary):\n%s",
				s.file, c.line, c.text, statuses[i], c.status, diff(c.want, lines))
		}
	}
}

func commandTexts(cmds []command) []string {
	var texts []string
	for _, c := range cmds {
		texts = append(texts, c.text)
	}
	return texts
}

// splitOutput cuts a block's output at the markers: the output and exit
// status of each step, and what was printed after the last marker.
func splitOutput(out, mark string) (outputs map[int]string, statuses map[int]int, trailing string) {
	outputs, statuses = map[int]string{}, map[int]int{}
	re := regexp.MustCompile(`\n` + regexp.QuoteMeta(mark) + ` (\d+) (\d+)\n`)
	start := 0
	for _, m := range re.FindAllStringSubmatchIndex(out, -1) {
		i, _ := strconv.Atoi(out[m[2]:m[3]])
		status, _ := strconv.Atoi(out[m[4]:m[5]])
		outputs[i], statuses[i] = out[start:m[0]], status
		start = m[1]
	}
	return outputs, statuses, out[start:]
}

// outputLines splits output into lines; a final newline ends the last line.
func outputLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// startPingServer starts the examples' healthchecks-style server: it writes
// one line per request to logPath and answers 200.
func startPingServer(t *testing.T, logPath string) string {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		q := strconv.Quote(string(body))
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s %s body='%s'\n", r.Method, r.URL.RequestURI(), q[1:len(q)-1])
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}
