package explore

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Meter shows how far long work has come, on stderr (docs/explore.md,
// "Feedback"): on a terminal a bar, redrawn when it moves and every
// second, with the rate and the time left; elsewhere (a CI log) one line
// at most every ten seconds, so that a job is never silent for long and
// its log stays short. It reads the time through now, so that tests
// drive it with a fake clock. A nil *Meter shows nothing.
type Meter struct {
	mu          sync.Mutex
	w           io.Writer
	terminal    bool
	now         func() time.Time
	label, unit string
	start, last time.Time
	filled      int // the bar drawn (-1: none yet)
	wide        int // the line drawn's width
}

// Intervals between a Meter's lines.
const (
	redraw   = time.Second
	logEvery = 10 * time.Second
	barWidth = 30
)

// NewMeter returns a meter writing to w, a terminal or not, reading the
// time through now (nil: time.Now): "explore" and "schedules" label it.
func NewMeter(w io.Writer, terminal bool, now func() time.Time, label, unit string) *Meter {
	if now == nil {
		now = time.Now
	}
	t := now()
	return &Meter{w: w, terminal: terminal, now: now, label: label, unit: unit, start: t, last: t, filled: -1}
}

// Update shows done of total.
func (m *Meter) Update(done, total int64) {
	if m == nil || total <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.now()
	if !m.terminal {
		if t.Sub(m.last) >= logEvery {
			fmt.Fprintf(m.w, "ckpt: %s: %s\n", m.label, m.status(done, total, t))
			m.last = t
		}
		return
	}
	filled := int(barWidth * done / total)
	if filled == m.filled && t.Sub(m.last) < redraw && done != total {
		return
	}
	line := fmt.Sprintf("%s [%s%s] %s", m.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), m.status(done, total, t))
	fmt.Fprintf(m.w, "\r%-*s", m.wide, line)
	m.filled, m.wide, m.last = filled, max(m.wide, len(line)), t
}

// status is "1234/7000 schedules, 52/s, 1m50s left".
func (m *Meter) status(done, total int64, t time.Time) string {
	s := fmt.Sprintf("%d/%d %s", done, total, m.unit)
	el := t.Sub(m.start)
	if done <= 0 || el <= 0 {
		return s
	}
	rate := float64(done) / el.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
	prec := 0
	if rate < 10 {
		prec = 1
	}
	return fmt.Sprintf("%s, %.*f/s, %s left", s, prec, rate, left)
}

// Finish blanks a terminal's line so that what follows starts clean.
func (m *Meter) Finish() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.terminal && m.wide > 0 {
		fmt.Fprintf(m.w, "\r%s\r", strings.Repeat(" ", m.wide))
	}
}
