package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/store"
)

// completeTasks completes task names from the ledger, for shells. It never
// creates a ledger and stays silent on any error (a completion must not
// print).
func completeTasks(g *globals) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		path, err := ledgerPath(g)
		if err != nil || (!store.IsPostgres(path) && !fileExists(path)) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, _, err := openReadingLedger(c.Context(), g, false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer st.Close()
		tasks, err := st.Tasks(c.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, t := range tasks {
			if strings.HasPrefix(t.Task.Name, prefix) {
				names = append(names, t.Task.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFirstTask completes a task name as the first argument only.
func completeFirstTask(g *globals) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	tasks := completeTasks(g)
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return tasks(c, args, prefix)
	}
}
