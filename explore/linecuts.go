package explore

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// history is a protocol's failure-free run of the base trace, indexed to
// place crashes in it (cut) and to propagate rollbacks over it (Lines).
type history struct {
	run *trace.Run
	tr  *trace.Trace
	// g holds every checkpoint and received message of the run: one
	// graph serves every crash, since rline ignores what a state at the
	// crash has not reached (rline.Graph.Line).
	g *rline.Graph
	// image[x] is the run event trace event x became — its op, or the
	// checkpoint or skip its tick produced — or None; images lists the
	// run events that are images, in run order, and imageOf their trace
	// events.
	image   []int32
	images  []int32
	imageOf []int32
}

// tickLabel is the label a tick carries into the run (the engine writes
// a tick's label on what it produced), naming the tick's trace index.
const tickLabel = "\x00tick "

// tickLabelled returns a copy of tr in which every tick is labelled with
// its index and nothing else is labelled.
func tickLabelled(tr *trace.Trace) *trace.Trace {
	out := *tr
	out.Events = make([]trace.Event, len(tr.Events))
	out.Labels = nil
	for i, ev := range tr.Events {
		ev.Label = 0
		if ev.Kind == trace.Checkpoint {
			ev.Label = out.AddLabel(tickLabel + strconv.Itoa(i))
		}
		out.Events[i] = ev
	}
	return &out
}

// Pattern is a failure-free run's checkpoint and communication
// pattern: every process's checkpoint positions (0, its initial state,
// first) and every received message, ops at both ends.
func Pattern(run *trace.Run) (ckpts [][]int32, msgs []rline.Msg) {
	ckpts = make([][]int32, len(run.Processes))
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	sent := make([]rline.Msg, len(run.Msgs))
	for i := range run.Events {
		switch e := &run.Events[i]; e.Kind {
		case trace.Checkpoint:
			ckpts[e.P] = append(ckpts[e.P], e.Pos)
		case trace.Send:
			sent[e.Msg] = rline.Msg{From: e.P, SendOp: e.Op}
		case trace.Recv:
			m := sent[e.Msg]
			m.To, m.RecvOp = e.P, e.Op
			msgs = append(msgs, m)
		}
	}
	return ckpts, msgs
}

// newHistory indexes run, the failure-free replay of tr.
func newHistory(run *trace.Run, tr *trace.Trace) (*history, error) {
	h := &history{run: run, tr: tr, image: make([]int32, len(tr.Events))}
	prog := make([][]int32, len(tr.Processes))
	for i := range tr.Events {
		h.image[i] = trace.None
		if ev := &tr.Events[i]; ev.Kind.IsOp() {
			prog[ev.P] = append(prog[ev.P], int32(i))
		}
	}
	for i := range run.Events {
		e := &run.Events[i]
		x := int32(trace.None)
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			if e.Op >= 0 && int(e.Op) < len(prog[e.P]) {
				x = prog[e.P][e.Op]
			}
		case trace.Checkpoint, trace.CheckpointSkipped:
			if l, ok := strings.CutPrefix(run.Label(e), tickLabel); ok {
				v, _ := strconv.Atoi(l)
				x = int32(v)
			}
		}
		if x != trace.None {
			h.image[x] = int32(i)
			h.images, h.imageOf = append(h.images, int32(i)), append(h.imageOf, x)
		}
	}
	var err error
	h.g, err = rline.New(Pattern(run))
	return h, err
}

// cut returns where a crash at point pt falls in the run: before the run
// event it returns (len(Events): after all of them).
//
//   - Before an op or a tick of p: just before its image, and before
//     what the engine did first for it (a forced checkpoint precedes
//     its receive), as Run's injected failure comes before the item.
//   - Before a flush (no image): at its time and trace index, among the
//     run's items as the engine orders them (time, then arrivals before
//     trace items, then trace index).
//   - After p's last event: just after its image and what the engine
//     did with it (a round's block and requests after a tick).
func (h *history) cut(pt *Point) int32 {
	if pt.Before != trace.None {
		if i := h.image[pt.Before]; i != trace.None {
			return h.attachedStart(i)
		}
		return h.timeCut(h.tr.Events[pt.Before].T, pt.Before)
	}
	if pt.After == trace.None {
		return 0
	}
	if i := h.image[pt.After]; i != trace.None {
		return h.attachedEnd(i)
	}
	return h.timeCut(h.tr.Events[pt.After].T, pt.After+1)
}

// attachedStart moves back from image i over what its step wrote before
// it: a forced checkpoint or a log entry of the same process, at once.
func (h *history) attachedStart(i int32) int32 {
	evs := h.run.Events
	for i > 0 {
		e, img := &evs[i-1], &evs[i]
		if e.P != img.P || e.T != img.T || !(e.Kind == trace.Log || (e.Kind == trace.Checkpoint && e.CkptType == trace.CkptForced)) {
			break
		}
		i--
	}
	return i
}

// attachedEnd moves forward from image i over what its step wrote after
// it: blocks, control messages, resumes of the same process, at once.
func (h *history) attachedEnd(i int32) int32 {
	evs := h.run.Events
	for i++; int(i) < len(evs); i++ {
		e, img := &evs[i], &evs[i-1]
		if e.P != img.P || e.T != img.T || !(e.Kind == trace.Block || e.Kind == trace.ControlSend || e.Kind == trace.Resume) {
			break
		}
	}
	return i
}

// timeCut places a crash at time t, just before trace index x: before
// the first run event later than t, and before the first image at t of
// a trace event at or after x.
func (h *history) timeCut(t trace.Time, x int32) int32 {
	evs := h.run.Events
	c := int32(sort.Search(len(evs), func(i int) bool { return evs[i].T > t }))
	k := sort.Search(len(h.images), func(k int) bool {
		e := &evs[h.images[k]]
		return e.T > t || (e.T == t && h.imageOf[k] >= x)
	})
	if k < len(h.images) {
		c = min(c, h.attachedStart(h.images[k]))
	}
	return c
}
