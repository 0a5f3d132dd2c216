package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tablewriterTable is how catchup drew its tables with tablewriter v1.0.9
// before it stopped linking it (its packages' init costs every run): the
// reference renderTable must keep matching.
func tablewriterTable(t *testing.T, header []string, rows [][]string) string {
	t.Helper()
	safe := make([][]string, len(rows))
	for i, row := range rows {
		safe[i] = make([]string, len(row))
		for j, v := range row {
			safe[i][j] = printable(v)
		}
	}
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	table.Header(header)
	if err := table.Bulk(safe); err != nil {
		t.Fatal(err)
	}
	if err := table.Render(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		out.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return out.String()
}

func TestRenderTableMatchesTablewriter(t *testing.T) {
	header := []string{"TASK", "SCHEDULE", "LAST RUN", "STATUS", "NOTE"}
	tests := map[string][][]string{
		"no rows": nil,
		"ascii": {
			{"db-backup", "0 2 * * *", "2026-11-20 02:00", "succeeded", ""},
			{"settle", "*/5 * * * *", "-", "never", "first line"},
		},
		"a value wider than its header": {{"a-very-long-task-name.with.dots", "@daily", "", "", ""}},
		"empty columns at the end":      {{"t", "", "", "", ""}, {"u", "x", "", "", ""}},
		"blanks inside and at the end":  {{"t", "a  b", " lead", "trail  ", "  "}},
		"wide characters":               {{"t", "x", "", "", "日本語のノート"}, {"u", "", "", "", "ñandú café"}},
		"emoji and combining marks":     {{"t", "", "", "", "done ✅ 🎉"}, {"u", "", "", "", "e\u0301te\u0301"}},
		"control characters escaped":    {{"t", "", "", "", "line\nnext\tcol\x1b[31m"}},
		"invalid utf-8":                 {{"t", "", "", "", "bad \xff byte"}},
		"wide in a middle column":       {{"t", "毎日", "x", "", ""}, {"longer-name", "*", "", "", ""}},
	}
	for name, rows := range tests {
		t.Run(name, func(t *testing.T) {
			want := tablewriterTable(t, header, rows)
			var got bytes.Buffer
			if err := renderTable(&got, header, rows); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("renderTable:\n%s\ntablewriter:\n%s", got.String(), want)
			}
		})
	}
}
