package shiviz

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// maxAddedTicks is how many ticks --tick-period may add beyond ten per
// event of the log: as gen's --max-events, a period far shorter than the
// span of the times (a clock that says 1970) would otherwise add billions
// and exhaust memory, so the import is refused before any is added.
const maxAddedTicks = 1_000_000

// tickCap counts the ticks --tick-period adds against the limit, over
// every execution of one import.
type tickCap struct{ limit, added float64 }

// checkTicks counts the ticks the periods add over the trace's span of
// time and refuses more than the cap leaves.
func (c *converter) checkTicks(name string) error {
	ops, end := 0, trace.Time(0)
	for _, ev := range c.ex.Events {
		ops, end = ops+max(1, len(ev.Parents)+len(ev.Children)), max(end, ev.Time)
	}
	if !c.ex.Timed {
		end = trace.Time(min(float64(ops)*float64(c.opts.Step), float64(trace.MaxTime)))
	}
	n := 0.0
	for _, p := range c.periods {
		n += float64(end / p)
	}
	if before := c.ticks.added; before+n > c.ticks.limit {
		ps := make([]string, len(c.opts.TickPeriod))
		for i, p := range c.opts.TickPeriod {
			ps[i] = p.String()
		}
		with := ""
		if before > 0 {
			with = fmt.Sprintf(", %.0f with the executions before it", before+n)
		}
		return inputError(name, 0, "--tick-period %s would add %.0f ticks over the trace's %s s%s, more than the %.0f allowed (%d and 10 per event): give a longer period",
			strings.Join(ps, ","), n, end, with, c.ticks.limit, maxAddedTicks)
	}
	c.ticks.added += n
	return nil
}

// tickQueue is the processes in the order of their next tick time, ties
// by process (container/heap): each tick costs log(processes), not a scan
// of every process (BenchmarkTicksManyProcesses).
type tickQueue struct {
	at []trace.Time // each process's next tick time
	h  []int32      // the heap of processes
}

func newTickQueue(periods []trace.Time) *tickQueue {
	q := &tickQueue{at: slices.Clone(periods), h: make([]int32, len(periods))}
	for i := range q.h {
		q.h[i] = int32(i)
	}
	heap.Init(q)
	return q
}

func (q *tickQueue) Len() int { return len(q.h) }

func (q *tickQueue) Less(i, j int) bool {
	a, b := q.h[i], q.h[j]
	return q.at[a] < q.at[b] || q.at[a] == q.at[b] && a < b
}

func (q *tickQueue) Swap(i, j int) { q.h[i], q.h[j] = q.h[j], q.h[i] }

// Push and Pop complete heap.Interface (the queue keeps every process).
func (q *tickQueue) Push(p any) { q.h = append(q.h, p.(int32)) }

func (q *tickQueue) Pop() any {
	p := q.h[len(q.h)-1]
	q.h = q.h[:len(q.h)-1]
	return p
}

// emitTicks adds every period tick due strictly before limit, in time
// order, ties by process.
func (c *converter) emitTicks(limit trace.Time) {
	for q := c.next; len(q.h) > 0 && q.at[q.h[0]] < limit; heap.Fix(q, 0) {
		p := q.h[0]
		c.tr.Events = append(c.tr.Events, trace.Event{T: q.at[p], Kind: trace.Checkpoint, P: p, To: trace.None, Msg: trace.None})
		c.st.Ticks++
		q.at[p] += c.periods[p]
	}
}
