package codec

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// runDecoder reads a run (SPEC §6) as the frame hands it over. Like the
// trace decoder it interns names as it meets them and renumbers
// processes at the end if the document lists its events first.
type runDecoder struct {
	run   *trace.Run
	procs procNames
	msgs  msgTable
	// seen identifies the control bodies read before (runbodies.go).
	seen  bodySeen
	lastT trace.Time
	// v2 says the run is ckpt/run@2; chain is its vector state once the
	// processes are known (runchain.go).
	v2    bool
	chain *vtChain
	// take, when set, is handed the events as they are read (StreamRun);
	// checked counts the events checked whole, taken those take took.
	take    func(run *trace.Run, upto int) int
	checked int
	taken   int
	// hasAlg says the header's "algorithm" was read; started that take
	// was handed the header.
	hasAlg, started bool
	// in is the input, f its framing.
	in io.Reader
	f  *frame
	// scan, when set, is the first pass's head (runhead.go), which reads
	// only the header and message ids; frozen says the message table is
	// the first pass's, and changed that an event named one it did not.
	scan            *RunHead
	frozen, changed bool
	w               runWire
	pb              pbWire
	bd              bodyWire
	lw              listWire
	dw              deltaWire
	// buf holds unescaped strings; flat holds a vector's integers while
	// it is read (pairs those of a vector time); obj walks the parts of
	// an event.
	buf   []byte
	pairs [][2]int64
	flat  []int64
	slab  trace.CICSlab
	br    bytes.Reader
	obj   jsontext.Decoder
}

// runWire is a run event as goccy/go-json splits it: the raw text of
// each field, empty when absent.
type runWire struct {
	Seq     jsontext.Value `json:"seq"`
	T       jsontext.Value `json:"t"`
	P       jsontext.Value `json:"p"`
	Kind    jsontext.Value `json:"kind"`
	To      jsontext.Value `json:"to"`
	From    jsontext.Value `json:"from"`
	Msg     jsontext.Value `json:"msg"`
	Op      jsontext.Value `json:"op"`
	Copy    jsontext.Value `json:"copy"`
	Of      jsontext.Value `json:"of"`
	Ckpt    jsontext.Value `json:"ckpt"`
	Pos     jsontext.Value `json:"pos"`
	Sn      jsontext.Value `json:"sn"`
	Next    jsontext.Value `json:"next"`
	Restore jsontext.Value `json:"restore"`
	Undone  jsontext.Value `json:"undone"`
	Inc     jsontext.Value `json:"inc"`
	Failure jsontext.Value `json:"failure"`
	Resend  jsontext.Value `json:"resend"`
	Via     jsontext.Value `json:"via"`
	Type    jsontext.Value `json:"type"`
	Reason  jsontext.Value `json:"reason"`
	Cause   jsontext.Value `json:"cause"`
	Control jsontext.Value `json:"control"`
	State   jsontext.Value `json:"state"`
	Until   jsontext.Value `json:"until"`
	Label   jsontext.Value `json:"label"`
	VT      jsontext.Value `json:"vt"`
	PB      jsontext.Value `json:"pb"`
	Body    jsontext.Value `json:"body"`
}

// ReadRun decodes a run (ckpt/run@1 or @2) from r: a JSON document or
// JSON Lines, optionally gzip-compressed, told apart by content. It
// checks the structure — format, known processes, kinds and enum values,
// seq equal to the event's index, non-decreasing t, field types — but not
// the protocol, which is the consistency checker's job. Errors are
// *InputError.
func ReadRun(name string, r io.Reader) (*trace.Run, error) {
	return StreamRun(name, r, nil)
}

