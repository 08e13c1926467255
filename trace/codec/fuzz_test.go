package codec

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// addSeeds adds every file matching the patterns to the fuzz corpus.
func addSeeds(f *testing.F, patterns ...string) {
	for _, pat := range patterns {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// FuzzReadTrace checks that no input makes the decoder panic, that every
// accepted trace passes Validate, and that it survives an encode/decode
// round trip in every format.
func FuzzReadTrace(f *testing.F) {
	addSeeds(f, "../../testdata/traces/*", "../../testdata/bad/*", "../testdata/canonical/*")
	f.Add([]byte(`{"events":[{"t":1,"p":"B","kind":"send","to":"A","msg":"m"},{"t":2,"p":"A","kind":"recv","msg":"m"}],"format":"ckpt/trace@1","processes":["A","B"]}`))
	// The line path of documents and its hand-over to the stream decoder.
	f.Add([]byte("{\"format\":\"ckpt/trace@1\",\"processes\":[\"A\",\"B\"],\"events\":[\n{\"t\":1,\"p\":\"B\",\"kind\":\"send\",\"to\":\"A\",\"msg\":\"m\"}\n, {\"t\":2,\"p\":\"A\",\n\"kind\":\"recv\",\"msg\":\"m\"}]}\n"))
	f.Add([]byte("{\"format\":\"ckpt/trace@1\",\"processes\":[\"A\"]}\n{\"t\":1,\"p\":\"A\",\"kind\":\"fail\",\"down\":2}\n\n{\"t\":3,\"p\":\"A\",\"kind\":\"internal\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace("fuzz", bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*trace.InputError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := trace.Validate(tr); err != nil {
			t.Fatalf("decoded trace fails Validate: %v", err)
		}
		for _, opts := range allWriteOptions {
			var b bytes.Buffer
			if err := WriteTrace(&b, tr, opts); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTrace("fuzz", &b)
			if err != nil {
				t.Fatalf("re-reading %+v: %v", opts, err)
			}
			if !reflect.DeepEqual(normTrace(got), normTrace(tr)) {
				t.Fatalf("round trip %+v changed the trace", opts)
			}
		}
	})
}

// FuzzReadRun checks the run decoder the same way.
func FuzzReadRun(f *testing.F) {
	addSeeds(f, "../testdata/runs/*")
	// Every protocol's piggyback: the runs of the protocols' golden
	// tests, and FDAS's and HMNR's vectors with a wrong length, type or
	// flag.
	addSeeds(f, "../../algorithms/*/testdata/*.run.jsonl")
	const head = `{"format":"ckpt/run@1","algorithm":"hmnr","processes":["P0","P1"]}` + "\n"
	for _, pb := range []string{
		`{"dv":[1,0]}`, `{"dv":[1]}`, `{"dv":[1,"0"]}`, `{"dv":[1,-1]}`, `{"dv":[]}`,
		`{"lc":2,"ckpt":[1,0],"taken":"01","greater":"10"}`, `{"lc":2,"ckpt":[1,0],"taken":"0x","greater":"1"}`,
		`{"lc":"2","ckpt":[1,0,3],"taken":[0,1]}`, `{"taken":"\u0030\u0031","greater":""}`,
	} {
		f.Add([]byte(head + `{"t":0,"p":"P0","kind":"send","to":"P1","msg":"m","op":0,"copy":1,"pb":` + pb + "}\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := ReadRun("fuzz", bytes.NewReader(data))
		twoPasses(t, data, run, err)
		if err != nil {
			if _, ok := err.(*trace.InputError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		runRoundTrips(t, run, allWriteOptions)
	})
}

// runRoundTrips checks that run, written with each of opts, reads back
// to a run that writes the same bytes.
func runRoundTrips(t *testing.T, run *trace.Run, opts []WriteOptions) {
	for _, o := range opts {
		var b1, b2 bytes.Buffer
		if err := WriteRun(&b1, run, o); err != nil {
			t.Fatal(err)
		}
		r2, err := ReadRun("fuzz", bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatalf("re-reading %+v: %v\n%s", o, err, b1.Bytes())
		}
		if err := WriteRun(&b2, r2, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatalf("round trip %+v changed the run:\n%s\n%s", o, b1.Bytes(), b2.Bytes())
		}
	}
}

// FuzzReadCompactRun checks the ckpt/run@2 paths of the run decoder —
// vectors by their differences, bodies and receipt lists by reference —
// the same way, from small seeds so that it mutates them quickly.
func FuzzReadCompactRun(f *testing.F) {
	addSeeds(f, "../testdata/runs/pk-compact.jsonl")
	const head2 = `{"format":"ckpt/run@2","algorithm":"pk","processes":["P0","P1"]}` + "\n"
	const send = `{"t":0,"p":"P0","kind":"send","to":"P1","msg":"m","op":0,"copy":1,"pb":{"vt":`
	for _, rest := range []string{
		send + `{"set":[[0,0,1]]}}}` + "\n" + `{"t":1,"p":"P1","kind":"recv","from":"P0","msg":"m","op":0,"copy":1}` + "\n" + `{"t":2,"p":"P1","kind":"checkpoint","ckpt":1,"pos":1,"type":"basic","vt":{"set":[[1,0,1]]}}`,
		send + `{"set":[[1,0,1],[0,0,1]]}}}`, send + `{"set":[[2,0,1]]}}}`, send + `{"set":[[0,-1,1]]}}}`, send + `{"set":[[0,0]]}}}`,
		send + `{"set":"x"}}}`, send + `{}}}`, `{"t":0,"p":"P0","kind":"checkpoint","ckpt":1,"pos":0,"vt":{"set":[]}}`,
		`{"t":0,"p":"P0","kind":"control_send","to":"P1","control":"token","body":{"origin":"P0","inc":0,"k":0,"received":[["m",0]]}}` + "\n" +
			`{"t":1,"p":"P1","kind":"control_recv","from":"P0","control":"token","body":{"of":0}}` + "\n" +
			`{"t":2,"p":"P0","kind":"control_send","to":"P1","control":"token","body":{"origin":"P0","inc":1,"k":0,"received":{"of":0,"keep":1,"add":[["n",0]]}}}`,
		`{"t":0,"p":"P0","kind":"control_send","to":"P1","control":"token","body":{"of":0}}`,
		`{"t":0,"p":"P0","kind":"control_send","to":"P1","control":"token","body":{"origin":"P0","received":{"of":0,"keep":3,"add":[]}}}`,
	} {
		f.Add([]byte(head2 + rest + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := ReadRun("fuzz", bytes.NewReader(data))
		twoPasses(t, data, run, err)
		if err != nil {
			if _, ok := err.(*trace.InputError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		runRoundTrips(t, run, []WriteOptions{{}, {Compact: true}, {Compact: true, JSONL: true}})
	})
}
