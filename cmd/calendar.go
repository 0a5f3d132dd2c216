package cmd

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
)

type calendarConfig struct {
	days   int
	output string
	rule   catchup.MissedRule
}

// maxCalendarDays keeps a day at least one cell wide in 80 columns.
const maxCalendarDays = 31

func newCalendarCmd(g *globals) *cobra.Command {
	var cfg calendarConfig
	c := &cobra.Command{
		Use:         "calendar [TASK...] [--days N] [-o text|json]",
		Annotations: map[string]string{readsOnly: "true"},
		Args:        wantTasks(0, -1, "any TASKs"),
		Short:       "Draw each task's recent slots as a grid: ran, late, missed...",
		Long: `Draw the slots of the last N days (default 7, today included, in the local zone)
as a grid that fits 80 columns: a row per task (all tasks, or those named), a
column per day (a date the zone skipped, as Pacific/Apia's 2011-12-30, is no
day: a note names it), and in each day a cell per slot, or one cell for the
whole day (its worst slot) when a task has more slots in a day than the day has
room for (the task is marked with *).

Each cell is a letter, coloured on a terminal (plain letters when standard
output is not a terminal or NO_COLOR is set):
  r ran   y replayed (by scan, backfill or run --slot)
  l late (cron fired it over a minute late)
  M missed   F failed   x expired   z paused   s skipped   a running
  - not due yet   . no slot
  (blank) never missed: before the task was registered, before its schedule or
          zone last changed, of a retired task, or passed by its watermark
          (history pruned)
The states follow the same rule as ls and scan (--max-age and --retry-failed,
which change none, are refused). Under the legend, a line per task with M cells
says why they were missed, with the causes ls --missed gives ("missed: backup:
host-down 2, not-fired 1"), broken at blanks to fit 80 columns, continued lines
indented. -o json gives every slot with its state, the run that decided it and,
for a missed slot, its cause. It changes nothing. Exit 0, or 2 on error (an
unknown TASK); 128+N when stopped by signal N.`,
		Example: `  catchup calendar --days 14
  catchup calendar nightly-backup -o json`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(cfg.output, "text", "json"); err != nil {
				return usageErr(c, err)
			}
			if cfg.days < 1 || cfg.days > maxCalendarDays {
				return usageErr(c, errors.New("--days must be between 1 and 31"))
			}
			if err := refuseFlags(c, "does not apply to calendar: a missed slot shows M whatever its age, until a scan records it expired",
				"max-age"); err != nil {
				return usageErr(c, err)
			}
			if err := refuseFlags(c, "does not apply to calendar: a slot that failed and never succeeded shows F either way (scan --retry-failed replays it); a success holds its slot, drawn as that success even when a forced re-run failed after it",
				"retry-failed"); err != nil {
				return usageErr(c, err)
			}
			if err := checkRule(c, &cfg.rule); err != nil {
				return usageErr(c, err)
			}
			return runCalendar(c, g, cfg, args)
		},
	}
	c.ValidArgsFunction = completeTasks(g)
	f := c.Flags()
	intVar(f, &cfg.days, "days", 7, "how many days, today included (1-31)")
	f.StringVarP(&cfg.output, "output", "o", "text", "output format: text|json")
	addMissedFlags(c, &cfg.rule)
	hideMaxAge(c)
	f.MarkHidden("retry-failed")
	return c
}

func runCalendar(c *cobra.Command, g *globals, cfg calendarConfig, tasks []string) error {
	st, m, err := openReadingLedger(c.Context(), g, true) // the boot: a slot of the downtime is not pending
	if err != nil {
		return err
	}
	defer st.Close()
	loc, err := schedule.LoadZone(m.Zone)
	if err != nil {
		loc = time.UTC
	}
	// Days are the local dates that exist in loc (a date the zone
	// skipped crossing the date line has none); each starts at its first
	// instant, which a DST change skipping midnight moves to 01:00.
	grid := calendarGrid{days: catchup.NewCalendarDays(m.Now(), cfg.days, loc), now: m.Now().In(loc), zone: m.Zone}
	from, to := grid.days.Range()
	// A task named twice is drawn once, as scan and backfill take it once.
	req := catchup.CalendarRequest{Tasks: distinct(tasks), From: from, To: to, Rule: cfg.rule}
	out := c.OutOrStdout()
	if cfg.output == "json" { // streamed: each task's slots are written as they come
		doc := grid.newCalendarJSONWriter(out)
		if err := catchup.Calendar(c.Context(), st, m, req, doc.add); err != nil {
			return failure(err)
		}
		return failure(doc.close())
	}
	var rows []gridRow // each task's row reduced to its cells as it comes
	err = catchup.Calendar(c.Context(), st, m, req, func(r catchup.CalendarRow) error {
		rows = append(rows, grid.reduce(r))
		return nil
	})
	if err != nil {
		return failure(err)
	}
	color := os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && out == os.Stdout && isTerminal(os.Stdout)
	return failure(grid.writeRows(out, rows, color))
}
