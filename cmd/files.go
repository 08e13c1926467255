package cmd

import (
	"fmt"
	"io"
	"sync"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/report"
)

// fileResult is what a command made of one input: its reports (error
// entries included, e.g. an algorithm whose replay could not run), notes
// for stderr, or err when the file could not be read at all.
type fileResult struct {
	reports []report.Report
	notes   []string
	err     error
}

// checkFiles runs one for every input on the pipeline's cores (pipeline
// Each). One bad file hides nothing: it becomes an error entry in its
// place, and the others are reported as usual. The reports come back in argument order, with
// the lines to say on stderr (notes, then one "ckpt: FILE: what" per
// error entry), in the same order, so that output never depends on
// scheduling. meter (nil: none) shows how many files are done.
func checkFiles(ios *IO, inputs []pipeline.Input, meter *explore.Meter, one func(path string) fileResult) ([]report.Report, []string) {
	results := make([]fileResult, len(inputs))
	var mu sync.Mutex // counts done in order, so the bar never steps back
	done := int64(0)
	ios.pipe().Each(len(inputs), func(i int) {
		if inputs[i].Err != nil {
			results[i] = fileResult{err: inputs[i].Err}
		} else {
			results[i] = one(inputs[i].Path)
		}
		mu.Lock()
		done++
		meter.Update(done, int64(len(inputs)))
		mu.Unlock()
	})
	meter.Finish()
	var reports []report.Report
	var lines []string
	for i, res := range results {
		if res.err != nil {
			res.reports = []report.Report{report.ErrorReport(inputs[i].Path, "", pipeline.Describe(res.err))}
		}
		for _, n := range res.notes {
			lines = append(lines, "ckpt: note: "+n)
		}
		for _, r := range res.reports {
			if r.Error != "" {
				lines = append(lines, fmt.Sprintf("ckpt: %s: %s", r.File, r.Error))
			}
		}
		reports = append(reports, res.reports...)
	}
	return reports, lines
}

// finishReports writes the reports as the flags ask (-o atomically, even
// when some file could not be checked), then says on stderr what needs
// saying, and turns the worst verdict into the exit status: 2 if a file
// could not be checked, 1 if a report is invalid or unknown, else 0.
func finishReports(ios *IO, f *reportFlags, reports []report.Report, lines []string, full bool) error {
	opts := f.renderOptions(ios.Out)
	opts.Full = full
	werr := output.Write(f.Output, ios.Out, func(w io.Writer) error {
		return render.Reports(w, render.Format(f.Format), reports, opts)
	})
	for _, l := range lines {
		fmt.Fprintln(ios.ErrOut, l)
	}
	if werr != nil {
		return werr
	}
	switch report.Worst(reports, f.Strict) {
	case report.VerdictError:
		return &ExitError{Code: ExitInvalid}
	case report.VerdictInvalid, report.VerdictUnknown:
		return &ExitError{Code: ExitFailed}
	}
	return nil
}