// StreamRun is ReadRun handing the run to take as it is read, the way
// replay.Options.Stream does: first the header with no event (upto 0),
// then after each event read, run.Events[:upto] (checked, final). take
// returns how many events it has taken: read everything it needs of,
// vector times included. The reader then drops the vector times of those
// events from the run's tables (a checker that reads a vector only while
// it takes the event carrying it is fed a run of thousands of processes
// in memory linear in its events). A run that lists its processes after
// its events is handed over once read whole. It returns the run, without
// the vectors dropped; a nil take keeps the whole run.
func StreamRun(name string, r io.Reader, take func(run *trace.Run, upto int) int) (*trace.Run, error) {
	d, err := newRunDecoder(name, r, take)
	if err != nil {
		return nil, err
	}
	if n := eventsHint(r, d.in, minRunEventBytes); n > 0 {
		d.run.Events = make([]trace.RunEvent, 0, n)
	}
	return d.decode()
}

// newRunDecoder starts reading the run in r, gzip or not.
func newRunDecoder(name string, r io.Reader, take func(run *trace.Run, upto int) int) (*runDecoder, error) {
	in, err := OpenInput(r)
	if err != nil {
		return nil, &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	d := &runDecoder{
		run:  &trace.Run{Name: name},
		take: take,
		in:   in,
		f:    newFrame(name, RunFormat, in),
	}
	return d, nil
}

// field reads a header field: "algorithm", "source", "processes" and
// "options"; other keys are ignored.
func (d *runDecoder) field(f *frame, key string) error {
	switch key {
	case "algorithm", "source":
		return d.name(f, key)
	case "processes":
		var err error
		d.run.Processes, err = d.procs.read(f)
		return err
	case "options":
		return d.options(f)
	}
	return f.skip()
}

// name reads the header's "algorithm" or "source", a string. A null
// source says there is none, as leaving the field out does: JSON writers
// commonly write an absent optional field so, and a recorder that has no
// trace file has nothing else to write (docs/formats.md).
func (d *runDecoder) name(f *frame, key string) error {
	v, err := f.value()
	if err != nil {
		return err
	}
	switch {
	case key == "algorithm":
		d.run.Algorithm, err = d.optString(key, v)
		d.hasAlg = true
	case string(v) == "null":
		d.run.Source = ""
	default:
		d.run.Source, err = d.optString(key, v)
	}
	return err
}

func (d *runDecoder) optString(key string, v []byte) (string, error) {
	if v[0] != '"' {
		return "", d.f.headerErr("%q must be a string, not %s", key, kindOf(v[0]))
	}
	return string(text(v, &d.buf)), nil
}

func (d *runDecoder) options(f *frame) error {
	w, err := f.delays("options", &d.run.Options.Params, func(field string, v float64) string {
		return field + " must be a finite number > 0, got " + fmtFloat(v)
	})
	if err != nil {
		return err
	}
	if len(w.Timing) > 0 {
		if d.run.Options.Timing, err = d.optString("options.timing", w.Timing); err != nil {
			return err
		}
		if d.run.Options.Timing != trace.TimingRecorded {
			return d.f.headerErr("options.timing must be %q, got %q", trace.TimingRecorded, d.run.Options.Timing)
		}
	}
	if len(w.Variant) == 0 {
		return nil
	}
	d.run.Options.Variant, err = d.optString("options.variant", w.Variant)
	return err
}

func (d *runDecoder) message(id []byte) int32 {
	idx, isNew := d.msgs.intern(&d.run.Msgs, id)
	d.changed = d.changed || (isNew && d.frozen)
	return idx
}

// decode reads the run, renumbers provisional processes, checks the
// events not yet checked and hands the rest to take.
func (d *runDecoder) decode() (*trace.Run, error) {
	run := d.run
	if err := d.f.read(d, &d.procs); err != nil {
		return nil, err
	}
	if !d.procs.known {
		if err := d.renumber(); err != nil {
			return nil, err
		}
	}
	d.hasAlg = true // the header is complete
	if strings.TrimSpace(run.Algorithm) == "" {
		// Else deleting the name would make a forged run of ckpt's
		// algorithms a foreign one, whose rules are unknown, not failed.
		return nil, d.f.headerErr(`the run names no algorithm ("algorithm" is missing or empty): a run says which algorithm made it, a foreign one by its own name`)
	}
	if own := trace.LooksOwn(run.Algorithm); own != "" {
		return nil, d.f.headerErr("the run's algorithm %q reads as ckpt's %q but is not it: write %[2]q, or a foreign algorithm's own name", run.Algorithm, own)
	}
	if o := run.MissingOption(); o != "" {
		return nil, d.f.headerErr("the run lacks %q, which %s always writes", o, run.Algorithm)
	}
	if run.RecordedWithDelays() {
		return nil, d.f.headerErr("options.timing is %q, yet the run records a replay's delays (restart_delay, control_delay, default_delay): a recorded run's times are its system's", run.Options.Timing)
	}
	if err := d.handOver(); err != nil {
		return nil, err
	}
	// The events handed over were checked before their vectors went.
	return run, checkRunFields(run.Events[d.taken:], run, d.taken)
}

// renumber gives the processes named before the header listed them
// their final numbers.
func (d *runDecoder) renumber() error {
	run := d.run
	re, err := d.procs.remap(run.Name, run.Processes)
	if err != nil {
		return err
	}
	// Events may share a body (runbodies.go): renumber each body once.
	for i := range run.Bodies {
		run.Bodies[i].Origin = re(run.Bodies[i].Origin)
	}
	for i := range run.Events {
		ev := &run.Events[i]
		ev.P, ev.Peer = re(ev.P), re(ev.Peer)
		if pb := run.PB(ev); pb != nil {
			for j := range pb.F {
				pb.F[j].P = re(pb.F[j].P)
			}
		}
	}
	return nil
}

// handOver checks the events read since the last call, whose processes
// are final, and hands them to take, once the header has what a consumer
// starts from (the processes and the algorithm).
func (d *runDecoder) handOver() error {
	run := d.run
	for ; d.checked < len(run.Events); d.checked++ {
		if err := d.check(d.checked); err != nil {
			return err
		}
	}
	if d.take == nil || !d.hasAlg {
		return nil
	}
	if !d.started {
		d.started = true
		d.take(run, 0)
	}
	for t := d.take(run, d.checked); d.taken < t; d.taken++ {
		ev := &run.Events[d.taken]
		if err := checkRunFields(run.Events[d.taken:d.taken+1], run, d.taken); err != nil {
			return err
		}
		if ev.VT != trace.None {
			run.VTs[ev.VT] = nil
		}
		if ev.PB != trace.None {
			run.PBs[ev.PB].VT = nil
		}
	}
	return nil
}

// check sorts event i's f vector by process (goccy/go-json refuses a
// process named twice) and checks that its vectors have one entry per
// process.
func (d *runDecoder) check(i int) error {
	run := d.run
	n := len(run.Processes)
	ev := &run.Events[i]
	vt := run.VTOf(ev)
	bad := vt != nil && len(vt) != n
	if pb := run.PB(ev); pb != nil {
		slices.SortFunc(pb.F, func(a, b trace.FEntry) int { return int(a.P - b.P) })
		bad = bad || (pb.VT != nil && len(pb.VT) != n)
		if c := pb.CIC; c != nil {
			if msg := cicLengthErr(c, n); msg != "" {
				return &trace.InputError{File: run.Name, Event: i, Msg: msg}
			}
		}
	}
	if bad {
		return &trace.InputError{File: run.Name, Event: i, Msg: fmt.Sprintf("a vector time must have one entry per process (%d)", n)}
	}
	return nil
}

// checkRunFields rejects a run of one of ckpt's algorithms whose events
// evs (the run's from seq first on) omit a field the algorithm always
// writes, naming the event and the field.
func checkRunFields(evs []trace.RunEvent, run *trace.Run, first int) error {
	for i := range evs {
		if f := run.MissingField(&evs[i]); f != "" {
			return &trace.InputError{File: run.Name, Event: first + i, Msg: fmt.Sprintf("%s event lacks %q, which %s always writes", evs[i].Kind, f, run.Algorithm)}
		}
	}
	return nil
}
