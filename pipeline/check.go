package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Check judges a recorded run as it is, against the source trace its
// header names when that can be read; when it cannot, note says why
// (and the report's equivalence, then unknown, says so too). path is
// the run's file, which names it in the report and anchors a relative
// source. A run whose check is estimated over the memory cap is refused
// (*TooBig).
func (p *Pipeline) Check(run *trace.Run, path string) (r report.Report, note string, err error) {
	if err := p.Mem.check(path, checkEstimate(run)); err != nil {
		return report.Report{}, "", err
	}
	src, note := p.source(run, path)
	r = consistency.Check(run, src)
	r.File = path
	if note != "" {
		for i := range r.Properties {
			if q := &r.Properties[i]; q.Name == report.Equivalence && q.Status == report.Unknown {
				q.Note = note
			}
		}
		note = fmt.Sprintf("%s: %s: equivalence is unknown", path, note)
	}
	return r, note, nil
}

// source reads the trace a run's header names, if it can. The name is
// relative to the run file's directory (ckpt replay -o writes it so); a
// run written to stdout, or by an older ckpt, names it relative to the
// directory replay ran in, which is tried second. A source that is
// missing, invalid or of other processes is not used — equivalence is
// then unknown rather than judged against the wrong program — and note
// says why ("" when the run names none).
func (p *Pipeline) source(run *trace.Run, runPath string) (*trace.Trace, string) {
	if run.Source == "" || run.Source == "-" {
		return nil, ""
	}
	var candidates []string
	if !filepath.IsAbs(run.Source) && runPath != "-" {
		candidates = append(candidates, filepath.Join(filepath.Dir(runPath), run.Source))
	}
	if len(candidates) == 0 || filepath.Clean(run.Source) != candidates[0] {
		candidates = append(candidates, run.Source)
	}
	var why []string
	for _, c := range candidates {
		tr, err := codec.ReadTraceFile(c)
		switch {
		case err != nil:
			why = append(why, c+": "+Describe(Labelled(err, TraceDoc)))
		case !slices.Equal(tr.Processes, run.Processes):
			why = append(why, c+": its processes are not the run's")
		default:
			if p.OnRead != nil {
				p.OnRead(c)
			}
			return tr, ""
		}
	}
	return nil, fmt.Sprintf("the source trace %q the run names cannot be used (%s)", run.Source, strings.Join(why, "; "))
}
