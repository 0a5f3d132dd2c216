package cmd

import "strings"

// writeWrapped writes line broken at blanks into lines of at most width
// columns, each after the first indented by two blanks: the lines under
// the calendar's grid (missed: causes, notes, warnings) for a terminal of
// calendarWidth columns. A word longer than a line stands alone on its
// own; nothing is cut.
func writeWrapped(b *strings.Builder, line string, width int) {
	const indent = "  "
	n := 0 // columns of the current output line
	for i, w := range strings.Fields(line) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
}
