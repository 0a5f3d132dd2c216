package catchup

import (
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// slotEvent is the slot's own line: when it came, and whether a boot covered it.
func slotEvent(u uptime, slot, now time.Time) Event {
	e := Event{At: slot, Kind: "slot", Text: "the slot came"}
	u = u.forSlot(slot)
	if g, ok := u.inClockGap(slot); ok {
		e.Text += fmt.Sprintf("; the clock of %s was stepped forward over it", g.host)
	} else if _, ok := u.covering(slot); !ok {
		e.Text += "; no boot" + ofHosts(u.hosts.at(slot)) + " covered it"
	}
	return e
}

// bootEvents are the boots around slot: the one that covered it (when it
// started), or the last one seen before it and the first one after.
func bootEvents(u uptime, slot, now time.Time) []Event {
	var out []Event
	u = u.forSlot(slot)
	if s, ok := u.covering(slot); ok {
		start, known := u.start(s.host, s.id)
		text := fmt.Sprintf("%s: boot %s started", s.host, s.id)
		if !known {
			text = fmt.Sprintf("%s: boot %s first seen by catchup", s.host, s.id)
		}
		return append(out, Event{At: start, Kind: "boot", Host: s.host, BootID: s.id, Text: text})
	}
	var last, next *span
	for i, s := range u.up {
		if s.to.Before(slot) && (last == nil || s.to.After(last.to)) {
			last = &u.up[i]
		}
		if s.from.After(slot) && !s.from.After(now) && (next == nil || s.from.Before(next.from)) {
			next = &u.up[i]
		}
	}
	if last != nil {
		start, _ := u.start(last.host, last.id)
		out = append(out, Event{At: last.to, Kind: "boot-seen", Host: last.host, BootID: last.id,
			Text: fmt.Sprintf("%s: boot %s (up since %s) last seen by catchup", last.host, last.id, rfc(start))})
	}
	if next != nil {
		start, known := u.start(next.host, next.id)
		text := fmt.Sprintf("%s: boot %s started", next.host, next.id)
		if !known || !start.Equal(next.from) {
			text = fmt.Sprintf("%s: boot %s seen by catchup", next.host, next.id)
		}
		out = append(out, Event{At: next.from, Kind: "boot", Host: next.host, BootID: next.id, Text: text})
	}
	return out
}

// runEvents are a record's lines: its start (or skip, or expiry) and outcome.
// dead tells why, and from when, a scan takes a stale run for dead.
func runEvents(r store.Run, stale map[int64]bool, dead func(store.Run) (string, time.Time), now time.Time) []Event {
	e := Event{At: r.StartedAt, RunID: r.ID, Host: r.Host}
	switch r.Status {
	case store.StatusSkipped:
		e.Kind, e.Text = "skip", fmt.Sprintf("run %d skipped: %s", r.ID, r.Error)
		if r.ExitCode != nil {
			e.Text += fmt.Sprintf(" (exit %d)", *r.ExitCode)
		}
		return []Event{e}
	case store.StatusExpired:
		e.Kind, e.Text = "expired", fmt.Sprintf("run %d: the slot was given up: %s", r.ID, r.Error)
		return []Event{e}
	case store.StatusPaused:
		e.Kind, e.Text = "paused", fmt.Sprintf("run %d: the slot was not run: %s (catchup pause)", r.ID, r.Error)
		return []Event{e}
	}
	e.Kind = "run-start"
	e.Text = fmt.Sprintf("run %d started on %s: %s", r.ID, r.Host, triggerWords(r))
	if WaitsRetryDelay(r, now) { // claimed as its delay began: its command has not started
		e.Text = fmt.Sprintf("run %d claimed on %s: %s; its retry delay began", r.ID, r.Host, triggerWords(r))
	}
	out := []Event{e}
	switch {
	case r.Status == store.StatusRunning && stale[r.ID]:
		why, at := dead(r)
		out = append(out, Event{At: at, Kind: "run-end", RunID: r.ID, Host: r.Host,
			Text: fmt.Sprintf("run %d is recorded running, but %s: scan marks it interrupted", r.ID, why)})
	case WaitsRetryDelay(r, now):
		out = append(out, Event{At: now, Kind: "run-end", RunID: r.ID, Host: r.Host, Text: fmt.Sprintf("run %d is waiting out its retry delay", r.ID)})
	case r.Status == store.StatusRunning:
		out = append(out, Event{At: now, Kind: "run-end", RunID: r.ID, Host: r.Host, Text: fmt.Sprintf("run %d is still running", r.ID)})
	default:
		out = append(out, Event{At: r.EndedAt, Kind: "run-end", RunID: r.ID, Host: r.Host, Text: outcomeText(r)})
	}
	return out
}

// notedEvents are the lines of a run known from a note of this host: a
// fire the ledger did not record (no run id yet), or the outcome of
// recorded run r that it did not take.
func notedEvents(r store.Run, stale map[int64]bool, dead func(store.Run) (string, time.Time), now time.Time) []Event {
	const next = "noted on this host for the next scan"
	if r.ID < notedRunBase {
		out := runEvents(r, stale, dead, now)
		out[len(out)-1].Text += "; the ledger could not take the outcome: " + next
		return out
	}
	e := Event{At: r.StartedAt, Kind: "noted", Host: r.Host}
	if r.Status == store.StatusSkipped {
		e.Text = fmt.Sprintf("%s on %s, %s: %s", triggerWords(r), r.Host, next, r.Error)
		if r.ExitCode != nil {
			e.Text += fmt.Sprintf(" (exit %d)", *r.ExitCode)
		}
		return []Event{e}
	}
	why := "the ledger could not be reached"
	if r.Reason == store.ReasonLockFile { // the ledger was fine (noteRun)
		why = "this host's lock for the task could not be taken"
	}
	e.Text = fmt.Sprintf("started on %s while %s (%s), %s", r.Host, why, triggerWords(r), next)
	return []Event{e, {At: r.EndedAt, Kind: "run-end", Host: r.Host, Text: fmt.Sprintf("it %s, unrecorded", statusWords(r))}}
}

// unrecordedSummary is the state line of a slot that run r, known from a
// note, settles.
func unrecordedSummary(r store.Run) string {
	if r.ID < notedRunBase {
		return fmt.Sprintf("run %d ended (%s), its outcome noted on this host: the next scan records it", r.ID, statusWords(r))
	}
	return fmt.Sprintf("ran unrecorded at %s (%s), noted on this host: the next scan records it", rfc(r.StartedAt), statusWords(r))
}

// statusWords is r's outcome and exit code: "succeeded, exit 0".
func statusWords(r store.Run) string {
	if r.ExitCode == nil {
		return r.Status
	}
	return fmt.Sprintf("%s, exit %d", r.Status, *r.ExitCode)
}

func triggerWords(r store.Run) string {
	switch r.Trigger {
	case store.TriggerSchedule:
		return "cron fired it"
	case store.TriggerReplay:
		return "scan replayed the slot"
	case store.TriggerRetry:
		return fmt.Sprintf("retry, attempt %d", r.Attempt)
	case store.TriggerBackfill:
		return "catchup backfill ran the slot"
	}
	return "run by hand for this slot"
}

func outcomeText(r store.Run) string {
	code := "-"
	if r.ExitCode != nil {
		code = fmt.Sprint(*r.ExitCode)
	}
	switch r.Status {
	case store.StatusInterrupted:
		return fmt.Sprintf("run %d interrupted: %s", r.ID, r.Error)
	case store.StatusTimeout:
		return fmt.Sprintf("run %d timed out (exit %s)", r.ID, code) + lateOutcome(r)
	}
	return fmt.Sprintf("run %d %s (exit %s)", r.ID, r.Status, code) + lateOutcome(r)
}

// lateOutcome says, for a run whose outcome came after it was taken for
// dead (its host's lease ran out: a replay of its slot may have run
// meanwhile), that its slot may have run twice; "" for any other run.
func lateOutcome(r store.Run) string {
	if note := LateOutcome(r); note != "" {
		return "; " + note + ": its slot may have run twice"
	}
	return ""
}

// RetryDelayWait is what a retry waiting out its delay (WaitsRetryDelay)
// is doing, as show, history and explain say it: the ledger holds no end
// of the delay.
const RetryDelayWait = "waiting out its retry delay: its command has not started"

// WaitsRetryDelay reports whether r is, as of now, a retry waiting out its
// delay: it is running, claimed as its delay began (its start is the
// delay's), its command has not started (store.InRetryDelay), and the
// longest delay there is has not passed since (retryWaitLimit; a claim
// later than now, the clock gone back, still waits).
func WaitsRetryDelay(r store.Run, now time.Time) bool {
	return markedRetryDelay(r) && now.Sub(r.StartedAt) <= retryWaitLimit
}

// markedRetryDelay reports whether running run r still bears the mark of
// a retry waiting out its delay, however long ago it was claimed.
func markedRetryDelay(r store.Run) bool {
	return r.Status == store.StatusRunning && store.InRetryDelay(r.Reason)
}

// RetryStartOverdue says, of a running retry still marked waiting out its
// delay longer than any delay after its claim (WaitsRetryDelay no more),
// that its command should have started: its catchup is frozen, or the
// ledger did not take its start. "" for any other run.
func RetryStartOverdue(r store.Run, now time.Time) string {
	if !markedRetryDelay(r) || WaitsRetryDelay(r, now) {
		return ""
	}
	return fmt.Sprintf("claimed at %s as its retry delay began; its command has not started %s later, longer than any retry delay (%s): "+
		"its catchup is frozen, or the ledger did not take its start", rfc(r.StartedAt), FormatDuration(now.Sub(r.StartedAt).Round(time.Second)), FormatDuration(maxRetryDelay))
}

// LateOutcome is the interruption a run's late outcome keeps in its error
// (store.LateOutcomeNote and why it was taken for dead), or "".
func LateOutcome(r store.Run) string {
	if r.Status == store.StatusInterrupted || r.Status == store.StatusRunning {
		return ""
	}
	if i := strings.Index(r.Error, store.LateOutcomeNote); i >= 0 {
		return r.Error[i:]
	}
	return ""
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func appendNew(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// ofHosts is " of A or B" for the hosts counted for a slot, "" for none.
func ofHosts(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	return " of " + strings.Join(hosts, " or ")
}
