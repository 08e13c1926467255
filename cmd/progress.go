package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// progress is the "verify [=====     ] k/n files" line verify and explore
// keep on stderr while they work. It is drawn only on a terminal: on a
// pipe or in a file it would be noise mixed into captured diagnostics.
// It is redrawn when its bar moves and at the end, not at every step of
// millions. A nil *progress draws nothing.
type progress struct {
	mu           sync.Mutex
	w            io.Writer
	label, unit  string
	done         int64
	filled, wide int // the bar drawn (-1: none yet), the line's width
}

// newProgress returns a progress line on w, or nil when w is not a
// terminal.
func newProgress(w io.Writer, label, unit string) *progress {
	if !isTerminal(w) {
		return nil
	}
	return &progress{w: w, label: label, unit: unit, filled: -1}
}

// step counts one more done out of total.
func (p *progress) step(total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.draw(p.done, total)
}

// update shows done out of total.
func (p *progress) update(done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(done, total)
}

// draw redraws the line if the bar moved or the work is done; the
// caller holds mu.
func (p *progress) draw(done, total int64) {
	const barWidth = 30
	if total <= 0 {
		return
	}
	filled := int(barWidth * done / total)
	if filled == p.filled && done != total {
		return
	}
	p.filled = filled
	line := fmt.Sprintf("%s [%s%s] %d/%d %s", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), done, total, p.unit)
	p.wide = len(line)
	fmt.Fprintf(p.w, "\r%s", line)
}

// finish blanks the line so that what follows starts on a clean line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wide > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.wide))
	}
}
