package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
)

type wrapRequest struct {
	file    string // "" or "-" for stdin
	diff    bool
	inPlace bool
	system  bool
}

func newCrontabCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "crontab",
		Short: "Tools for crontabs: wrap an existing crontab's jobs in catchup run",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usageErr(c, errors.New("want a subcommand: catchup crontab wrap"))
		},
	}
	c.AddCommand(newCrontabWrapCmd())
	return c
}

func newCrontabWrapCmd() *cobra.Command {
	var req wrapRequest
	c := &cobra.Command{
		Use:         "wrap [FILE|-] [--diff] [--in-place]",
		Annotations: map[string]string{opensNoLedger: "true"},
		Short:       "Print a crontab with each job line run through catchup run",
		Long: `Read a crontab (FILE, or standard input) and print it with each job line's
command prefixed by "catchup run --task NAME --". Variables, comments, blank
lines, @reboot lines and lines already running catchup are kept as they are;
stderr names each kept line that cron or scan could take for a job, with why,
one line each (@reboot, too few time fields, an unknown macro, no command, no
cron line at all, a catchup line that scan refuses). A command that is more than
plain words (quotes, redirections, pipes, $..., or a shell builtin first: exec,
., cd...) is run as one "sh -c '...'" (or
the crontab's SHELL), and text after cron's first unescaped % stays the job's
stdin.

NAME is the program or script the command runs, without directory or extension,
made unique with -2, -3...; a comment line "# catchup: task=NAME" right before a
job line names it. Scan discovers every wrapped line with the same schedule.

--diff prints the change as a unified diff instead (with --in-place, the diff of
what it writes). --in-place rewrites FILE, keeping the original in FILE.bak~, a
name no cron reads (cronie skips names ending in ~, Debian's cron names with a
dot); both keep FILE's mode, owner and group (cron refuses a user's crontab that
another user owns), so another user's FILE needs root. Not as root, FILE's group
is kept if you are in it, else both get your group, and stderr says so. A
symlink is refused: wrap the file it points to. A file in /etc/cron.d or
/etc/crontab is read in the system format (a user field), as is any file with
--system; cron and catchup scan read that format only there, so wrap says on
stderr where --system's output must go for scan to see its lines. FILE is read
as scan reads a crontab: only a regular file of at most 16 MiB; a FIFO, a
device or a directory is refused at once (pipe what it gives on standard input
instead).

wrap opens no ledger: the global --db, --host and --lease are refused (a wrapped
line's catchup run finds its own; CATCHUP_DB= or CATCHUP_HOST= in the crontab
chooses them).

A file beside FILE in a cron.d directory that cron reads too, holding a job line
not run through catchup whose command FILE runs (once wrapped) through catchup,
runs that command twice, once without catchup, whatever its schedule and name
(FILE.bak, written by an older catchup's --in-place, or a copy by hand): wrap
warns on stderr, naming the fix, and still wraps; catchup scan exits 1 until the
duplicate lines are removed or the file is renamed to a name ending in ~.

Exit 0 (FILE wrapped, warnings or not), or 2 on error (a FILE refused or
unreadable).`,
		Example: `  # your own crontab: wrap a copy, install it only if wrap succeeded
  crontab -l > crontab.orig
  catchup crontab wrap crontab.orig > crontab.new && crontab crontab.new
  catchup crontab wrap --diff /etc/cron.d/backup
  catchup crontab wrap --in-place /etc/cron.d/backup`,
		Args: wantArgs(0, 1, "at most one FILE (- or none: standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseLedgerFlags(c, wrapLedgerFlag); err != nil {
				return err
			}
			if len(args) == 1 {
				if args[0] == "" { // "$CRONTAB" unset: never read as no FILE (stdin)
					return usageErr(c, errors.New("empty FILE: name the crontab file, or - (or no FILE) for standard input"))
				}
				req.file = args[0]
			}
			if req.inPlace && (req.file == "" || req.file == "-") {
				return usageErr(c, errors.New("--in-place needs a FILE; for your own crontab: crontab -l > crontab.orig, then catchup crontab wrap crontab.orig > crontab.new && crontab crontab.new"))
			}
			if req.file != "" && req.file != "-" && crontab.IsSystem(req.file) {
				req.system = true
			}
			return runCrontabWrap(c, req)
		},
	}
	f := c.Flags()
	f.BoolVar(&req.diff, "diff", false, "print a unified diff of the change instead of the crontab")
	f.BoolVar(&req.inPlace, "in-place", false, "rewrite FILE, keeping the original in FILE.bak~ (a name no cron reads)")
	f.BoolVar(&req.system, "system", false, "read the system format (a user field after the time fields), which goes in /etc/cron.d")
	hideLedgerFlagsInUsage(c)
	return c
}

// wrapLedgerFlag says where a wrapped line's catchup run gets what a global
// flag given to wrap would have chosen.
func wrapLedgerFlag(flag string) string {
	switch flag {
	case "db":
		return "a wrapped line's catchup run finds its own ledger (to choose it, put CATCHUP_DB= in the crontab)"
	case "host":
		return "a wrapped line's catchup run names its own host (to choose it, put CATCHUP_HOST= in the crontab)"
	}
	return "a wrapped line's catchup run takes its own --" + flag + " (add it to the lines)"
}

