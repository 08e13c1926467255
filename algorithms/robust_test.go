package algorithms_test

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/consistency"
)

// TestPropertyCheckerSurvivesCorruptRuns corrupts real runs — drops,
// duplicates and swaps events, and sets numeric fields to other
// in-range values — and asserts that whatever the run decoder accepts,
// the checker judges without panicking, with and without the source
// trace (SPEC §7: a run recorded by another implementation enters here;
// bad input never panics).
func TestPropertyCheckerSurvivesCorruptRuns(t *testing.T) {
	var checked, rejected int
	defer func() { t.Logf("corrupt runs checked: %d, rejected by the decoder: %d", checked, rejected) }()
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		a := rapid.SampledFrom(variants()).Draw(t, "algorithm")
		run := replayWith(t, tr, a[0], a[1])
		if len(run.Events) == 0 {
			return
		}
		n := int32(len(run.Processes))
		small := rapid.Int32Range(-1, 12)
		for range rapid.IntRange(1, 4).Draw(t, "corruptions") {
			i := rapid.IntRange(0, len(run.Events)-1).Draw(t, "event")
			e := &run.Events[i]
			switch rapid.IntRange(0, 11).Draw(t, "how") {
			case 0:
				run.Events = append(run.Events[:i], run.Events[i+1:]...)
			case 1:
				run.Events = append(run.Events[:i+1], run.Events[i:]...)
			case 2:
				j := rapid.IntRange(0, len(run.Events)-1).Draw(t, "other")
				run.Events[i], run.Events[j] = run.Events[j], run.Events[i]
			case 3:
				e.P = rapid.Int32Range(0, n-1).Draw(t, "p")
			case 4:
				e.Op = small.Draw(t, "op")
			case 5:
				e.Pos = small.Draw(t, "pos")
			case 6:
				e.Copy = rapid.Int32Range(0, 4).Draw(t, "copy")
			case 7:
				e.Restore = small.Draw(t, "restore")
			case 8:
				e.Failure = rapid.Int32Range(-1, int32(len(run.Events))).Draw(t, "failure")
			case 9:
				e.Ckpt = small.Draw(t, "ckpt")
			case 10:
				if old := run.PB(e); old != nil {
					pb := *old
					pb.Sn = small.Draw(t, "sn")
					e.PB = run.AddPB(&pb)
				}
			case 11:
				if len(run.Msgs) > 0 {
					e.Msg = rapid.Int32Range(0, int32(len(run.Msgs))-1).Draw(t, "msg")
				}
			}
			if len(run.Events) == 0 {
				return
			}
		}
		for i := range run.Events {
			run.Events[i].Seq = int32(i)
		}
		var b bytes.Buffer
		if err := codec.WriteRun(&b, run, codec.WriteOptions{JSONL: true}); err != nil {
			rejected++
			return
		}
		back, err := codec.ReadRun("corrupt.jsonl", &b)
		if err != nil {
			rejected++
			return // rejected as input: the decoder's business
		}
		checked++
		consistency.Check(back, tr)
		consistency.Check(back, nil)
	})
}
