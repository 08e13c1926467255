package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// SweepOptions describe the grid of the classic workload (gen.Classic):
// for every ratio ICT/MTT and seed, one generated trace, replayed
// failure-free through every protocol.
type SweepOptions struct {
	// Protocols to compare; nil means Protocols.
	Protocols []string
	// Procs, Intervals and Seeds size the workload: processes, mean basic
	// checkpoint intervals per process in a trace (its length: the trace
	// has 2·Procs·Intervals·ratio ops, sends and their receipts, so that
	// every grid point has as many basic checkpoints to count), traces
	// per grid point (seeds 1 … Seeds).
	Procs, Intervals, Seeds int
	// MTT is the mean time between a process's sends.
	MTT trace.Time
	// Ratios are the grid's ICT/MTT values (the mean basic checkpoint
	// interval in units of MTT: sends per process and interval).
	Ratios []float64
	// Params override the generated traces' (control_delay is
	// coordinated checkpointing's round time).
	Params trace.Params
	// Workers replay in parallel; 0 means GOMAXPROCS.
	Workers int
	// Mem is the memory cap the grid must fit under (nil: none).
	Mem *pipeline.Cap
}

// DefaultSweep is `ckpt compare --sweep` without flags: 8 processes, 30
// intervals, 3 seeds, MTT 1 s, ICT/MTT from 1 to 100.
func DefaultSweep() SweepOptions {
	return SweepOptions{Procs: 8, Intervals: 30, Seeds: 3, MTT: trace.Second, Ratios: []float64{1, 2, 5, 10, 20, 50, 100}}
}

// SweepRow is one protocol at one grid point, summed over the seeds:
// a row of the sweep's JSON, whose names are a contract.
type SweepRow struct {
	Ratio    float64    `json:"ict_per_mtt"`
	ICT      trace.Time `json:"ict"`
	Protocol string     `json:"protocol"`
	Counts
}