func runCrontabWrap(c *cobra.Command, req wrapRequest) error {
	name, old, read, err := readCrontabToWrap(c.InOrStdin(), req.file)
	if err != nil {
		return failure(err)
	}
	text, changes, notes := crontab.Wrap(string(old), req.system, hostHasUser, userFieldFirst)
	if name != "-" {
		// Before the output: a file beside FILE that cron runs too runs,
		// without catchup, a command FILE runs (once wrapped) through catchup.
		abs, err := filepath.Abs(name)
		if err == nil {
			_, warnings := catchup.CrontabBackups(abs, text, req.system)
			for _, w := range warnings {
				fmt.Fprintf(c.ErrOrStderr(), "catchup: warning: %s\n", printable(w))
			}
		}
	}
	out := c.OutOrStdout()
	switch {
	case req.diff:
		writeWrapDiff(out, name, changes)
	case !req.inPlace:
		io.WriteString(out, text)
	}
	for _, n := range notes {
		fmt.Fprintf(c.ErrOrStderr(), "catchup: %s: %s\n", name, n)
	}
	warnPathWithoutCatchup(c.ErrOrStderr(), name, changes)
	if req.system && (name == "-" || !crontab.IsSystem(name)) {
		what := name
		if name == "-" {
			what = "standard input"
		}
		fmt.Fprintf(c.ErrOrStderr(), "catchup: note: %s is wrapped in the system format (a user field), which cron and catchup scan "+
			"read only in %s or a file in %s: install it there (scan --crontab %s/NAME discovers its lines); "+
			"anywhere else scan reads the user field as the command, warns and discovers none of them\n",
			printable(what), crontab.SystemCrontab, crontab.SystemDir, crontab.SystemDir)
	}
	if req.inPlace {
		if len(changes) == 0 {
			fmt.Fprintf(c.ErrOrStderr(), "catchup: %s: nothing to wrap; left as is\n", name)
			return nil
		}
		backup, notes, err := catchup.WriteWrapped(req.file, read, old, text, os.Geteuid())
		if err != nil {
			return failure(err)
		}
		for _, n := range notes {
			fmt.Fprintf(c.ErrOrStderr(), "catchup: %s\n", n)
		}
		fmt.Fprintf(c.ErrOrStderr(), "catchup: wrapped %s of %s; the original is in %s\n", counted(len(changes), "job line", "job lines"), name, backup)
	}
	return nil
}

// readCrontabToWrap reads the crontab that wrap is given, file (as
// catchup.ReadToWrap reads one), or stdin when file is "" or "-"; name is
// how messages call it; read is the file read (nil for stdin), which
// --in-place alone replaces.
func readCrontabToWrap(stdin io.Reader, file string) (name string, data []byte, read os.FileInfo, err error) {
	if file != "" && file != "-" {
		data, read, err = catchup.ReadToWrap(file)
		return file, data, read, err
	}
	data, err = crontab.Read(stdin) // at most crontab.MaxSize
	if errors.Is(err, crontab.ErrTooLarge) {
		return "-", nil, nil, fmt.Errorf("crontab (stdin): %w", err)
	}
	if err != nil {
		return "-", nil, nil, fmt.Errorf("read crontab (stdin): %w", err)
	}
	return "-", data, nil, nil
}

// writeWrapDiff prints the changed lines as a unified diff (one hunk per
// line, no context): patch(1) applies it.
func writeWrapDiff(w io.Writer, name string, changes []crontab.Change) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintf(w, "--- %s\n+++ %s (wrapped)\n", name, name)
	for _, ch := range changes {
		fmt.Fprintf(w, "@@ -%d +%d @@\n-%s\n+%s\n", ch.Line, ch.Line, ch.Old, ch.New)
	}
}

// hostHasUser reports whether this host has a user of that name: only a
// passwd database that says it has none counts as no (one that cannot be
// read tells nothing).
// userNotCommand reports whether word names a user of this host and no
// command found on PATH: a system crontab's user field, read where a
// user-format crontab has its command.
func userNotCommand(word string) bool {
	if strings.Contains(word, "/") {
		return false
	}
	if _, err := user.Lookup(word); err != nil {
		return false
	}
	_, err := exec.LookPath(word)
	return err != nil
}

// userFieldFirst reports whether a user-format crontab line's command reads
// as a system crontab's user field and command: its first word a user of
// this host and no command, its second a path or a command (`backup
// /opt/backup.sh`, where `mail -s report root` is a command whose program
// this host lacks).
func userFieldFirst(command string) bool {
	f := strings.Fields(command)
	if len(f) < 2 || !userNotCommand(f[0]) {
		return false
	}
	if strings.HasPrefix(f[1], "/") {
		return true
	}
	_, err := exec.LookPath(f[1])
	return err == nil
}

func hostHasUser(name string) bool {
	_, err := user.Lookup(name)
	var unknown user.UnknownUserError
	return !errors.As(err, &unknown)
}
