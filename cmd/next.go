package cmd

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
)

type nextRequest struct {
	expr    string
	tz      string
	tzGiven bool
	count   int
	output  string
}

type nextSlotJSON struct {
	Slot      string `json:"slot"`
	UTC       string `json:"utc"`
	InSeconds int64  `json:"in_seconds"`
	Note      string `json:"note,omitempty"`
}

type nextJSON struct {
	Expr  string         `json:"expr"`
	TZ    string         `json:"tz"`
	Now   string         `json:"now"`
	Slots []nextSlotJSON `json:"slots"`
}

func newNextCmd() *cobra.Command {
	var req nextRequest
	c := &cobra.Command{
		Use:         "next EXPR [--tz ZONE] [-n N] [-o text|json]",
		Annotations: map[string]string{opensNoLedger: "true", readsOnly: "true"},
		Aliases:     []string{"slots"},
		Short:       "Preview a cron expression's next slots, with the DST rule applied",
		Long: `Print the next N slots (default 5) of a cron expression after now (CATCHUP_NOW
moves now), in the schedule's zone and in UTC, the way run and scan count them:
with cronie's rule for DST changes in its own zone (a fixed time skipped by a
spring-forward runs once at the change; in a repeated fall-back hour a fixed
time runs once and a wildcard minute or hour runs at both), except that a slot
is an instant: several skipped times, and the time at the change when it matches
too, are one slot where cronie runs each. A slot a DST change moved, merged or
repeated says so. (cronie has no such rule for a line under CRON_TZ=, and
Debian's cron ignores CRON_TZ: see docs/slots.md.) Like systemd-analyze
calendar. It opens no ledger, so the global --db, --host and --lease are refused
(CATCHUP_DB is not). EXPR is read as --cron reads it (gronx's L, W, # and ?
too); a form cron refuses in a crontab line's time fields gets a note on stderr.

The zone is --tz, else $CRON_TZ, else cron's zone: the one /etc/localtime names
(as run reads a --cron line; $TZ only on a host without /etc/localtime). --tz
Local is the same as no --tz. A zone may be spelled as TZ takes it
(:Europe/Berlin, a zone file's path). Exit 0, or 2 on error (a bad expression or
zone); 128+N when stopped by signal N.`,
		Example: `  catchup next '30 2 * * *' --tz Europe/Berlin -n 3`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(c, fmt.Errorf("want one cron expression (quote it: '30 2 * * *'), got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseLedgerFlags(c, func(string) string { return "" }); err != nil {
				return err
			}
			req.expr = args[0]
			return runNext(c, req)
		},
	}
	c.ValidArgsFunction = cobra.NoFileCompletions
	f := c.Flags()
	f.Var(givenString{&req.tz, &req.tzGiven}, "tz", "IANA time zone of the schedule (default: $CRON_TZ, else cron's zone: /etc/localtime's, not $TZ)")
	intVarP(f, &req.count, "count", "n", 5, "how many slots")
	f.StringVarP(&req.output, "output", "o", "text", "output format: text|json")
	hideLedgerFlagsInUsage(c)
	return c
}

func runNext(c *cobra.Command, req nextRequest) error {
	if err := checkOutput(req.output, "text", "json"); err != nil {
		return usageErr(c, err)
	}
	if req.count < 1 || req.count > 1000 {
		return usageErr(c, fmt.Errorf("-n/--count %d: give how many slots to show, from 1 to 1000", req.count))
	}
	if req.tz == "" && req.tzGiven {
		return usageErr(c, errEmptyTZ)
	}
	zone, source := schedule.ZoneSpelling(req.tz), ""
	if z := schedule.ZoneSpelling(os.Getenv("CRON_TZ")); zone == "" && z != "" {
		zone, source = z, "CRON_TZ: "
	}
	if zone == "" {
		zone = cronZone()
	}
	loc, err := schedule.LoadZone(zone)
	if err != nil {
		return usageErr(c, fmt.Errorf("%s%w", source, err)) // where the zone came from, as run says
	}
	s, err := schedule.Parse(req.expr, loc)
	if err != nil {
		return usageErr(c, err)
	}
	if err := schedule.CronSyntax(req.expr); err != nil { // --cron's, not a crontab line's: scan refuses it there
		fmt.Fprintf(c.ErrOrStderr(), "catchup: note: as a crontab line's time fields, %s; --cron and catchup daemon take it\n", printable(err.Error()))
	}
	now, _, err := clock(os.Getenv)
	if err != nil {
		return failure(err)
	}
	t := now().Truncate(time.Second)
	slots := catchup.NextSlots(s, t, req.count)
	out := c.OutOrStdout()
	if req.output == "json" {
		doc := nextJSON{Expr: s.Expr(), TZ: zone, Now: t.UTC().Format(time.RFC3339), Slots: []nextSlotJSON{}}
		for _, u := range slots {
			doc.Slots = append(doc.Slots, nextSlotJSON{Slot: schedule.RFC3339(u.Slot, loc), UTC: u.Slot.Format(time.RFC3339),
				InSeconds: u.Slot.Unix() - t.Unix(), Note: u.Note})
		}
		return failure(renderJSON(out, doc))
	}
	fmt.Fprintf(out, "expression: %s\nzone:       %s\nnow:        %s\n", s.Expr(), zone, t.In(loc).Format("2006-01-02 15:04:05 MST"))
	for i, u := range slots {
		fmt.Fprintf(out, "%4s  %s  %s  in %s\n", strconv.Itoa(i+1), u.Slot.In(loc).Format("Mon 2006-01-02 15:04 MST"),
			u.Slot.Format("15:04Z"), roughDuration(u.Slot.Unix()-t.Unix()))
		if u.Note != "" {
			fmt.Fprintf(out, "      %s\n", u.Note)
		}
	}
	if len(slots) < req.count {
		// The horizon NextSlots looks to: a list it cuts short says so.
		horizon := "in the next 400 years"
		if t.AddDate(400, 0, 0).Year() > 9999 { // slots end with year 9999 (schedule.Slots)
			horizon = "before the year 10000, where catchup's times end"
		}
		fmt.Fprintf(out, "%d of the %s asked for: the schedule has no more %s\n", len(slots), counted(req.count, "slot", "slots"), horizon)
	}
	return nil
}

// roughDuration is a span of secs seconds for people: "3d 4h", "2h 5m",
// "45s" (seconds, not a time.Duration, which ends at 292 years).
func roughDuration(secs int64) string {
	switch days, h, m := secs/86400, secs/3600%24, secs/60%60; {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, h)
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%ds", secs)
}
