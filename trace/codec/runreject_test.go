package codec

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func runDoc(events ...string) string {
	return `{"format":"ckpt/run@1","algorithm":"acme","processes":["P0","P1"],"options":{"restart_delay":1},"events":[` + "\n" + strings.Join(events, ",\n") + "\n]}\n"
}

func TestReadRunRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"wrong format", `{"format":"ckpt/trace@1","processes":["P0"],"events":[]}`, `run.json: "format" is "ckpt/trace@1", want "ckpt/run@1" (a ckpt trace: use ckpt verify)`},
		{"missing processes", `{"format":"ckpt/run@1","events":[]}`, `run.json: missing "processes"`},
		{"bad options", `{"format":"ckpt/run@1","processes":["P0"],"options":{"control_delay":0}}`, `run.json: options.control_delay must be a finite number > 0, got 0`},
		{"bad timing", `{"format":"ckpt/run@1","processes":["P0"],"options":{"timing":"simulated"}}`, `run.json: options.timing must be "recorded", got "simulated"`},
		{"own algorithm without its delays", `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0"],"options":{"restart_delay":1,"default_delay":1}}`, `run.json: the run lacks "options.control_delay", which ms always writes`},
		{"recorded with a replay's delays", `{"format":"ckpt/run@1","algorithm":"pk","processes":["P0"],"options":{"restart_delay":1,"control_delay":0.5,"default_delay":1,"timing":"recorded"}}`, `run.json: options.timing is "recorded", yet the run records a replay's delays (restart_delay, control_delay, default_delay): a recorded run's times are its system's`},
		{"timing not a string", `{"format":"ckpt/run@1","processes":["P0"],"options":{"timing":1}}`, `run.json: "options.timing" must be a string, not a number`},
		{"seq", runDoc(`{"seq":1,"t":0,"p":"P0","kind":"internal","op":0}`), `run.json: event 0: seq is 1, want 0 (its index in the run)`},
		{"unknown kind", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"flush"}`), `run.json: event 0: unknown kind "flush"`},
		{"unknown process", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","to":"P5","msg":"m"}`), `run.json: event 0: to: unknown process "P5"`},
		{"unknown via", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"recv","from":"P1","msg":"m","via":"air"}`), `run.json: event 0: unknown via "air"`},
		{"unknown type", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"checkpoint","ckpt":1,"type":"lazy"}`), `run.json: event 0: unknown type "lazy"`},
		{"unknown state", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"end","state":"gone"}`), `run.json: event 0: unknown state "gone"`},
		{"wrong peer key", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"recv","to":"P1","msg":"m"}`), `run.json: event 0: recv has "to", want "from"`},
		{"decreasing t", runDoc(`{"seq":0,"t":1,"p":"P0","kind":"internal"}`, `{"seq":1,"t":0.5,"p":"P0","kind":"internal"}`), `run.json: event 1: t 0.5 is before the previous event's t 1 (events must be in non-decreasing t)`},
		{"negative op", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal","op":-1}`), `run.json: event 0: "op" must be an integer >= 0`},
		{"fractional op", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal","op":1.5}`), `run.json: event 0: "op" must be an integer >= 0`},
		{"zero copy", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","to":"P1","msg":"m","copy":0}`), `run.json: event 0: "copy" must be an integer >= 1`},
		{"op wrong type", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal","op":"1"}`), `run.json: event 0: "op" must be an integer, not a string`},
		{"resend wrong type", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","resend":1}`), `run.json: event 0: "resend" must be a boolean, not a number`},
		{"resend on a receive", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"recv","msg":"m","from":"P1","op":0,"copy":1,"via":"net","resend":true}`), `run.json: event 0: "resend": true on an event of kind recv: only a send is a resend`},
		{"resend on an internal", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal","resend":true}`), `run.json: event 0: "resend": true on an event of kind internal: only a send is a resend`},
		{"vt length", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"checkpoint","vt":[[0,1]]}`), `run.json: event 0: a vector time must have one entry per process (2)`},
		{"vt shape", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"checkpoint","vt":[[0,1,2],[0,0]]}`), `run.json: event 0: "vt" entries must be [inc, count] pairs`},
		{"f unknown process", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"sn":1,"f":{"P9":1}}}`), `run.json: event 0: pb.f: unknown process "P9"`},
		{"op too large", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal","op":4611686018427387904}`), `run.json: event 0: "op" is 4611686018427387904, too large: at most 2147483647`},
		{"f twice", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"sn":1,"f":{"P1":1,"P1":2}}}`), `run.json: event 0: pb.f names P1 twice`},
		// FDAS's and HMNR's vectors (runcic.go).
		{"lc wrong type", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"lc":"1"}}`), `run.json: event 0: "pb.lc" must be an integer, not a string`},
		{"negative lc", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"lc":-1}}`), `run.json: event 0: "pb.lc" must be an integer >= 0`},
		{"dv not an array", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":{"P0":1}}}`), `run.json: event 0: "pb.dv" must be an array, not an object`},
		{"dv of strings", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[1,"0"]}}`), `run.json: event 0: "pb.dv" must be an array of integers, found a string`},
		{"dv with null", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[null,0]}}`), `run.json: event 0: "pb.dv" must be an array of integers, found null`},
		{"dv nested", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[[1],0]}}`), `run.json: event 0: "pb.dv" must be an array of integers, found an array`},
		{"dv negative", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[0,-2]}}`), `run.json: event 0: "pb.dv" must be an integer >= 0`},
		{"dv fraction", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[0,1.5]}}`), `run.json: event 0: "pb.dv" must be an integer >= 0`},
		{"dv too large", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[0,2147483648]}}`), `run.json: event 0: "pb.dv" is 2147483648, too large: at most 2147483647`},
		{"dv length", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[0,1,2]}}`), `run.json: event 0: "pb.dv" must have one entry per process (2), not 3`},
		{"dv empty", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"dv":[]}}`), `run.json: event 0: "pb.dv" must have one entry per process (2), not 0`},
		{"ckpt length", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"lc":0,"ckpt":[1],"taken":"01","greater":"01"}}`), `run.json: event 0: "pb.ckpt" must have one entry per process (2), not 1`},
		{"ckpt of booleans", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"ckpt":[true,false]}}`), `run.json: event 0: "pb.ckpt" must be an array of integers, found a boolean`},
		{"taken not a string", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"taken":[0,1]}}`), `run.json: event 0: "pb.taken" must be a string, not an array`},
		{"taken bad flag", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"taken":"0x"}}`), `run.json: event 0: "pb.taken" must be a string of 0s and 1s, one per process; found 'x'`},
		{"greater non-ASCII flag", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"greater":"1é"}}`), `run.json: event 0: "pb.greater" must be a string of 0s and 1s, one per process; found 'é'`},
		{"greater length", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"greater":"011"}}`), `run.json: event 0: "pb.greater" must have one entry per process (2), not 3`},
		{"taken empty", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","pb":{"taken":""}}`), `run.json: event 0: "pb.taken" must have one entry per process (2), not 0`},
		{"dv length, processes last", `{"format":"ckpt/run@1","algorithm":"acme","events":[{"t":0,"p":"P0","kind":"send","pb":{"dv":[1]}}],"processes":["P0","P1"]}`, `run.json: event 0: "pb.dv" must have one entry per process (2), not 1`},
		{"received shape", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"control_send","body":{"received":[["m"]]}}`), `run.json: event 0: "body.received" must be an array of ["msg", inc] pairs`},
		{"source not a string", `{"format":"ckpt/run@1","processes":["P0"],"source":7,"events":[]}`, `run.json: "source" must be a string, not a number`},
		{"algorithm null", `{"format":"ckpt/run@1","processes":["P0"],"algorithm":null,"events":[]}`, `run.json: "algorithm" must be a string, not null`},
		// A forged run of ckpt's algorithms without its name would be a
		// foreign one, judged unknown where it fails (ux6).
		{"algorithm missing", `{"format":"ckpt/run@1","processes":["P0"],"events":[]}`, `run.json: the run names no algorithm ("algorithm" is missing or empty): a run says which algorithm made it, a foreign one by its own name`},
		{"algorithm blank", `{"format":"ckpt/run@1","algorithm":" ","processes":["P0"],"events":[]}`, `run.json: the run names no algorithm ("algorithm" is missing or empty): a run says which algorithm made it, a foreign one by its own name`},
		// Nor by a name that reads as one of ckpt's (redteam8).
		{"algorithm near ms", `{"format":"ckpt/run@1","algorithm":"MS\u200b ","processes":["P0"],"events":[]}`, `run.json: the run's algorithm "MS\u200b " reads as ckpt's "ms" but is not it: write "ms", or a foreign algorithm's own name`},
		{"algorithm empty", `{"format":"ckpt/run@1","algorithm":"","processes":["P0"],"events":[]}`, `run.json: the run names no algorithm ("algorithm" is missing or empty): a run says which algorithm made it, a foreign one by its own name`},
		{"missing p", runDoc(`{"seq":0,"t":0,"kind":"internal"}`), `run.json: event 0: missing "p"`},
		{"truncated", runDoc(`{"seq":0,"t":0,"p":"P0","kind":"internal"}`)[:120], `run.json: event 0: malformed JSON: unexpected end of input (truncated JSON?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRun("run.json", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

// A null "source" says there is none, as leaving it out does (a
// recorder without a trace file writes it so); before, it was refused.
func TestReadRunSourceNull(t *testing.T) {
	for _, in := range []string{
		`{"format":"ckpt/run@1","algorithm":"acme","processes":["P0"],"source":null,"events":[]}`,
		`{"format":"ckpt/run@1","algorithm":"acme","processes":["P0"],"source": null ,"events":[]}`,
		`{"format":"ckpt/run@1","algorithm":"acme","processes":["P0"],"source":null}` + "\n",
	} {
		run, err := ReadRun("run.json", strings.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
		} else if run.Source != "" {
			t.Errorf("%s: source %q, want none", in, run.Source)
		}
	}
	run, err := ReadRun("run.json", strings.NewReader(`{"format":"ckpt/run@1","algorithm":"acme","processes":["P0"],"source":"t.json","events":[]}`))
	if err != nil || run.Source != "t.json" {
		t.Errorf("source %v, %v; want t.json", run, err)
	}
}

func TestReadRunJSONLAndSeqOptional(t *testing.T) {
	in := `{"format":"ckpt/run@1","algorithm":"pk","processes":["P0","P1"],"options":{"timing":"recorded"}}` + "\n" +
		`{"t":0,"p":"P0","kind":"send","to":"P1","msg":"m","op":0,"copy":1,"pb":{"vt":[[0,1],[0,0]]}}` + "\n" +
		`{"t":1,"p":"P1","kind":"recv","from":"P0","msg":"m","op":0,"copy":1,"via":"net"}` + "\n"
	run, err := ReadRun("r.jsonl", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Events) != 2 || run.Events[1].Seq != 1 || run.Events[1].Peer != 0 || run.Events[1].Via != trace.ViaNet || run.PB(&run.Events[0]).VT[0] != (trace.VTEntry{Inc: 0, Count: 1}) {
		t.Fatalf("%+v", run.Events)
	}
	_, err = ReadRun("r.jsonl", strings.NewReader(strings.Replace(in, `"via":"net"`, `"via":"x"`, 1)))
	if err == nil || err.Error() != `r.jsonl: event 1 (line 3): unknown via "x"` {
		t.Fatalf("got %v", err)
	}
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{runDoc(), RunFormat},
		{doc(), TraceFormat},
		{`{"events":[],"format":"ckpt/run@1"}`, ""},
		{`nonsense`, ""},
	} {
		format, rest, err := Detect(strings.NewReader(tt.in))
		if err != nil || format != tt.want {
			t.Errorf("Detect(%.30q) = %q, %v; want %q", tt.in, format, err, tt.want)
			continue
		}
		var sb bytes.Buffer
		if _, err := sb.ReadFrom(rest); err != nil || sb.String() != tt.in {
			t.Errorf("Detect's reader gave %q, want the input back", sb.String())
		}
	}
}

func TestReadAnyFileLateFormat(t *testing.T) {
	path := t.TempDir() + "/late.json"
	in := `{"events":[{"t":0,"p":"P0","kind":"end","state":"done"}],"processes":["P0"],"algorithm":"acme","format":"ckpt/run@1"}`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, run, err := ReadAnyFile(path)
	if err != nil || tr != nil || run == nil || run.Events[0].State != trace.StateDone {
		t.Fatalf("got %v %v %v", tr, run, err)
	}
}
