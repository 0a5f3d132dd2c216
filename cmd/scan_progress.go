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

func (b *progressBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
	}
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
