package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/catchup/catchup/catchup"
)

// Flags and checks that several commands share.

// addMissedFlags adds the flags of the missed-slot rule shared by ls and scan.
func addMissedFlags(c *cobra.Command, rule *catchup.MissedRule) {
	f := c.Flags()
	durationVar(f, &rule.MaxAge, "max-age", 0, "the catch-up window for every task (default: each task's own run --max-age, else 7d): older missed slots are not replayed but recorded expired")
	durationVar(f, &rule.Tolerance, "tolerance", catchup.DefaultTolerance, "a slot younger than this may still be fired by cron")
	f.BoolVar(&rule.RetryFailed, "retry-failed", false, "count slots whose latest attempt failed or timed out as missed")
}

// opensNoLedger marks a command that opens no ledger (an annotation): it
// refuses the global ledger flags with refuseLedgerFlags, so the root does
// not first judge --lease's value, a flag the command will refuse anyway.
const opensNoLedger = "opens-no-ledger"

// refuseLedgerFlags refuses a global flag that chooses the ledger or how it
// is used (--db, --host, --lease) given to a command that opens no ledger:
// accepted, it would be ignored. CATCHUP_DB and CATCHUP_HOST are not
// refused: the environment is ambient, not asked of this command. more says,
// for a flag, what the user may want instead ("" for nothing more).
func refuseLedgerFlags(c *cobra.Command, more func(flag string) string) error {
	for _, n := range ledgerFlags {
		if !c.Flags().Changed(n) {
			continue
		}
		why := "it opens no ledger"
		if m := more(n); m != "" {
			why += ", and " + m
		}
		return usageErr(c, fmt.Errorf("--%s does not apply to %s: %s; drop --%s", n, c.CommandPath(), why, n))
	}
	return nil
}

// ledgerFlags are the global flags a command that opens no ledger refuses.
var ledgerFlags = []string{"db", "host", "lease"}

// hideLedgerFlagsInUsage leaves the global ledger flags out of c's usage
// (its --help): c refuses them (refuseLedgerFlags), and its Long says so.
// They are the root's flags, shared by every command of the tree, so they
// are hidden only while c's usage is written.
func hideLedgerFlagsInUsage(c *cobra.Command) {
	c.SetUsageFunc(func(c *cobra.Command) error {
		var hidden []*pflag.Flag
		for _, n := range ledgerFlags {
			if f := c.Flag(n); f != nil && !f.Hidden {
				f.Hidden = true
				hidden = append(hidden, f)
			}
		}
		defer func() {
			for _, f := range hidden {
				f.Hidden = false
			}
		}()
		return c.Root().UsageFunc()(c)
	})
}

// refuseFlags refuses the first of the named flags given on the command
// line: it would be accepted and do nothing (why says so, after the flag).
func refuseFlags(c *cobra.Command, why string, names ...string) error {
	for _, n := range names {
		if c.Flags().Changed(n) {
			return fmt.Errorf("--%s %s", n, why)
		}
	}
	return nil
}

// hideMaxAge hides --max-age from a reader that counts every missed slot
// whatever its age, and refuses it (it used to be accepted and ignored).
func hideMaxAge(c *cobra.Command) {
	c.Flags().MarkHidden("max-age")
}

// checkRule refuses negative windows (a negative tolerance would replay
// slots that have not come yet) and an empty catch-up window; without
// --max-age, each task's own window applies.
func checkRule(c *cobra.Command, r *catchup.MissedRule) error {
	if r.MaxAge < 0 {
		return fmt.Errorf("--max-age cannot be negative: it is how far back scan replays missed slots")
	}
	if r.Tolerance < 0 {
		return fmt.Errorf("--tolerance cannot be negative: a slot is missed that long after it came")
	}
	if !c.Flags().Changed("max-age") {
		r.MaxAge = 0
	} else if r.MaxAge == 0 {
		return fmt.Errorf("--max-age must be positive: every missed slot would expire")
	}
	return nil
}

func checkOutput(v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("invalid --output %s: use %s", quotedValue(v), orList(allowed))
}

// orList says "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// addParallelFlags adds how scan paces its replays.
func addParallelFlags(c *cobra.Command, p *catchup.Parallel) {
	f := c.Flags()
	intVar(f, &p.Concurrency, "concurrency", 1, "replay up to N tasks at once (a task's own slots always run one at a time, oldest first; a root scan replays each other user's lines beside them, one task at a time per user); 4 suits a boot scan")
	durationVar(f, &p.Jitter, "jitter", 0, "wait up to DUR before the first replay: this host's fixed share, so that a fleet booting at once spreads out")
	durationVar(f, &p.Budget, "budget", 0, "start no replay after DUR (0: no limit); the slots left stay missed for the next scan, and exit status is unaffected")
}

// checkParallel refuses a concurrency below 1 and negative durations.
func checkParallel(p catchup.Parallel) error {
	if p.Concurrency < 1 {
		return fmt.Errorf("--concurrency must be at least 1")
	}
	if p.Jitter < 0 {
		return fmt.Errorf("--jitter cannot be negative")
	}
	if p.Budget < 0 {
		return fmt.Errorf("--budget cannot be negative")
	}
	return nil
}

// leftSuffix says how many slots a --budget left missed.
func leftSuffix(left int) string {
	if left == 0 {
		return ""
	}
	return fmt.Sprintf(", left %d for the next scan", left)
}

// givenString is a string flag that records whether it was given, so that
// an empty value ("--cron $SCHED" with SCHED unset) is told from no flag
// and refused, not read as "not given".
type givenString struct {
	p     *string
	given *bool
}

func (v givenString) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v givenString) Set(s string) error {
	*v.p, *v.given = s, true
	return nil
}

func (v givenString) Type() string { return "string" }

// errEmptyTZ refuses an empty --tz given ("--tz $ZONE" with ZONE unset).
var errEmptyTZ = errors.New("--tz is empty: name a zone like Europe/Berlin, or drop --tz for $CRON_TZ, else cron's zone")

// givenEmpty reports whether string flag name was given, empty ("--replay
// $POLICY" with POLICY unset): refused, never read as not given.
func givenEmpty(c *cobra.Command, name string) bool {
	f := c.Flags().Lookup(name)
	return f != nil && f.Changed && f.Value.String() == ""
}

// givenBlank reports whether flag name was given only blanks (a
// --notify-cmd " ": sh -c runs nothing and alerts no one), empty included.
func givenBlank(c *cobra.Command, name string) bool {
	f := c.Flags().Lookup(name)
	return f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == ""
}

// Errors of flags given empty (givenEmpty).
var (
	errEmptyReplay  = errors.New("--replay is empty: use all, latest, coalesce or none, or drop --replay for each task's own policy")
	errEmptyNotify  = errors.New("--notify-cmd is empty: give the alert command, or drop --notify-cmd for each task's own")
	errBlankNotify  = errors.New("--notify-cmd is blank: give the alert command, or drop --notify-cmd for each task's own")
	errEmptyCrontab = errors.New("--crontab is empty: name the crontab file (- for stdin, with scan)")
	errEmptyHost    = errors.New("--host is empty: name this host, or drop --host for $CATCHUP_HOST, else the hostname")
)
