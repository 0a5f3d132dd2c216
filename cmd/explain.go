package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
)

type explainConfig struct {
	output     string
	rule       catchup.MissedRule
	maxReplays int
	replay     string
}

func newExplainCmd(g *globals) *cobra.Command {
	var cfg explainConfig
	c := &cobra.Command{
		Use:         "explain TASK [SLOT] [-o text|json]",
		Annotations: map[string]string{readsOnly: "true"},
		Short:       "Tell one slot's story: boots, fires, replays, outcomes, why missed",
		Long: `Tell, in plain words, what the ledger knows of one slot of TASK: the boots of
the host around it (when each started, when catchup last saw it), the runs that
name the slot (cron's fire, a skip because the lock was held, scan's replay, an
expiry), their outcomes, and the slot's state: settled, missed (with its cause,
and, when the next scan records it expired rather than replay it, why: older
than the catch-up window, beyond --max-replays, which is scan's, or dropped by
the policy latest: the task's, or scan's --replay given here), expired, running,
or not due yet. A fire this host noted while the ledger could not record it
counts as the next scan will record it: the slot is unrecorded (it ran), or
missed because the ledger could not be reached.

SLOT is an RFC 3339 time (2026-11-21T02:00:00Z); without it, the task's latest
missed slot, else its latest slot (none yet: its first, not due). It changes
nothing. Exit 0, or 2 on error.`,
		Example: `  catchup explain daily-settle 2026-11-21T02:00:00Z`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErr(c, fmt.Errorf("want TASK [SLOT], got %d arguments", len(args)))
			}
			if args[0] == "" {
				return usageErr(c, errEmptyTask)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runExplain(c, g, cfg, args)
		},
	}
	c.ValidArgsFunction = completeFirstTask(g)
	c.Flags().StringVarP(&cfg.output, "output", "o", "text", "output format: text|json")
	addMissedFlags(c, &cfg.rule)
	intVar(c.Flags(), &cfg.maxReplays, "max-replays", 100, "scan's --max-replays: say which missed slots the next scan records expired beyond it")
	c.Flags().StringVar(&cfg.replay, "replay", "", "scan's --replay: answer for a scan that overrides the task's policy (all|latest|coalesce|none)")
	return c
}

type explainEventJSON struct {
	At     *string `json:"at"`
	Kind   string  `json:"kind"`
	RunID  int64   `json:"run_id,omitempty"`
	Host   string  `json:"host,omitempty"`
	BootID string  `json:"boot_id,omitempty"`
	Text   string  `json:"text"`
}

type explainJSON struct {
	Task     string             `json:"task"`
	Slot     *string            `json:"slot"`
	Schedule string             `json:"schedule"`
	TZ       string             `json:"tz"`
	Policy   string             `json:"policy"`
	State    string             `json:"state"`
	Cause    *string            `json:"cause"`
	Expiring *string            `json:"expiring"`
	RunID    *int64             `json:"run_id"`
	Summary  string             `json:"summary"`
	Events   []explainEventJSON `json:"events"`
}

func runExplain(c *cobra.Command, g *globals, cfg explainConfig, args []string) error {
	if err := checkOutput(cfg.output, "text", "json"); err != nil {
		return usageErr(c, err)
	}
	if err := checkRule(c, &cfg.rule); err != nil {
		return usageErr(c, err)
	}
	if cfg.maxReplays < 1 {
		return usageErr(c, fmt.Errorf("--max-replays must be at least 1"))
	}
	if givenEmpty(c, "replay") {
		return usageErr(c, errEmptyReplay)
	}
	if cfg.replay != "" {
		if err := catchup.CheckPolicy(cfg.replay); err != nil {
			return usageErr(c, err)
		}
	}
	req := catchup.ExplainRequest{Task: args[0], MissedRule: cfg.rule, MaxReplays: cfg.maxReplays, Replay: cfg.replay}
	if len(args) == 2 {
		t, err := parseSlot("SLOT", args[1])
		if err != nil {
			return usageErr(c, err)
		}
		req.Slot = t
	}
	st, m, err := openReadingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	x, err := catchup.Explain(c.Context(), st, m, req)
	if err != nil {
		return failure(err)
	}
	out := c.OutOrStdout()
	if cfg.output == "json" {
		j := explainJSON{Task: x.Task.Name, Slot: jsonTime(x.Slot), Schedule: x.Task.Schedule, TZ: x.Task.TZ,
			Policy: x.Policy, State: x.State, Summary: x.Summary, Events: []explainEventJSON{}}
		if x.Cause != "" {
			j.Cause = &x.Cause
		}
		if x.Expiring != "" {
			j.Expiring = &x.Expiring
		}
		if x.Run != nil {
			j.RunID = &x.Run.ID
		}
		for _, e := range x.Events {
			j.Events = append(j.Events, explainEventJSON{At: jsonTime(e.At), Kind: e.Kind, RunID: e.RunID,
				Host: e.Host, BootID: e.BootID, Text: e.Text})
		}
		return failure(renderJSON(out, j))
	}
	zone := x.Task.TZ
	if zone == "" {
		zone = "the local zone"
	}
	// Events and the summary quote stored fields (hosts, errors): escaped,
	// so that reading the ledger never drives the terminal.
	fmt.Fprintf(out, "%s, slot %s (%s in %s)\n", x.Task.Name, x.Slot.UTC().Format(time.RFC3339), printable(x.Task.Schedule), printable(zone))
	for _, e := range x.Events {
		fmt.Fprintf(out, "%s  %s\n", e.At.UTC().Format(time.RFC3339), printable(e.Text))
	}
	_, err = fmt.Fprintf(out, "state: %s\n", printable(x.Summary))
	return failure(err)
}
