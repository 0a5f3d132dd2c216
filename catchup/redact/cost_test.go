package redact

import (
	"runtime"
	"strings"
	"testing"
)

// TestCommandCostLinear: a command line with many secrets to mask costs
// in proportion to its length. Each mask was spliced into the whole line
// (line[:i] + mask + line[j:]), and a URL's password rule scanned the whole
// line before each of its matches for its quoting: 8,000 `curl -u a:b`
// (96 KB) allocated 828 MB, 8,000 URLs 537 MB, and a crontab line of
// 150,000 `curl -u a:b` (1.8 MB) took a scan 317 s (a crontab may be
// 16 MiB). The bytes allocated are the measure: four times the line, four
// times the bytes, not sixteen.
func TestCommandCostLinear(t *testing.T) {
	alloc := func(line string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := Command(line)
		runtime.ReadMemStats(&after)
		if !strings.Contains(got, Mask) {
			t.Fatalf("nothing masked in %.40q...", got)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, word := range map[string]string{"curl": "curl -u a:b ", "password": "--password=x ", "url": "https://u:p@h/ "} {
		t.Run(name, func(t *testing.T) {
			small, large := alloc(strings.Repeat(word, 2000)), alloc(strings.Repeat(word, 8000))
			if large > 8*small {
				t.Errorf("masking a line 4 times longer allocated %.1f times the bytes (%d KB, then %d KB): want it in proportion",
					float64(large)/float64(small), small>>10, large>>10)
			}
		})
	}
}

// BenchmarkArgvNoSecret is the cost of masking a crontab line's command
// that holds no secret (a --cron fire masks its command on every fire):
// no rule's regexp runs over it, as none holds what its match needs.
func BenchmarkArgvNoSecret(b *testing.B) {
	argv := []string{"sh", "-c", `cd /srv/app && ./bin/settle --date "$CATCHUP_SLOT" --region eu-west-1 >> /var/log/settle.log 2>&1`}
	for b.Loop() {
		Argv(argv)
	}
}
