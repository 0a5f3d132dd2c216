package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
)

// progressBar draws replays done / total on a terminal, on one line that
// it redraws; finish ends that line. Only for a terminal: elsewhere scan
// prints nothing of it.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

const barWidth = 24

func (b *progressBar) update(p catchup.ReplayProgress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(b.w, "\r\x1b[K%s", barLine(p))
	b.drawn = true
}

// finish clears the bar's line, so that the report starts on a clean one.
func (b *progressBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
}

// clear erases the drawn bar (b.mu held); the next update draws it again.
func (b *progressBar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// Write passes a replayed job's output (and catchup's notices) to the
// terminal, on a line of its own: the bar is cleared first, and redrawn
// below it at the next update.
func (b *progressBar) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	return b.w.Write(p)
}

// barLine is one state of the bar:
// catchup: [#########...............] 12/32 replays, 2 running; settle 2026-11-21T02:00:00Z
func barLine(p catchup.ReplayProgress) string {
	filled := 0
	if p.Total > 0 {
		filled = min(barWidth, p.Done*barWidth/p.Total)
	}
	line := fmt.Sprintf("catchup: [%s%s] %d/%d replays", strings.Repeat("#", filled),
		strings.Repeat(".", barWidth-filled), p.Done, p.Total)
	if p.Running > 0 {
		line += fmt.Sprintf(", %d running", p.Running)
	}
	if p.Task != "" {
		line += "; " + printable(p.Task) + " " + p.Slot.UTC().Format(time.RFC3339)
	}
	return line
}
