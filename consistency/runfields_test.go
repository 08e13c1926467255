package consistency

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// A run that names one of ckpt's algorithms and omits a field that
// algorithm always writes is malformed (SPEC §6, trace.Run.MissingField):
// deleting evidence must never turn an invalid run into a valid one. Every
// forged run of the property cases that is one of ckpt's algorithms' (a
// replay with one edit, or hand-built), and every field of every event
// deleted in turn, nested piggyback and body fields too: the decoder
// rejects the result naming the event and the field, or the checker
// still finds the run invalid.
func TestDeletingFieldsNeverValidates(t *testing.T) {
	type forgery struct {
		name string
		run  *trace.Run
		src  func(*testing.T) *trace.Trace
	}
	var all []forgery
	for _, c := range append(forgedCases(), propCases()...) {
		if c.fail {
			all = append(all, forgery{c.name, c.build(t), c.src})
		}
	}
	for _, c := range append(holeCases(), holdCases()...) {
		all = append(all, forgery{c.name, c.run(t), c.src})
	}
	n := 0
	for _, c := range all {
		run := c.run
		if _, ours := pbKeysOf[run.Algorithm]; !ours {
			continue
		}
		var src *trace.Trace
		if c.src != nil {
			src = c.src(t)
		}
		if run.MissingOption() != "" {
			// Hand-built, with hand-written times: a file must say so
			// (the decoder refuses it otherwise, which would make every
			// deletion below pass for the wrong reason).
			run.Options.Timing = trace.TimingRecorded
		}
		var buf bytes.Buffer
		if err := codec.WriteRun(&buf, run, codec.WriteOptions{JSONL: true}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		for i := range lines {
			var edits []string
			if i == 0 {
				edits = optionDeletions(t, lines[0])
			} else {
				edits = deletions(t, lines[i], pbKeysOf[run.Algorithm])
			}
			for _, edited := range edits {
				n++
				doc := strings.Join(append(append(append([]string{}, lines[:i]...), edited), lines[i+1:]...), "\n")
				back, err := codec.ReadRun(c.name+".jsonl", strings.NewReader(doc))
				if err != nil {
					continue // malformed (or no longer a run at all)
				}
				if r := Check(back, src); r.Valid {
					t.Errorf("%s: deleting a field of event %d makes the run valid: %s", c.name, i-1, edited)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d deletions tried", n)
	}
}

// optionDeletions returns the header line with each of its options
// deleted in turn.
func optionDeletions(t *testing.T, header string) []string {
	t.Helper()
	var h map[string]json.RawMessage
	var opts map[string]json.RawMessage
	if err := json.Unmarshal([]byte(header), &h); err != nil || json.Unmarshal(h["options"], &opts) != nil {
		t.Fatalf("header %s: %v", header, err)
	}
	var out []string
	for k, v := range opts {
		delete(opts, k)
		h["options"], _ = json.Marshal(opts)
		b, _ := json.Marshal(h)
		out = append(out, string(b))
		opts[k] = v
	}
	return out
}

// pbKeysOf are the piggyback fields each algorithm sends: deleting
// another is taking a forgery out, not evidence.
var pbKeysOf = map[string]map[string]bool{
	"ms": {"sn": true, "f": true}, "ms-textbook": {"sn": true, "inc": true, "rec_line": true}, "pk": {"vt": true},
}

// deletions returns the event line with each of its fields deleted in
// turn, and each field of its pb (among pbKeys) and body objects.
func deletions(t *testing.T, line string, pbKeys map[string]bool) []string {
	t.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	var out []string
	enc := func(m map[string]json.RawMessage) string {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for k, v := range ev {
		switch k {
		case "seq", "t", "p", "kind":
			continue // the frame's own: their absence is another error
		case "pb", "body":
			var inner map[string]json.RawMessage
			if json.Unmarshal(v, &inner) == nil {
				for ik := range inner {
					if k == "pb" && !pbKeys[ik] {
						continue
					}
					cut := map[string]json.RawMessage{}
					for x, y := range inner {
						if x != ik {
							cut[x] = y
						}
					}
					ev[k] = json.RawMessage(enc(cut))
					out = append(out, enc(ev))
				}
				ev[k] = v
			}
		}
		delete(ev, k)
		out = append(out, enc(ev))
		ev[k] = v
	}
	return out
}

// TestMissingFieldIsNamed: the decoder names the event and the field.
func TestMissingFieldIsNamed(t *testing.T) {
	doc := `{"format":"ckpt/run@1","algorithm":"pk","processes":["P0","P1"],"options":{"timing":"recorded"}}` + "\n" +
		`{"seq":0,"t":0,"p":"P0","kind":"send","msg":"m","to":"P1","op":0,"copy":1}` + "\n"
	_, err := codec.ReadRun("r.jsonl", strings.NewReader(doc))
	if err == nil || !strings.Contains(err.Error(), `event 0`) || !strings.Contains(err.Error(), `lacks "pb", which pk always writes`) {
		t.Fatalf("got %v", err)
	}
	foreign := strings.Replace(doc, `"pk"`, `"acme"`, 1)
	if _, err := codec.ReadRun("r.jsonl", strings.NewReader(foreign)); err != nil {
		t.Fatalf("a foreign run may omit it: %v", err)
	}
}
