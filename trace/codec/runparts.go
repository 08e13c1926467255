package codec

import (
	"bytes"
	"math"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// The nested parts of a run event: vector times, piggybacks and control
// bodies, each split by goccy/go-json like the event itself.

// pbWire is a piggyback as read.
type pbWire struct {
	Sn      jsontext.Value `json:"sn"`
	Inc     jsontext.Value `json:"inc"`
	RecLine jsontext.Value `json:"rec_line"`
	VT      jsontext.Value `json:"vt"`
	F       jsontext.Value `json:"f"`
	// The vectors of FDAS and HMNR (runcic.go).
	LC      jsontext.Value `json:"lc"`
	DV      jsontext.Value `json:"dv"`
	Ckpt    jsontext.Value `json:"ckpt"`
	Taken   jsontext.Value `json:"taken"`
	Greater jsontext.Value `json:"greater"`
}

// bodyWire is a control body as read; Of is ckpt/run@2's reference.
type bodyWire struct {
	Origin   jsontext.Value `json:"origin"`
	Count    jsontext.Value `json:"count"`
	R        jsontext.Value `json:"r"`
	Inc      jsontext.Value `json:"inc"`
	K        jsontext.Value `json:"k"`
	Received jsontext.Value `json:"received"`
	Of       jsontext.Value `json:"of"`
}

// objectOpts walk a part of an event already read whole, whose names
// were checked then; invalid UTF-8 becomes U+FFFD.
var objectOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// parts reads vt, pb and body.
func (d *runDecoder) parts(f *frame, ev *trace.RunEvent) error {
	w := &d.w
	vt, err := d.vtField(f, "vt", w.VT, ev.P)
	if err != nil {
		return err
	}
	ev.VT = d.run.AddVT(vt)
	if len(w.PB) > 0 {
		if err := want(f, "pb", w.PB, '{'); err != nil {
			return err
		}
		pb := trace.NewPiggyback()
		if err := d.piggyback(f, w.PB, ev.P, &pb); err != nil {
			return err
		}
		ev.PB = d.run.AddPB(&pb)
	}
	if len(w.Body) > 0 {
		if err := want(f, "body", w.Body, '{'); err != nil {
			return err
		}
		k := d.seen.key(w.Body)
		if i, ok := d.seen.index[k]; ok {
			ev.Body = i // the same text read the same way (runbodies.go)
			return nil
		}
		i, err := d.bodyOf(f, w.Body)
		if err != nil {
			return err
		}
		ev.Body = i
		d.seen.index[k] = i
	}
	return nil
}

// vtField reads a vector time of an event of process p: [[inc, count],
// ...], or in ckpt/run@2 the entries that differ from its base; nil when
// absent.
func (d *runDecoder) vtField(f *frame, key string, v []byte, p int32) (trace.VT, error) {
	switch {
	case len(v) == 0:
		return nil, nil
	case v[0] == '{' && d.v2:
		return d.delta(f, key, v, p)
	}
	if err := d.ints(f, key, v, 2, "[inc, count] pairs"); err != nil {
		return nil, err
	}
	vt := make(trace.VT, len(d.flat)/2)
	for i := range vt {
		vt[i] = trace.VTEntry{Inc: int32(d.flat[2*i]), Count: int32(d.flat[2*i+1])}
	}
	return vt, nil
}

// fast decodes v, an array of numbers or of arrays of numbers, into dst,
// a slice of int64 or of arrays of them: false if it holds anything else
// (json/v2 holds a Go array to the JSON array's length, and reads an
// int64 as strconv.ParseInt does; no null or string hides in it).
func fast[T any](v []byte, dst *T) bool {
	return !bytes.ContainsAny(v, `n"`) && unmarshal(v, dst) == nil
}

// isCount reports whether x is an integer field's value: in [0, MaxInt32].
func isCount(x int64) bool { return x >= 0 && x <= math.MaxInt32 }

// ints reads v, an array of integers in [0, MaxInt32] (width 0) or of
// [a, b] pairs of them (width 2; shape names the elements), into d.flat,
// one after the other. Vectors are most of a PK run, so an array of that
// shape is decoded straight to integers (fast); anything else is walked
// for the message naming the first element that is not one.
func (d *runDecoder) ints(f *frame, key string, v []byte, width int, shape string) error {
	if err := want(f, key, v, '['); err != nil {
		return err
	}
	ok := width == 0 && fast(v, &d.flat)
	if width == 2 && fast(v, &d.pairs) {
		d.flat, ok = d.flat[:0], true
		for _, p := range d.pairs {
			d.flat = append(d.flat, p[0], p[1])
		}
	}
	if ok && !slices.ContainsFunc(d.flat, func(x int64) bool { return !isCount(x) }) {
		return nil
	}
	d.flat = d.flat[:0]
	dec := d.walk(v)
	dec.ReadToken()
	for k := dec.PeekKind(); k != ']'; k = dec.PeekKind() {
		switch {
		case width == 0 && k == '0':
			if err := d.flatInt(f, key, dec); err != nil {
				return err
			}
			continue
		case width == 0 || k != '[':
			return f.eventErr("%q must be an array of %s, found %s", key, shape, kindOf(byte(k)))
		}
		dec.ReadToken()
		for n := 0; n < width || dec.PeekKind() != ']'; n++ {
			if n == width || dec.PeekKind() == ']' {
				return f.eventErr("%q entries must be %s", key, shape)
			}
			if err := d.flatInt(f, key, dec); err != nil {
				return err
			}
		}
		dec.ReadToken()
	}
	return nil
}

// flatInt reads the next value of dec, an integer >= 0, into d.flat.
func (d *runDecoder) flatInt(f *frame, key string, dec *jsontext.Decoder) error {
	x, _ := dec.ReadValue()
	n, err := intField(f, key, x, 0)
	d.flat = append(d.flat, int64(n))
	return err
}

// piggyback reads a pb object of an event of process p into pb.
func (d *runDecoder) piggyback(f *frame, v []byte, p int32, pb *trace.Piggyback) error {
	w := &d.pb
	if err := split(v, w); err != nil {
		return f.malformed(err)
	}
	var errs [3]error
	pb.VT, errs[0] = d.vtField(f, "pb.vt", w.VT, p)
	pb.F, errs[1] = d.fvec(f, w.F)
	if len(w.LC)+len(w.DV)+len(w.Ckpt)+len(w.Taken)+len(w.Greater) > 0 {
		pb.CIC, errs[2] = d.cic(f)
	}
	return firstErr(optInt(f, "pb.sn", w.Sn, 0, &pb.Sn), optInt(f, "pb.inc", w.Inc, 0, &pb.Inc), optInt(f, "pb.rec_line", w.RecLine, 0, &pb.RecLine),
		errs[0], errs[1], errs[2])
}

// firstErr returns the first of errs that is not nil. Readers of
// independent fields hand their errors here in the fields' order: the
// one reported is the one a reader stopping at the first would report.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fvec reads {"P0": 2, ...}, nil when absent. (The text was read whole
// before: walking it finds no syntax error and no name given twice.)
func (d *runDecoder) fvec(f *frame, v []byte) ([]trace.FEntry, error) {
	if len(v) == 0 {
		return nil, nil
	}
	if err := want(f, "pb.f", v, '{'); err != nil {
		return nil, err
	}
	fe := []trace.FEntry{}
	if len(v) == 2 {
		return fe, nil // {}
	}
	dec := d.walk(v)
	dec.ReadToken()
	for dec.PeekKind() == '"' {
		k, _ := dec.ReadValue()
		p, err := d.procs.index(f, text(k, &d.buf), "pb.f")
		if err != nil {
			return nil, err
		}
		n, _ := dec.ReadValue()
		count, err := intField(f, "pb.f", n, 0)
		if err != nil {
			return nil, err
		}
		fe = append(fe, trace.FEntry{P: p, Count: count})
	}
	return fe, nil
}

// bodyOf reads a control message body and returns its index in the
// run's bodies: a new one, or in ckpt/run@2 the one {"of": seq} names.
func (d *runDecoder) bodyOf(f *frame, v []byte) (int32, error) {
	w := &d.bd
	if err := split(v, w); err != nil {
		return trace.None, f.malformed(err)
	}
	if len(w.Of) > 0 && d.v2 {
		e, err := d.ref(f, "body.of", w.Of)
		if err != nil {
			return trace.None, err
		}
		return e.Body, nil
	}
	b := trace.NewControlBody()
	if err := d.body(f, &b); err != nil {
		return trace.None, err
	}
	return d.run.AddBody(&b), nil
}

// body reads the body in d.bd into b.
func (d *runDecoder) body(f *frame, b *trace.ControlBody) error {
	w := &d.bd
	var errs [2]error
	b.Origin, errs[0] = d.procField(f, "body.origin", w.Origin)
	b.Received, errs[1] = d.receivedField(f, w.Received)
	return firstErr(errs[0], optInt(f, "body.count", w.Count, 0, &b.Count), optInt(f, "body.r", w.R, 0, &b.R),
		optInt(f, "body.inc", w.Inc, 0, &b.Inc), optInt(f, "body.k", w.K, 0, &b.K), errs[1])
}

// receivedField reads "body.received": [["m1", inc], ...], or in
// ckpt/run@2 by reference to an earlier list; nil when absent.
func (d *runDecoder) receivedField(f *frame, v []byte) ([]trace.Identity, error) {
	switch {
	case len(v) == 0:
		return nil, nil
	case v[0] == '{' && d.v2:
		return d.receivedDelta(f, v)
	}
	if err := want(f, "body.received", v, '['); err != nil {
		return nil, err
	}
	return d.received(f, v)
}

// walk starts reading v, a JSON value, a token at a time with the
// decoder the run decoder reuses.
func (d *runDecoder) walk(v []byte) *jsontext.Decoder {
	d.br.Reset(v)
	d.obj.Reset(&d.br, objectOpts...)
	return &d.obj
}

// received reads [["m1", inc], ...]. A PK token lists every receipt of
// the announcer's recovered state (thousands), so the pairs are walked a
// token at a time.
func (d *runDecoder) received(f *frame, v []byte) ([]trace.Identity, error) {
	const what = `"body.received" must be an array of ["msg", inc] pairs`
	ids := []trace.Identity{}
	dec := d.walk(v)
	dec.ReadToken()
	for dec.PeekKind() != ']' {
		if dec.PeekKind() != '[' {
			return nil, f.eventErr(what)
		}
		dec.ReadToken()
		if dec.PeekKind() == ']' {
			return nil, f.eventErr(what)
		}
		// A value read is valid until the next read.
		m, _ := dec.ReadValue()
		b, err := stringField(f, "body.received", m, &d.buf)
		if err != nil {
			return nil, err
		}
		id := trace.Identity{Msg: d.message(b)}
		if dec.PeekKind() == ']' {
			return nil, f.eventErr(what)
		}
		n, _ := dec.ReadValue()
		if id.Inc, err = intField(f, "body.received", n, 0); err != nil {
			return nil, err
		}
		if dec.PeekKind() != ']' {
			return nil, f.eventErr(what)
		}
		dec.ReadToken()
		ids = append(ids, id)
	}
	return ids, nil
}