// Sweep runs the grid and returns one row per ratio and protocol, ratios
// in the given order, protocols in o.Protocols order. Output does not
// depend on Workers.
func Sweep(o SweepOptions) ([]SweepRow, error) {
	var err error
	if o.Protocols, err = checkProtocols(o.Protocols); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	cells := make([][]Counts, len(o.Ratios)*o.Seeds) // per (ratio, seed): one per protocol
	errs := make([]error, len(cells))
	// Refused before any trace is made: the longest traces, as many at
	// once as there are workers.
	longest := slices.Max(o.Ratios)
	p := &pipeline.Pipeline{Mem: o.Mem, Cores: o.Workers}
	traces := fmt.Sprintf("traces of %d processes and %d ops (ICT/MTT %g)", o.Procs, o.ops(longest), longest)
	if err := p.FitsEach("compare --sweep", traces, o.sizes(longest), o.Protocols, len(cells)); err != nil {
		return nil, err
	}
	p.Each(len(cells), func(c int) {
		cells[c], errs[c] = o.cell(o.Ratios[c/o.Seeds], uint64(c%o.Seeds)+1)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var out []SweepRow
	for ri, ratio := range o.Ratios {
		for pi, name := range o.Protocols {
			sr := SweepRow{Ratio: ratio, ICT: o.ict(ratio), Protocol: name}
			for s := range o.Seeds {
				sr.add(&cells[ri*o.Seeds+s][pi])
			}
			sr.quotients()
			out = append(out, sr)
		}
	}
	return out, nil
}

// maxOps bounds the ops of one generated trace.
const maxOps = 50_000_000

// check validates the grid.
func (o *SweepOptions) check() error {
	switch {
	case o.Procs < 2:
		return fmt.Errorf("sweep: --procs %d: want 2 or more", o.Procs)
	case o.Intervals < 1:
		return fmt.Errorf("sweep: --intervals %d: want 1 or more", o.Intervals)
	case o.Seeds < 1:
		return fmt.Errorf("sweep: --seeds %d: want 1 or more", o.Seeds)
	case o.MTT <= 0:
		return fmt.Errorf("sweep: --mtt %s: want more than 0", o.MTT)
	case len(o.Ratios) == 0:
		return fmt.Errorf("sweep: no ICT/MTT ratio")
	}
	for _, r := range o.Ratios {
		// Counted in floating point: the product may pass any int.
		if ops := 2 * float64(o.Procs) * float64(o.Intervals) * r; ops > maxOps {
			return fmt.Errorf("sweep: 2 × --procs %d × --intervals %d × ICT/MTT %g = %.0f ops a trace, over the %d a trace may have: lower --procs, --intervals or --ratios",
				o.Procs, o.Intervals, r, ops, maxOps)
		}
		if !(r > 0) || o.ict(r) <= 0 || o.ict(r) > trace.MaxTime/64 {
			return fmt.Errorf("sweep: ICT/MTT %g: want a ratio > 0 whose interval (ICT/MTT × --mtt %s s) is a valid time", r, o.MTT)
		}
	}
	return nil
}

// ict is the mean basic checkpoint interval of a ratio.
func (o *SweepOptions) ict(ratio float64) trace.Time {
	return trace.Time(ratio * float64(o.MTT))
}

// ops is the length of a ratio's traces: every process sends ratio
// messages per interval on average, each a send and a receipt.
func (o *SweepOptions) ops(ratio float64) int {
	return int(2 * float64(o.Procs) * float64(o.Intervals) * ratio)
}

// sizes bound a ratio's traces: its ops, half of them sends, and about
// one timer tick per process and interval, counted once more per
// process.
func (o *SweepOptions) sizes(ratio float64) replay.Sizes {
	ops, ticks, procs := int64(o.ops(ratio)), int64(o.Procs*(o.Intervals+1)), int64(o.Procs)
	return replay.Sizes{Events: ops + ticks, Msgs: ops / 2, Procs: procs, Busy: procs, Sends: ops / 2, Recvs: ops / 2, Checkpoints: ticks}
}

// cell replays the trace of one ratio and seed through every protocol.
func (o *SweepOptions) cell(ratio float64, seed uint64) ([]Counts, error) {
	cfg := gen.Classic(o.Procs, o.ops(ratio), o.ict(ratio), o.MTT, seed)
	cfg.Params = o.Params
	tr, err := gen.Trace(cfg)
	if err != nil {
		return nil, fmt.Errorf("sweep: ICT/MTT %g, seed %d: %w", ratio, seed, err)
	}
	tr.Params = tr.Params.WithDefaults()
	rows := make([]Counts, len(o.Protocols))
	for i, name := range o.Protocols {
		run, err := replayed(name, tr)
		if err != nil {
			return nil, fmt.Errorf("sweep: ICT/MTT %g, seed %d: %w", ratio, seed, err)
		}
		rows[i] = counts(run)
	}
	return rows, nil
}

// add sums o's counts into r.
func (r *Counts) add(o *Counts) {
	r.Basic += o.Basic
	r.Forced += o.Forced
	r.Useless += o.Useless
	r.Messages += o.Messages
	r.PiggybackBytes += o.PiggybackBytes
	r.ControlMessages += o.ControlMessages
	r.Blocked += o.Blocked
}

// csvHeader names WriteCSV's columns.
var csvHeader = []string{"procs", "intervals", "seeds", "ops", "mtt", "ict", "ict_per_mtt", "protocol", "basic", "forced",
	"forced_per_basic", "useless", "messages", "piggyback_bytes_per_message", "control_messages", "blocked_seconds"}

// WriteCSV writes the sweep's rows as CSV (RFC 4180) with a header; an
// absent ratio is an empty field. Times are seconds.
func WriteCSV(w io.Writer, o SweepOptions, rows []SweepRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', 4, 64)
	}
	for _, sr := range rows {
		r := &sr.Counts
		rec := []string{strconv.Itoa(o.Procs), strconv.Itoa(o.Intervals), strconv.Itoa(o.Seeds), strconv.Itoa(o.ops(sr.Ratio)), o.MTT.String(),
			sr.ICT.String(), strconv.FormatFloat(sr.Ratio, 'g', -1, 64), sr.Protocol,
			strconv.Itoa(r.Basic), strconv.Itoa(r.Forced), f(r.ForcedPerBasic), strconv.Itoa(r.Useless),
			strconv.Itoa(r.Messages), f(r.PiggybackPerMessage), strconv.Itoa(r.ControlMessages), r.Blocked.String()}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ParseRatios reads a comma-separated list of ICT/MTT values: numbers in
// (0, 1e6], increasing.
func ParseRatios(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0) || v > 1e6 {
			return nil, fmt.Errorf("%q is not a number in (0, 1e6]", strings.TrimSpace(p))
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, fmt.Errorf("want increasing values")
		}
		out = append(out, v)
	}
	return out, nil
}
