package pipeline

import (
	"io"
	"path/filepath"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// compactFrom is the number of processes, or of a PK trace's failures,
// from which WriteRun writes ckpt/run@2 (docs/formats.md): at 4,096
// processes a dense vector is 40 KB of text per event, and every hop of
// every PK token lists its announcer's live receipts, so 10^5 failures
// of 4 processes made a ckpt/run@1 of over 50 GB (8,000: 538 MB; @2
// writes a list by reference to the previous one). Small runs stay
// ckpt/run@1, which people read.
const compactFrom = 64

// WriteRun replays tr through the algorithm name (variant as
// algorithms.VariantRule says) with params overriding the trace's, and
// writes the run to w naming source as its trace (SourceFor). With
// stream the run is written while the engine makes it, so that the
// engine lets go of every vector once it is written; a replay that
// fails then leaves w half written (a file the caller discards).
// Without stream nothing is written unless the replay succeeds. The
// replay is refused (*TooBig) when its estimate exceeds the memory cap.
func (p *Pipeline) WriteRun(w io.Writer, tr *trace.Trace, name, variant string, params trace.Params, source string, wo codec.WriteOptions, stream bool) error {
	sizes := replay.SizesOf(tr)
	if err := p.Mem.check(tr.Name, replayEstimate(sizes, []string{name}, false)); err != nil {
		return err
	}
	alg, err := algorithms.New(name, variant, tr)
	if err != nil {
		return err
	}
	wo.Compact = sizes.Procs >= compactFrom || name == "pk" && sizes.Fails >= compactFrom
	opts := replay.Options{Params: params, Variant: variant}
	var rw *codec.RunWriter
	var werr error
	if stream {
		opts.Stream = func(run *trace.Run, upto int) int {
			if rw == nil && werr == nil {
				run.Source = source
				rw, werr = codec.NewRunWriter(w, run, wo)
			}
			if werr == nil {
				werr = rw.Write(run, upto)
			}
			return upto
		}
	}
	run, err := replay.Run(tr, alg, opts)
	switch {
	case err != nil:
		return Labelled(err, TraceDoc)
	case !stream:
		run.Source = source
		return codec.WriteRun(w, run, wo)
	case werr != nil:
		return werr
	}
	return rw.Close()
}

// SourceFor is the source trace's name (file) as a run written to out
// records it: relative to the run file's directory, so that check finds
// it from wherever it runs and a run moved together with its trace keeps
// finding it. A run written to stdout ("" or "-", whose place is
// unknown) keeps the path as given, and stdin stays "-".
func SourceFor(file, out string) string {
	if file == "-" || out == "" || out == "-" {
		return file
	}
	dir := filepath.Dir(out)
	if filepath.IsAbs(file) != filepath.IsAbs(dir) {
		absFile, err1 := filepath.Abs(file)
		absDir, err2 := filepath.Abs(dir)
		if err1 != nil || err2 != nil {
			return file
		}
		file, dir = absFile, absDir
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}
