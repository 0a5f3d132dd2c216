package hangup

import "testing"

func TestMayBeDaemon(t *testing.T) {
	for name, tt := range map[string]struct {
		args []string
		want bool
	}{
		"daemon":                  {[]string{"daemon", "--crontab", "c"}, true},
		"after global flags":      {[]string{"--db", "x.db", "daemon"}, true},
		"a flag's value: guessed": {[]string{"run", "--task", "daemon", "--", "true"}, true},
		"in the job's argv":       {[]string{"run", "--task", "t", "--", "daemon"}, false},
		"another command":         {[]string{"scan", "--crontab", "c"}, false},
		"none":                    {nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := mayBeDaemon(tt.args); got != tt.want {
				t.Errorf("mayBeDaemon(%q) = %v, want %v", tt.args, got, tt.want)
			}
		})
	}
}
