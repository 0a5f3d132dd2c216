package cmd

import (
	"bytes"
	"testing"

	"github.com/spf13/cobra"
)

func TestCommandName(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"no args":                       {nil, ""},
		"a command":                     {[]string{"run", "--task", "t", "--", "true"}, "run"},
		"global flag first":             {[]string{"--db", "x.db", "run", "--task", "t"}, "run"},
		"global flags inline":           {[]string{"--db=run", "--host=h", "--lease=2m", "ls"}, "ls"},
		"a value like a name":           {[]string{"--host", "ls", "history"}, "history"},
		"all global flags":              {[]string{"--lease", "1m", "--host", "h", "--db", "d", "scan"}, "scan"},
		"a command with a dash":         {[]string{"reset-clock", "t"}, "reset-clock"},
		"help":                          {[]string{"help", "run"}, ""},
		"--help":                        {[]string{"--help"}, ""},
		"-h":                            {[]string{"-h", "run"}, ""},
		"--version":                     {[]string{"--version"}, ""},
		"completion":                    {[]string{"completion", "bash"}, ""},
		"__complete":                    {[]string{"__complete", "history", ""}, ""},
		"an alias":                      {[]string{"slots", "* * * * *"}, ""},
		"a typo":                        {[]string{"rnu"}, ""},
		"a local flag first":            {[]string{"--task", "t", "run"}, ""},
		"a global flag's value missing": {[]string{"--db"}, ""},
	}
	root := newRoot(&globals{}, nil)
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := commandName(root.PersistentFlags(), tt.args); got != tt.want {
				t.Errorf("commandName(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

// TestOneCommandTree: Execute builds only the command it runs, and that
// tree prints the same help for it as the whole tree (its flags and the
// global ones).
func TestOneCommandTree(t *testing.T) {
	full := newRoot(&globals{}, nil)
	for _, c := range full.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			args := []string{"--db", "x.db", c.Name(), "--help"}
			if got := commandName(full.PersistentFlags(), args); got != c.Name() {
				t.Fatalf("commandName(%q) = %q", args, got)
			}
			if subs := newRoot(&globals{}, args).Commands(); len(subs) != 1 {
				t.Errorf("catchup %s builds %d commands, want only itself (its start cost)", c.Name(), len(subs))
			}
			if want, got := help(t, newRoot(&globals{}, nil), args), help(t, newRoot(&globals{}, args), args); got != want {
				t.Errorf("catchup %s --help differs from the whole tree's:\n%s\nwant:\n%s", c.Name(), got, want)
			}
		})
	}
}

// help is what root prints for args.
func help(t *testing.T, root *cobra.Command, args []string) string {
	t.Helper()
	var out bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// BenchmarkNewRoot: the whole tree (help, completions) against the tree
// for one run, which every cron fire builds.
func BenchmarkNewRoot(b *testing.B) {
	for name, args := range map[string][]string{
		"whole": nil,
		"run":   {"run", "--task", "t", "--", "true"},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				newRoot(&globals{}, args)
			}
		})
	}
}
