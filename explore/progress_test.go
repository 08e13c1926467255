package explore

import (
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestMeterLogsEveryTenSeconds: off a terminal the meter writes a line
// when ten seconds have passed since the last, never more often, each
// with the rate and the time left; on a terminal it redraws its bar.
func TestMeterLogsEveryTenSeconds(t *testing.T) {
	c := &fakeClock{t: time.Unix(1000, 0)}
	var b strings.Builder
	m := NewMeter(&b, false, c.now, "explore", "schedules")
	for done := int64(1); done <= 30; done++ {
		c.t = c.t.Add(time.Second) // 1 schedule a second
		m.Update(done, 100)
	}
	m.Finish()
	want := "ckpt: explore: 10/100 schedules, 1.0/s, 1m30s left\n" +
		"ckpt: explore: 20/100 schedules, 1.0/s, 1m20s left\n" +
		"ckpt: explore: 30/100 schedules, 1.0/s, 1m10s left\n"
	if b.String() != want {
		t.Errorf("off a terminal:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	c.t = time.Unix(1000, 0)
	m = NewMeter(&b, true, c.now, "explore", "schedules")
	c.t = c.t.Add(2 * time.Second)
	m.Update(50, 100)
	m.Update(50, 100) // the bar did not move, no time passed: not redrawn
	m.Finish()
	line := "explore [===============               ] 50/100 schedules, 25/s, 2s left"
	if want := "\r" + line + "\r" + strings.Repeat(" ", len(line)) + "\r"; b.String() != want {
		t.Errorf("on a terminal: %q\nwant %q", b.String(), want)
	}
}
