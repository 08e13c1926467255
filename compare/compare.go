// Package compare puts checkpointing protocols side by side on the same
// execution (`ckpt compare`, docs/protocols.md): per trace, one Row per
// protocol with what the literature compares — basic and forced
// checkpoints, useless checkpoints, piggyback size, control messages,
// blocked time — and, reusing explore, how many ops one failure undoes.
// Sweep runs the classic workload over a grid (sweep.go) and Chart draws
// it (chart.go).
//
// The protocols are uncoordinated checkpointing (the timer ticks alone,
// SPEC §7's baseline) and every algorithm of the table
// (algorithms.All). Everything is measured on the trace's failure-free
// execution: its own fail events are stripped (Row.Stripped says how
// many), because the protocols without recovery refuse them and the
// classic comparisons measure failure-free placement.
package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Uncoordinated is the name of uncoordinated checkpointing: a basic
// checkpoint at every tick, nothing else.
const Uncoordinated = "uncoordinated"

// Protocols are the names Options.Protocols takes, in the default order:
// the baseline, the placement protocols, then the recovery algorithms.
var Protocols = protocols()

func protocols() []string {
	out := []string{Uncoordinated}
	for _, a := range algorithms.All {
		if !a.Recovery {
			out = append(out, a.Name)
		}
	}
	return append(out, algorithms.Names...)
}

// Options choose what Run measures.
type Options struct {
	// Protocols to compare, in row order; nil means Protocols.
	Protocols []string
	// NoFailures skips the per-failure figures (they cost one replay per
	// failure point and protocol).
	NoFailures bool
	// Params override the trace's (command-line delays): control_delay
	// is coordinated checkpointing's round time, restart_delay MS's and
	// PK's recovery.
	Params trace.Params
	// Workers replay in parallel; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// Pipeline's memory cap bounds every replay (nil: no cap); Progress
	// is told how far the per-failure exploration has come.
	Pipeline *pipeline.Pipeline
	Progress func(done, total int64)
}

// checkProtocols returns names (Protocols when nil), or an error naming
// the first that is not a protocol.
func checkProtocols(names []string) ([]string, error) {
	for _, p := range names {
		if !slices.Contains(Protocols, p) {
			return nil, fmt.Errorf("unknown protocol %q (want %s)", p, algorithms.Choice(Protocols))
		}
	}
	if names == nil {
		return Protocols, nil
	}
	return names, nil
}

// Row is one protocol's figures on one trace. JSON names are a contract:
// add fields freely, never rename.
type Row struct {
	File     string `json:"file"`
	Protocol string `json:"protocol"`
	Counts
	// PerFailure is ops undone per single failure over every failure
	// point (null with NoFailures); UndoneBy says how they are counted:
	// "recovery" (MS, PK: explore replays each failure and the checker
	// reads the recovery) or "recovery-line" (the others: Wang's maximum
	// consistent recovery line over the checkpoints placed before the
	// failure, explore.Lines).
	PerFailure *explore.PerFailure `json:"per_failure"`
	UndoneBy   string              `json:"undone_by,omitempty"`
	// Note says why a figure is surprising (explore.UndoneNote).
	Note string `json:"note,omitempty"`
	// Stripped counts the trace's own fail events left out.
	Stripped int `json:"stripped_failures"`
}

// Counts are a protocol's counts of one run, or summed over the runs of
// a sweep cell: a Row's, and a sweep row's in JSON.
type Counts struct {
	// Basic and Forced count checkpoints by type (coordinated's round
	// checkpoints are basic: it forces none).
	Basic  int `json:"basic"`
	Forced int `json:"forced"`
	// ForcedPerBasic is Forced/Basic, null without basic checkpoints.
	ForcedPerBasic *float64 `json:"forced_per_basic"`
	// Useless counts checkpoints on a Z-cycle (Netzer–Xu) in the run.
	Useless int `json:"useless"`
	// Messages counts the application's sends.
	Messages int `json:"messages"`
	// PiggybackBytes sums trace.Piggyback.Bytes over the sends;
	// PiggybackPerMessage is its mean, null without messages.
	PiggybackBytes      int64    `json:"piggyback_bytes"`
	PiggybackPerMessage *float64 `json:"piggyback_bytes_per_message"`
	// ControlMessages counts control messages sent.
	ControlMessages int `json:"control_messages"`
	// Blocked sums the time processes were held (`block` to `resume`).
	Blocked trace.Time `json:"blocked"`
}

