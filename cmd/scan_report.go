package cmd

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/catchup/catchup/catchup"
)

// The report of a scan: its text and its JSON.

// nothingToDo reports whether a scan found nothing to replay, record or
// warn about: then its text report is left out (a periodic scan stays quiet).
func nothingToDo(rep catchup.ScanReport) bool {
	if rep.Stopped || rep.RefusedCrontabs > 0 || len(rep.Warnings) > 0 {
		return false
	}
	for _, t := range rep.Tasks {
		if len(t.Missed) > 0 || t.Replayed+t.Failed+t.Skipped+t.Interrupted+t.Expired+t.Paused+t.Left > 0 ||
			!t.ClockAhead.IsZero() || len(t.Warnings) > 0 {
			return false
		}
	}
	return true
}

// writeScanText writes scan's text report to out, through one buffer: a
// dry run over a month's outage of a minutely task may list 43,200 slots
// to replay (its expiries fold into a line per run: expiryRun), and a write
// per line was a tenth of its time.
func writeScanText(out io.Writer, rep catchup.ScanReport, dry bool) error {
	w := bufio.NewWriter(out)
	var missed, replayed, failed, skipped, cut, expired, left, paused, stuck, wouldReplay int
	for _, t := range rep.Tasks {
		missed, paused, stuck = missed+len(t.Missed), paused+t.Paused, stuck+t.Stuck
		left, cut = left+t.Left-t.Stuck, cut+t.Interrupted
		replayed, failed, skipped, expired = replayed+t.Replayed, failed+t.Failed, skipped+t.Skipped, expired+t.Expired
		if dry {
			wouldReplay += countAction(t.SlotActions(), catchup.ActionPlanned)
			fmt.Fprintf(w, "%s: %d missed (policy %s)%s\n", t.Task, len(t.Missed), t.Policy, countSuffix("paused", t.Paused)+stuckSuffix(t.Stuck))
			var run expiryRun // consecutive would-expire slots: one line
			for a := range t.SlotActions() {
				if run.add(w, a) {
					continue
				}
				action := a.Action
				if a.Action == catchup.ActionWouldFail {
					action += fmt.Sprintf(", exit %d", a.ExitCode)
				}
				fmt.Fprintf(w, "  %s  %s%s%s\n", a.Slot.UTC().Format(time.RFC3339), action, gap(a.Cause), gap(printable(a.Reason)))
			}
			run.flush(w)
			writeStaysMissed(w, t.StaysMissed)
			continue
		}
		fmt.Fprintf(w, "%s: %d missed, replayed %d, failed %d, skipped %d%s\n", t.Task, len(t.Missed), t.Replayed,
			t.Failed, t.Skipped, countSuffix("interrupted", t.Interrupted)+expiredSuffix(t.Expired)+countSuffix("paused", t.Paused)+leftSuffix(t.Left-t.Stuck)+stuckSuffix(t.Stuck))
		for _, a := range t.Actions { // never an expiry (SlotActions)
			switch a.Action {
			case catchup.ActionFailed:
				fmt.Fprintf(w, "  %s  failed, exit %d%s\n", a.Slot.UTC().Format(time.RFC3339), a.ExitCode, reasonSuffix(a.Reason))
			case catchup.ActionInterrupted:
				fmt.Fprintf(w, "  %s  interrupted%s\n", a.Slot.UTC().Format(time.RFC3339), reasonSuffix(a.Reason))
			}
		}
		for _, e := range expiredByReason(t) {
			fmt.Fprintf(w, "  expired %d: %s\n", e.n, e.reason)
		}
		if len(t.Causes) > 0 {
			fmt.Fprintf(w, "  causes: %s\n", countCauses(t.Causes))
		}
	}
	verb, done := "scanned", fmt.Sprintf("replayed %d", replayed)
	if dry { // what would be replayed, not the 0 a dry run replayed
		verb, done = "dry run:", fmt.Sprintf("would replay %d", wouldReplay)
	}
	fmt.Fprintf(w, "%s %s, %s: %s, failed %d, skipped %d%s\n",
		verb, counted(len(rep.Tasks), "task", "tasks"), counted(missed, "missed slot", "missed slots"), done, failed, skipped,
		countSuffix("interrupted", cut)+expiredSuffix(expired)+countSuffix("paused", paused)+leftSuffix(left)+countSuffix("not replayable", stuck))
	return w.Flush() // a bufio.Writer keeps the first write error
}

// stuckSuffix says that no scan can replay a task's N missed slots: the
// ledger keeps its command redacted (scan's warning says the fix).
func stuckSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", not replayable %d: its command carries a secret the ledger keeps redacted", n)
}

// expiredSuffix is ", expired N" when N > 0: the report's lines stay as
// they were when nothing expired.
func expiredSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", expired %d", n)
}

// countSuffix is ", WHAT N" when N > 0 (slots of a paused task), else nothing.
func countSuffix(what string, n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s %d", what, n)
}

// gap is s after two spaces, or nothing.
func gap(s string) string {
	if s == "" {
		return ""
	}
	return "  " + s
}

type expiredCount struct {
	reason string
	n      int
}

// expiredByReason counts the expired slots of a task by reason, in the
// order the reasons first occur.
func expiredByReason(t catchup.TaskScan) []expiredCount {
	var out []expiredCount
	at := map[string]int{}
	for a := range t.SlotActions() {
		if a.Action != catchup.ActionExpired {
			continue
		}
		i, ok := at[a.Reason]
		if !ok {
			i = len(out)
			at[a.Reason] = i
			out = append(out, expiredCount{reason: a.Reason})
		}
		out[i].n++
	}
	return out
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + printable(r)
}

// countAction counts the slots of actions whose action is action (a dry
// run's would replay, would run).
func countAction(actions iter.Seq[catchup.SlotAction], action string) int {
	n := 0
	for a := range actions {
		if a.Action == action {
			n++
		}
	}
	return n
}

// counted is "N one" when n is 1, else "N many": "1 task", "2 tasks".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// writeStaysMissed is a dry run's line of the missed slots replay policy
// "none" leaves missed, which no slot line names: the slot, or the count
// and the range, then why ("3 missed (policy none)" alone did not say what
// the scan does with them).
func writeStaysMissed(w io.Writer, s catchup.StaysMissed) {
	switch {
	case s.N == 1:
		fmt.Fprintf(w, "  %s  would stay missed%s\n", s.First.UTC().Format(time.RFC3339), gap(printable(s.Reason)))
	case s.N > 1:
		fmt.Fprintf(w, "  %s to %s  %d would stay missed%s\n", s.First.UTC().Format(time.RFC3339),
			s.Last.UTC().Format(time.RFC3339), s.N, gap(printable(s.Reason)))
	}
}
