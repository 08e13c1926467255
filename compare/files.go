package compare

import (
	"io"
	"path/filepath"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Files `ckpt compare --sweep` writes into its directory (WriteSweep).
const (
	SweepCSV   = "sweep.csv"
	SweepChart = "forced-per-basic.svg"
)

// Files compares the protocols on every input, read through o.Pipeline,
// in order. An input that cannot be read or compared is a table with
// its error, in its place: one bad file hides nothing.
func Files(inputs []pipeline.Input, o Options) []Table {
	p := o.Pipeline
	if p == nil {
		p = &pipeline.Pipeline{}
	}
	tables := make([]Table, len(inputs))
	for i, in := range inputs {
		err := in.Err
		if err == nil {
			var tr *trace.Trace
			if tr, err = p.ReadTrace(in.Path); err == nil {
				if tables[i], err = Run(tr, o); err == nil {
					continue
				}
			}
		}
		tables[i] = Table{File: in.Path, Error: pipeline.Describe(err)}
	}
	return tables
}

// WriteSweep writes the sweep's CSV (WriteCSV) and chart (Chart) into
// the directory dir, each atomically, and returns their paths.
func WriteSweep(dir string, o SweepOptions, rows []SweepRow) (csvPath, svgPath string, err error) {
	csvPath, svgPath = filepath.Join(dir, SweepCSV), filepath.Join(dir, SweepChart)
	if err := output.Write(csvPath, nil, func(w io.Writer) error { return WriteCSV(w, o, rows) }); err != nil {
		return "", "", err
	}
	return csvPath, svgPath, output.Write(svgPath, nil, func(w io.Writer) error { return Chart(w, o, rows) })
}