// Table is the rows of one trace, in protocol order.
type Table struct {
	File string
	// Processes and Events size the trace; Points counts the failure
	// points the per-failure figures range over (0 when not measured).
	Processes, Events, Points int
	Rows                      []Row
	// Error says why the file could not be compared (no rows then).
	Error string
}

// Run measures every protocol of o on tr (a validated trace) and returns
// its table: one row per protocol, in o.Protocols order.
func Run(tr *trace.Trace, o Options) (Table, error) {
	t := Table{File: tr.Name, Processes: len(tr.Processes), Events: len(tr.Events)}
	var err error
	if o.Protocols, err = checkProtocols(o.Protocols); err != nil {
		return t, err
	}
	ff, err := explore.Prepare(tr, o.Params, true)
	if err != nil {
		return t, err
	}
	stripped := len(tr.Events) - len(ff.Events)
	t.Rows = make([]Row, len(o.Protocols))
	for i, name := range o.Protocols {
		if o.Pipeline != nil {
			if err := o.Pipeline.Fits(ff, []string{name}, false); err != nil {
				return t, err
			}
		}
		run, err := replayed(name, ff)
		if err != nil {
			return t, err
		}
		r := &t.Rows[i]
		*r = Row{File: tr.Name, Protocol: name, Counts: counts(run), Stripped: stripped}
		if !o.NoFailures && !recovers(name) {
			pf, err := explore.Lines(ff, run)
			if err != nil {
				return t, fmt.Errorf("%s: %w", name, err)
			}
			r.PerFailure, r.UndoneBy = &pf, "recovery-line"
		}
	}
	if o.NoFailures || len(t.Rows) == 0 {
		return t, nil
	}
	if err := perFailure(ff, o, t.Rows); err != nil {
		return t, err
	}
	t.Points = int(t.Rows[0].PerFailure.Failures)
	if k := slices.IndexFunc(t.Rows, func(r Row) bool { return r.Protocol == Uncoordinated }); k >= 0 {
		for i := range t.Rows {
			r := &t.Rows[i]
			r.Note = explore.UndoneNote(r.Protocol, r.PerFailure.Mean, t.Rows[k].PerFailure.Mean)
		}
	}
	return t, nil
}

// replayed replays the failure-free trace tr through protocol name, as
// explore.Lines reads it.
func replayed(name string, tr *trace.Trace) (*trace.Run, error) {
	var a replay.Algorithm = &uncoordinated{replay.NewPlain(len(tr.Processes))}
	if name != Uncoordinated {
		var err error
		if a, err = algorithms.New(name, "", tr); err != nil {
			return nil, err
		}
	}
	return explore.Replay(tr, a)
}

// recovers reports whether protocol name recovers (MS, PK): explore
// replays its failures, where the others' are measured by recovery
// lines.
func recovers(name string) bool {
	a, ok := algorithms.Lookup(name)
	return ok && a.Recovery
}

// uncoordinated is replay.Plain under the protocol's name.
type uncoordinated struct{ *replay.Plain }

// Name gives the run the protocol's name, not replay.Plain's.
func (uncoordinated) Name() string { return Uncoordinated }

// perFailure fills the PerFailure of the rows of MS and PK through one
// exploration of single failures (explore.Run), over the failure points
// whose recovery lines the others' rows hold (explore.Lines).
func perFailure(ff *trace.Trace, o Options, rows []Row) error {
	var recovering []string
	for _, r := range rows {
		if recovers(r.Protocol) {
			recovering = append(recovering, r.Protocol)
		}
	}
	if len(recovering) == 0 {
		return nil
	}
	res, err := explore.Run(context.Background(), ff, explore.Options{Algorithms: recovering, Failures: 1, Workers: o.Workers,
		Pipeline: o.Pipeline, Progress: o.Progress})
	if err != nil {
		return err
	}
	for i := range rows {
		if k := slices.Index(recovering, rows[i].Protocol); k >= 0 {
			pf := res.Algorithms[k].PerFailure
			rows[i].PerFailure, rows[i].UndoneBy = &pf, "recovery"
		}
	}
	return nil
}

// ParseProtocols reads a comma-separated list of protocol names ("all"
// for every one), checking each.
func ParseProtocols(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return Protocols, nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("protocol %q listed twice", p)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no protocol listed (want some of %s)", strings.Join(Protocols, ","))
	}
	return checkProtocols(out)
}
