package cmd

import (
	"strings"
	"testing"
)

// TestHelpListsOnlyTheGlobalFlagsTaken: the help of a command that opens
// no ledger, and so refuses the global --db, --host and --lease
// (refuseLedgerFlags), lists none of them and says that it refuses them;
// a command that takes them still lists them, also in a tree that printed
// such a help before (the flags are the root's, shared by every command).
func TestHelpListsOnlyTheGlobalFlagsTaken(t *testing.T) {
	tests := map[string]struct {
		before []string // printed first, by the same tree
		args   []string
		lists  bool // the ledger flags
	}{
		"crontab wrap":            {args: []string{"crontab", "wrap", "--help"}},
		"help crontab wrap":       {args: []string{"help", "crontab", "wrap"}},
		"next":                    {args: []string{"next", "--help"}},
		"run":                     {args: []string{"run", "--help"}, lists: true},
		"run after crontab wrap":  {before: []string{"crontab", "wrap", "--help"}, args: []string{"run", "--help"}, lists: true},
		"scan after next's usage": {before: []string{"next", "--help"}, args: []string{"scan", "--help"}, lists: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			root := newRoot(&globals{}, nil)
			if tt.before != nil {
				help(t, root, tt.before)
			}
			out := help(t, root, tt.args)
			for _, flag := range []string{"--db string", "--host string", "--lease duration"} {
				if got := strings.Contains(out, flag); got != tt.lists {
					t.Errorf("catchup %s lists %s: %v, want %v:\n%s", strings.Join(tt.args, " "), flag, got, tt.lists, out)
				}
			}
			if !tt.lists && !strings.Contains(out, "--db, --host and --lease are refused") {
				t.Errorf("catchup %s does not say which global flags it refuses:\n%s", strings.Join(tt.args, " "), out)
			}
		})
	}
}
