package shiviz_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/diagram"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// TestUndoneAgreesWithDiagram (issue 29): export marks `[undone]`
// exactly the app ops the diagram fades, both read from the checker's
// history model, also on runs no algorithm of ckpt writes: restores
// without pos, an op number that breaks continuity, an op number out of
// range. Export used to rebuild live histories itself and, on these,
// marked nothing (no pos), the op a broken continuity drops, or the op
// out of range. Resends are left out of the comparison: the diagram also
// fades a resend of an undone send, which export has never marked.
func TestUndoneAgreesWithDiagram(t *testing.T) {
	for _, alg := range []string{"ms", "pk"} {
		run := replayed(t, "../../testdata/traces/domino.json", alg)
		prev, last := undonePair(t, run)
		for _, f := range []struct {
			name  string
			forge func(run *trace.Run)
			check func(t *testing.T, marked []int32)
		}{
			{"as replayed", func(*trace.Run) {}, func(t *testing.T, marked []int32) {
				if !slices.Contains(marked, prev) || !slices.Contains(marked, last) {
					t.Errorf("events %d and %d not both undone", prev, last)
				}
			}},
			{"restores without pos", func(run *trace.Run) {
				for i := range run.Events {
					if e := &run.Events[i]; e.Kind == trace.Restart || e.Kind == trace.Rollback {
						e.Pos = trace.None
					}
				}
			}, func(t *testing.T, marked []int32) {
				if len(marked) == 0 {
					t.Error("nothing undone: the model sees the undo at the next op's number")
				}
			}},
			{"op number out of range", func(run *trace.Run) { run.Events[last].Op = 1 << 20 },
				func(t *testing.T, marked []int32) {
					if slices.Contains(marked, last) {
						t.Errorf("event %d, whose op the model leaves out, is undone", last)
					}
				}},
			{"broken continuity", func(run *trace.Run) { run.Events[last].Op-- },
				func(t *testing.T, marked []int32) {
					if slices.Contains(marked, prev) || !slices.Contains(marked, last) {
						t.Errorf("undone %v: want %d, numbered as %d was, and not %d, which it drops", marked, last, prev, prev)
					}
				}},
		} {
			t.Run(alg+"/"+f.name, func(t *testing.T) {
				forged := *run
				forged.Events = slices.Clone(run.Events)
				f.forge(&forged)
				marked := exportUndone(t, &forged)
				if faded := diagramUndone(t, &forged); !slices.Equal(marked, faded) {
					t.Errorf("export marks %v undone, the diagram fades %v", marked, faded)
				}
				f.check(t, marked)
			})
		}
	}
}

// replayed replays the trace in file through alg.
func replayed(t *testing.T, file, alg string) *trace.Run {
	t.Helper()
	tr, err := codec.ReadTraceFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a, err := algorithms.New(alg, "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// undonePair returns two app ops of one process, numbered k-1 and k,
// that a later restart or rollback undoes: forging k's number changes
// what is undone.
func undonePair(t *testing.T, run *trace.Run) (prev, last int32) {
	t.Helper()
	ev := run.Events
	isOp := func(e *trace.RunEvent, p int32) bool { return e.P == p && e.Kind.IsOp() && !e.Resend }
	for i := len(ev) - 1; i >= 0; i-- {
		r := &ev[i]
		if r.Kind != trace.Restart && r.Kind != trace.Rollback || r.Pos < 0 {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if !isOp(&ev[j], r.P) || ev[j].Op <= r.Pos {
				continue
			}
			for k := j - 1; k >= 0; k-- {
				if isOp(&ev[k], r.P) && ev[k].Op == ev[j].Op-1 {
					return int32(k), int32(j)
				}
			}
		}
	}
	t.Fatal("no two ops undone by one restore")
	return trace.None, trace.None
}

// exportUndone returns the app ops (not resends) export marks undone.
func exportUndone(t *testing.T, run *trace.Run) []int32 {
	t.Helper()
	var buf bytes.Buffer
	if _, err := shiviz.Export(&buf, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:]
	var marked []int32
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal, trace.Checkpoint, trace.Fail, trace.Restart, trace.Rollback:
		default:
			continue
		}
		line := lines[0]
		lines = lines[1:]
		if strings.HasSuffix(line, " [undone]") && e.Kind.IsOp() && !e.Resend {
			marked = append(marked, int32(i))
		}
	}
	if len(lines) != 0 {
		t.Fatalf("%d lines more than events written", len(lines))
	}
	return marked
}

// mark is an event's mark in the diagram's SVG: its class and seq.
var mark = regexp.MustCompile(`class="ev ev-(send|recv|internal)( [^"]*)?" data-seq="(\d+)"`)

// diagramUndone returns the app ops (not resends) the diagram fades.
func diagramUndone(t *testing.T, run *trace.Run) []int32 {
	t.Helper()
	var buf bytes.Buffer
	if err := diagram.SVGPanels(&buf, []diagram.Panel{{Run: run}}, diagram.Options{}); err != nil {
		t.Fatal(err)
	}
	var faded []int32
	for _, m := range mark.FindAllStringSubmatch(buf.String(), -1) {
		classes := strings.Fields(m[2])
		if slices.Contains(classes, "undone") && !slices.Contains(classes, "resend") {
			seq, _ := strconv.Atoi(m[3])
			faded = append(faded, int32(seq))
		}
	}
	return faded
}
