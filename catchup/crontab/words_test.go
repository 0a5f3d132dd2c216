package crontab

import (
	"strings"
	"testing"
)

// TestTimeLike pins what counts as a cron time field: the field grammar
// (numbers, 3-letter month and weekday names, *, ?, lists, ranges, steps,
// and Quartz's L, W and #), not any word with a digit or a * in it.
func TestTimeLike(t *testing.T) {
	tests := map[string]struct {
		word string
		want bool
	}{
		"star":                 {"*", true},
		"question mark":        {"?", true},
		"number":               {"0", true},
		"step":                 {"*/2", true},
		"range step":           {"1-10/2", true},
		"list":                 {"1,15,30", true},
		"weekday range":        {"MON-FRI", true},
		"lower-case name":      {"jan", true},
		"mixed-case name":      {"Sat", true},
		"year":                 {"2027", true},
		"last":                 {"L", true},
		"last weekday":         {"LW", true},
		"nearest weekday":      {"15W", true},
		"last friday":          {"5L", true},
		"name then L":          {"FRIL", true},
		"July (ends in L)":     {"JUL", true},
		"nth weekday":          {"6#3", true},
		"named nth weekday":    {"FRI#3", true},
		"L minus days":         {"L-3", true},
		"list of steps":        {"0-30/5,45", true},
		"script with digits":   {"5min.sh", false},
		"glob path":            {"*/bin/x", false},
		"absolute path":        {"/app/job.sh", false},
		"relative path":        {"./5", false},
		"command w":            {"w", false},
		"command date":         {"date", false},
		"full weekday name":    {"monday", false},
		"assignment":           {"X=1", false},
		"empty":                {"", false},
		"empty step":           {"*/", false},
		"signed step":          {"*/+5", false},
		"open range":           {"5-", false},
		"bare hash":            {"#", false},
		"hash without number":  {"6#", false},
		"two hashes":           {"1#2#3", false},
		"repeated L":           {"LLL", false},
		"lone dash":            {"-", false},
		"lone comma":           {",", false},
		"catchup":              {"catchup", false},
		"name with digits":     {"mon2", false},
		"quoted star":          {"'*'", false},
		"escaped star":         {`\*`, false},
		"number then a letter": {"5x", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := timeLike(tc.word); got != tc.want {
				t.Errorf("timeLike(%q) = %v, want %v", tc.word, got, tc.want)
			}
		})
	}
}

// TestSupercronicLines pins that the daemon's reader and scan's refuse a
// 6- or 7-field line (supercronic's seconds and years) with the same words.
func TestSupercronicLines(t *testing.T) {
	const hint = "catchup reads cron's 5 (minute to day of week); supercronic's seconds and years fields are not supported: remove them (a command named like a field is written with its path, ./mon)"
	tests := map[string]struct {
		line, want string
	}{
		"seconds":        {"*/5 * * * * * catchup run --task x -- /app/sync.sh", "c:1: expected 5 time fields before the command, found 6: " + hint},
		"seconds, years": {"0 */5 * * * * 2027 catchup run --task x -- /app/sync.sh", "c:1: expected 5 time fields before the command, found 7: " + hint},
		"weekday names":  {"0 0 0 * * MON-FRI catchup run --task x -- /app/sync.sh", "c:1: expected 5 time fields before the command, found 6: " + hint},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, jobErrs := ParseJobs(strings.NewReader(tc.line+"\n"), "c")
			_, scanErrs := Parse(strings.NewReader(tc.line+"\n"), "c", false)
			for reader, errs := range map[string][]error{"daemon": jobErrs, "scan": scanErrs} {
				if len(errs) != 1 || errs[0].Error() != tc.want {
					t.Errorf("%s: errors %v, want %q", reader, errs, tc.want)
				}
			}
		})
	}
}

// TestCommandsNamedLikeAField: a command whose name is a bare month or
// weekday name, or L, W (mon, sat, jan) is a command, as cron runs it,
// not a sixth time field; a number, a star, a list or a range is a field.
func TestCommandsNamedLikeAField(t *testing.T) {
	tests := map[string]struct {
		rest string
		want int
	}{
		"mon":           {"mon -d ./app", 0},
		"sat":           {"sat solve.cnf", 0},
		"Jan":           {"Jan", 0},
		"L":             {"L", 0},
		"FRIL":          {"FRIL x", 0},
		"a path":        {"./mon", 0},
		"seconds":       {"* catchup run", 1},
		"zero":          {"0 job.sh", 1},
		"a range":       {"MON-FRI job.sh", 1},
		"a list":        {"mon,wed job.sh", 1},
		"seconds years": {"0 2027 job.sh", 2},
		"5L":            {"5L job.sh", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := extraTimeFields(tc.rest); got != tc.want {
				t.Errorf("extraTimeFields(%q) = %d, want %d", tc.rest, got, tc.want)
			}
		})
	}
}
