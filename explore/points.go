package explore

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Point is one place where explore can crash a process: just before one
// of its own trace events (a program op, a checkpoint tick or a flush), or
// just after its last one. An injected failure is a `fail` event placed in
// trace time so that it falls exactly there (docs/explore.md, "Failure
// points"):
//
//   - before event x of p: at x's time, inserted in the trace immediately
//     before x. SPEC §3 orders equal times by trace index, so the crash
//     comes after everything listed before x and before x itself, even
//     when x shares its time with p's previous event;
//   - after p's last event y: at y's time, inserted immediately after y.
//
// Points of one process that only internal ops separate form a quiet
// stretch (a class): the process shows the rest of the system nothing
// between them. A crash anywhere in a stretch keeps the process down until
// restart_delay after the stretch's last point (Down is pinned), so that
// only what the process lost — never when it comes back — depends on where
// in the stretch it crashed. That is what makes the points of a stretch
// interchangeable for the first failure of a schedule (reduce.go).
type Point struct {
	// P is the process that crashes.
	P int32
	// Gap is where the fail event goes: before event Gap of the base
	// trace (len(Events) means at the end).
	Gap int32
	// T is the fail event's time.
	T trace.Time
	// Down is how long the process stays down (the fail's `down`).
	Down trace.Time
	// Before is the base-trace index of the event the crash precedes, or
	// trace.None for the point after the process's last event.
	Before int32
	// After is the base-trace index of the process's event just before
	// the point, or trace.None for its first point.
	After int32
	// ID numbers the point within the whole trace independently of time:
	// the points of process 0 first, each process's in program order. It
	// is what stays the same when --delays re-times the trace.
	ID int32
	// End is the global index of the last point of this point's quiet
	// stretch; Dist is how many points (internal ops) lie between them;
	// Size is the stretch's number of points (the same for all of them).
	End, Dist, Size int32
}

// findPoints returns the failure points of tr in global order — by Gap,
// then time, then process — which is the order in which their fail events
// appear when several are inserted into the trace. restart is the restart
// delay in force. byID maps a point's ID to its index.
func findPoints(tr *trace.Trace, restart trace.Time) (pts []Point, byID []int32) {
	n := len(tr.Processes)
	perProc := make([][]Point, n)
	last := slices.Repeat([]int32{trace.None}, n)
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Kind == trace.Fail {
			continue
		}
		perProc[ev.P] = append(perProc[ev.P], Point{P: ev.P, Gap: int32(i), T: ev.T, Before: int32(i), After: last[ev.P]})
		last[ev.P] = int32(i)
	}
	pts = make([]Point, 0, len(tr.Events)+n)
	for p, list := range perProc {
		end := Point{P: int32(p), Gap: 0, Before: trace.None, After: last[p]}
		if y := last[p]; y != trace.None {
			end.Gap, end.T = y+1, tr.Events[y].T
		}
		list = append(list, end)
		stretches(tr, list, restart)
		for k := range list {
			list[k].ID = int32(len(pts) + k)
		}
		pts = append(pts, list...)
	}
	// No two points share a Gap and a process: the order is total.
	slices.SortFunc(pts, func(a, b Point) int {
		if c := cmp.Compare(a.Gap, b.Gap); c != 0 {
			return c
		}
		if c := cmp.Compare(a.T, b.T); c != 0 {
			return c
		}
		return cmp.Compare(a.P, b.P)
	})
	byID = make([]int32, len(pts))
	for g := range pts {
		byID[pts[g].ID] = int32(g)
	}
	// End was a position within the process; make it global.
	for g := range pts {
		pt := &pts[g]
		pt.End = byID[pt.ID+pt.Dist]
	}
	return pts, byID
}

// stretches fills Dist, Size and Down for the points of one process, in
// program order: a stretch ends at a point followed by anything but an
// internal op (or by nothing).
func stretches(tr *trace.Trace, list []Point, restart trace.Time) {
	start := 0
	for k := range list {
		quiet := list[k].Before != trace.None && tr.Events[list[k].Before].Kind == trace.Internal
		if quiet {
			continue
		}
		end := &list[k]
		for j := start; j <= k; j++ {
			list[j].Dist = int32(k - j)
			list[j].Size = int32(k - start + 1)
			list[j].Down = restart + (end.T - list[j].T)
		}
		start = k + 1
	}
}

// describe says where a point is, for people: "P1 before op 2 (recv m1)".
func (b *base) describe(pt *Point) string {
	name := b.tr.Processes[pt.P]
	if pt.Before == trace.None {
		if pt.After == trace.None {
			return name + " at the start (it has no events)"
		}
		return name + " after its last event (" + b.eventName(pt.After) + ")"
	}
	return name + " before " + b.eventName(pt.Before)
}

// eventName names a base-trace event of its process: "op 2 (recv m1)",
// "its checkpoint tick at t=1", "its flush at t=2".
func (b *base) eventName(i int32) string {
	ev := &b.tr.Events[i]
	switch ev.Kind {
	case trace.Checkpoint:
		return fmt.Sprintf("its checkpoint tick at t=%s", ev.T)
	case trace.Flush:
		return fmt.Sprintf("its flush at t=%s", ev.T)
	}
	// Its op index in the program: ops of its process before it. Names
	// are rare (witnesses, worst cases), so they are counted here.
	op := 0
	for j := range i {
		if e := &b.tr.Events[j]; e.P == ev.P && e.Kind.IsOp() {
			op++
		}
	}
	switch ev.Kind {
	case trace.Send:
		return fmt.Sprintf("op %d (send %s to %s)", op, b.tr.Msgs[ev.Msg], b.tr.Processes[ev.To])
	case trace.Recv:
		return fmt.Sprintf("op %d (recv %s)", op, b.tr.Msgs[ev.Msg])
	}
	return fmt.Sprintf("op %d (internal)", op)
}
