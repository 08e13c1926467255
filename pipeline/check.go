package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/measure"
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
	r, note = noted(Report(run, src), path, note)
	return r, note, nil
}

// Report is a run's whole report: the checker's verdicts and the tables
// measured from the model it judged, the source trace's baseline
// computed beside the checking. src is the source trace or nil.
func Report(run *trace.Run, src *trace.Trace) report.Report {
	base := measure.StartBaseline(src)
	r, m := consistency.Judge(run, src)
	measure.Fill(&r, m, base)
	return r
}

// CheckFile reads the run at path ("-": stdin) and judges it as Check
// does, with the same report, in less memory: a file is read twice,
// first for its header and message ids (codec.ScanRun), then its events
// are fed to the checker as they are decoded (codec.RunHead.Stream), and
// each event's vectors are dropped once the checker has taken it. A run
// of thousands of processes so needs memory linear in its events, not
// in events × processes. Stdin and pipes, which cannot be read twice,
// and a run that lists its processes after its events are read whole,
// then checked.
func (p *Pipeline) CheckFile(path string) (report.Report, string, error) {
	st, err := os.Stat(path)
	if path == "-" || (err == nil && !st.Mode().IsRegular()) { // a pipe is read once
		return p.checkWhole(path)
	}
	if err == nil && p.OnRead != nil {
		p.OnRead(path)
	}
	head, err := p.scanRun(path)
	if err != nil {
		return report.Report{}, "", err
	}
	if !head.Early {
		return p.checkWhole(path)
	}
	src, note := p.source(head.Run, path)
	if err := p.Mem.check(path, streamCheckEstimate(head, src)); err != nil {
		return report.Report{}, "", err
	}
	in, c, err := p.open(path)
	if err != nil {
		return report.Report{}, "", err
	}
	defer c.Close()
	var s *consistency.Stream
	fed, base := 0, measure.StartBaseline(src)
	_, err = head.Stream(in, func(run *trace.Run, upto int) int {
		if s == nil {
			s = consistency.NewStream(run, src, int(head.Events))
		}
		for ; fed < upto; fed++ {
			s.Add(&run.Events[fed])
		}
		return upto // the checker read each vector as it took it
	})
	if err != nil {
		return report.Report{}, "", Labelled(err, RunDoc)
	}
	r := s.Report()
	measure.Fill(&r, s.Model(), base)
	r, note = noted(r, path, note)
	return r, note, nil
}

// checkWhole reads the run at path whole and checks it.
func (p *Pipeline) checkWhole(path string) (report.Report, string, error) {
	run, err := p.ReadRun(path)
	if err != nil {
		return report.Report{}, "", err
	}
	return p.Check(run, path)
}

// scanRun is the first pass of CheckFile. Where it finds the file
// invalid, the decoder, fed nothing, words the first problem as reading
// it whole would (the first pass checks no event's fields), its memory
// bounded as the second pass's.
func (p *Pipeline) scanRun(path string) (*codec.RunHead, error) {
	in, c, err := p.open(path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	head, scanErr := codec.ScanRun(path, in)
	if scanErr == nil {
		return head, nil
	}
	if in, c, err = p.open(path); err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := codec.StreamRun(path, in, func(_ *trace.Run, upto int) int { return upto }); err != nil {
		return nil, Labelled(err, RunDoc)
	}
	return nil, Labelled(scanErr, RunDoc)
}

// noted names path in r, and when note says why the source trace is not
// used, puts it on the unknown equivalence and words it for stderr.
func noted(r report.Report, path, note string) (report.Report, string) {
	r.File = path
	if note == "" {
		return r, ""
	}
	for i := range r.Properties {
		if q := &r.Properties[i]; q.Name == report.Equivalence && q.Status == report.Unknown {
			q.Note = note
		}
	}
	return r, fmt.Sprintf("%s: %s: equivalence is unknown", path, note)
}

// source reads the run's source trace, if it can (sourceCandidates: the
// run's header names it relative to the run file's directory, as ckpt
// replay -o writes it; a run written to stdout, or by an older ckpt,
// relative to the directory replay ran in). A source that is missing,
// invalid, over the memory cap or (a foreign algorithm's run) of other
// processes is not used — equivalence is then unknown rather than judged
// against the wrong program — and note says why ("" when a foreign or
// recorded run names none). ckpt's own algorithms replay the trace's
// processes in its order: their run with another source fails
// equivalence.
func (p *Pipeline) source(run *trace.Run, runPath string) (*trace.Trace, string) {
	candidates, named := p.sourceCandidates(run, runPath)
	if len(candidates) == 0 {
		if history.AlgOf(run) == history.Foreign || run.Options.Timing != "" {
			return nil, ""
		}
		// A replay is judged against its trace: say so as loudly as
		// when the file is gone (redteam7: deleting "source" from a
		// forged run left equivalence unknown, with nothing on stderr).
		return nil, `the run names no source trace ("source" is absent, or "-" for a trace replayed from stdin)`
	}
	var why []string
	for _, c := range candidates {
		// A named pipe or a device (/dev/stdin) would block, or be read
		// for a trace the run file does not hold.
		if st, err := os.Stat(c); err == nil && !st.Mode().IsRegular() {
			why = append(why, c+": not a regular file")
			continue
		}
		if e, ok := p.decodeEstimate(c); ok {
			// A gzip that inflates to gigabytes is refused here as when given
			// directly (redteam6: it was read outside the cap, and killed).
			if err := p.Mem.check(c, e); err != nil {
				why = append(why, c+": "+Describe(err))
				continue
			}
		}
		tr, err := readTraceFile(c)
		switch {
		case err != nil:
			why = append(why, c+": "+Describe(Labelled(err, TraceDoc)))
		case !slices.Equal(tr.Processes, run.Processes) && history.AlgOf(run) == history.Foreign:
			why = append(why, c+": its processes are not the run's")
		default:
			if p.OnRead != nil {
				p.OnRead(c)
			}
			return tr, ""
		}
	}
	return nil, fmt.Sprintf("the source trace %s cannot be used (%s)", named, strings.Join(why, "; "))
}

// sourceCandidates lists where the source trace of run (read from
// runPath) may be, in the order tried, and names it for a note: the file
// given with --trace (Pipeline.Trace), else the run's "source", relative
// to the run file's directory, then as written. None for a run that
// names none ("" or "-").
func (p *Pipeline) sourceCandidates(run *trace.Run, runPath string) (candidates []string, named string) {
	if p.Trace != "" {
		return []string{p.Trace}, fmt.Sprintf("%q given with --trace", p.Trace)
	}
	if run.Source == "" || run.Source == "-" {
		return nil, ""
	}
	if !filepath.IsAbs(run.Source) && runPath != "-" {
		candidates = append(candidates, filepath.Join(filepath.Dir(runPath), run.Source))
	}
	if len(candidates) == 0 || filepath.Clean(run.Source) != candidates[0] {
		candidates = append(candidates, run.Source)
	}
	return candidates, fmt.Sprintf("%q the run names", run.Source)
}
