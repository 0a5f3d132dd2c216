package catchup

import (
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestExpandedNotify: a line's --notify-cmd is expanded as its shell
// expands it at the fire, with the variables cron and the crontab give
// the line; what depends on anything else is not guessed.
func TestExpandedNotify(t *testing.T) {
	vars := map[string]string{"HOME": "/home/a b", "PAGES": "/srv/pages", "USER": "alice", "EMPTY": "", "HOOK_TOKEN": "abc123"}
	for name, tc := range map[string]struct {
		line, value, why string
	}{
		"double-quoted HOME":        {line: `--notify-cmd "$HOME/alert.sh"`, value: "/home/a b/alert.sh"},
		"braced, glued to the flag": {line: `--notify-cmd=${PAGES}/page\ x`, value: "/srv/pages/page x"},
		"mixed quotes":              {line: `--notify-cmd 'echo $CATCHUP_TASK '"$USER"`, value: "echo $CATCHUP_TASK alice"},
		"an escaped dollar":         {line: `--notify-cmd "\$X $USER"`, value: "$X alice"},
		"a lone dollar":             {line: `--notify-cmd "cost $ $USER"`, value: "cost $ alice"},
		"an empty one, quoted":      {line: `--notify-cmd "page$EMPTY"`, value: "page"},
		"a secret by its name":      {line: `--notify-cmd "page $HOOK_TOKEN"`, why: "$HOOK_TOKEN, a secret by its name"},
		"unset":                     {line: `--notify-cmd "$PAGER x"`, why: "$PAGER, which cron does not set"},
		"a default":                 {line: `--notify-cmd "${PAGER:-page}"`, why: "${PAGER:, which only the fire expands"},
		"a command substitution":    {line: `--notify-cmd "$(cat f)"`, why: "$(, which only the fire expands"},
		"backticks":                 {line: "--notify-cmd page`date`", why: "a command substitution"},
		"a positional parameter":    {line: `--notify-cmd "$1"`, why: "$1, which only the fire expands"},
		"unquoted, split":           {line: `--notify-cmd $HOME/alert.sh`, why: "unquoted, $HOME is split"},
		"unquoted, empty":           {line: `--notify-cmd $EMPTY`, why: "unquoted, $EMPTY is empty"},
		"a quoted flag name":        {line: `"--notify-cmd=$HOME/x"`, why: "a quoted flag name"},
	} {
		t.Run(name, func(t *testing.T) {
			es, errs := crontab.Parse(strings.NewReader("0 * * * * catchup run --task t "+tc.line+" -- true\n"), "c", false)
			if len(errs) != 0 || len(es) != 1 || !es[0].NotifyExpands {
				t.Fatalf("Parse: %+v, %v; want one line whose --notify-cmd expands", es, errs)
			}
			value, why, _ := expandedNotify(es[0], vars)
			if value != tc.value || !strings.HasPrefix(why, tc.why) || (tc.why == "") != (why == "") {
				t.Errorf("expandedNotify = %q, %q; want %q, %q", value, why, tc.value, tc.why)
			}
		})
	}
}
