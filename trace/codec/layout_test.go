package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"

	json "github.com/goccy/go-json"
	"pgregory.net/rapid"
)

// relayouts are the ways a JSON document can be laid out that the
// decoders must read alike: the events one to a line as ckpt writes
// them (read line by line), and every other layout (read by the stream
// decoder, or line by line up to where the layout changes).
var relayouts = map[string]func([]byte) []byte{
	"as written": func(b []byte) []byte { return b },
	"compact": func(b []byte) []byte {
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil {
			panic(err)
		}
		return out.Bytes()
	},
	"indented": func(b []byte) []byte {
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			panic(err)
		}
		return out.Bytes()
	},
	"comma first": func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("},\n{"), []byte("}\n, {")) },
	"two a line":  func(b []byte) []byte { return twoALine(b) },
	"crlf":        func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) },
	"blank lines": func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\n \n\t\n")) },
	"end on the last event": func(b []byte) []byte {
		return bytes.Replace(b, []byte("}\n]"), []byte("}]"), 1)
	},
}

// twoALine joins every other line with the next.
func twoALine(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	var out [][]byte
	for i := 0; i < len(lines); i += 2 {
		if i+1 < len(lines) {
			out = append(out, append(append([]byte{}, lines[i]...), lines[i+1]...))
		} else {
			out = append(out, lines[i])
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func TestLayoutsDecodeAlike(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := genTrace(t)
		var doc bytes.Buffer
		if err := WriteTrace(&doc, tr, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		for name, relayout := range relayouts {
			got, err := ReadTrace("gen", bytes.NewReader(relayout(doc.Bytes())))
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, relayout(doc.Bytes()))
			}
			if !reflect.DeepEqual(normTrace(got), normTrace(tr)) {
				t.Fatalf("%s: the trace differs\nwant %+v\ngot  %+v", name, tr, got)
			}
		}
		run := genRun(t)
		doc.Reset()
		if err := WriteRun(&doc, run, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		want, err := ReadRun("gen", bytes.NewReader(doc.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for name, relayout := range relayouts {
			got, err := ReadRun("gen", bytes.NewReader(relayout(doc.Bytes())))
			if err != nil {
				t.Fatalf("run %s: %v", name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("run %s: the run differs", name)
			}
		}
	})
}

// TestLayoutErrors checks that a document is reported the same whether
// its events are read line by line or by the stream decoder, and where
// one hands over to the other.
func TestLayoutErrors(t *testing.T) {
	const head = `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[` + "\n"
	e0 := `{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m"}`
	e1 := `{"t":2,"p":"P1","kind":"recv","msg":"m"}`
	tests := []struct{ name, in, want string }{
		{"two commas", head + e0 + ",\n," + e1 + "\n]}", `x: event 1: malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"no comma", head + e0 + "\n" + e1 + "\n]}", `x: event 1: malformed JSON: invalid character '{' after array element (expecting ',' or ']')`},
		{"comma first before the first", head + "," + e0 + "\n]}", `x: event 0: malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"comma before the end", head + e0 + ",\n]}", `x: event 1: malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"null event", head + e0 + ",\nnull,\n" + e1 + "\n]}", `x: event 1: an event must be a JSON object, not null`},
		{"number event", head + e0 + ",\n7\n]}", `x: event 1: an event must be a JSON object, not a number`},
		{"event over two lines", head + e0 + ",\n{\"t\":2,\n\"p\":\"P1\",\"kind\" \"recv\"}\n]}", `x: event 1: malformed JSON: invalid character '"' after object name (expecting ':')`},
		{"semantic error after a relayout", head + e0 + "," + e1 + ",\n" + `{"t":3,"p":"P9","kind":"internal"}` + "\n]}", `x: event 2: unknown process "P9"`},
		{"header error after the events", head + e0 + ",\n" + e1 + "\n],\n\"params\" {}}", `x: line 5: malformed JSON: invalid character '{' after object name (expecting ':')`},
		{"header error after relayout", head + e0 + "," + e1 + "\n],\n\n\"params\" {}}", `x: line 5: malformed JSON: invalid character '{' after object name (expecting ':')`},
		{"trailing data", head + e0 + ",\n" + e1 + "\n]}\n\n{}", `x: line 6: unexpected data after the JSON document`},
		{"truncated in the array", head + e0 + ",\n" + e1 + ",\n", `x: event 2: malformed JSON: unexpected end of input (truncated JSON?)`},
		{"truncated event", head + e0 + ",\n" + e1[:20], `x: event 1: malformed JSON: unexpected end of input (truncated JSON?)`},
		{"bad key in an event", head + e0 + ",\n" + `{"t":2,3:1}` + "\n]}", `x: event 1: malformed JSON: object member name must be a string`},
		{"array closed by a brace", head + "}", `x: event 0: malformed JSON: invalid character '}' at start of value`},
		{"array closed twice", head + e0 + "\n]]", `x: line 3: malformed JSON: unexpected ']' (a comma too many before it, or no array open to close)`},
		{"header closed by a bracket", `{"format":"ckpt/trace@1","processes":["P0"]]`, `x: line 1: malformed JSON: unexpected ']' (a comma too many before it, or no array open to close)`},
		{"processes with a trailing comma", `{"format":"ckpt/trace@1","processes":["P0",],"events":[]}`, `x: line 1: malformed JSON: unexpected ']' (a comma too many before it, or no array open to close)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace("x", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestJSONLinesOneEventALine(t *testing.T) {
	head := `{"format":"ckpt/trace@1","processes":["P0"]}` + "\n"
	tests := []struct{ name, in, want string }{
		{"two on a line", head + `{"t":1,"p":"P0","kind":"internal"} {"t":2,"p":"P0","kind":"internal"}` + "\n",
			`x: event 0 (line 2): malformed JSON: unexpected data after the event (JSON Lines: one event per line)`},
		{"spread over lines", head + `{"t":1,` + "\n" + `"p":"P0","kind":"internal"}` + "\n",
			`x: event 0 (line 2): malformed JSON: unexpected end of line (JSON Lines: one event per line)`},
		{"event on the header's line", `{"format":"ckpt/trace@1","processes":["P0"]} {"t":1,"p":"P0","kind":"nope"}`,
			`x: event 0 (line 1): unknown kind "nope"`},
		{"header over lines", "{\"format\":\"ckpt/trace@1\",\n\"processes\":[\"P0\"]}\n\n" + `{"t":1,"p":"P0","kind":"nope"}`,
			`x: event 0 (line 4): unknown kind "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace("x", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestKeysMatchExactly: encoding/json's rules, which goccy/go-json keeps,
// would read "T" or "Kind" as "t" or "kind"; SPEC §2 ignores unknown
// fields, and a key that differs in case is one.
func TestKeysMatchExactly(t *testing.T) {
	for _, in := range []string{
		doc(`{"t":1,"p":"P0","kind":"internal","T":"x","P":5,"KIND":[],"Kind":"fail","\u212aind":"send"}`),
		doc(`{"T":"x","P":5,"Kind":"fail","t":1,"p":"P0","kind":"internal"}`),
	} {
		tr, err := ReadTrace("x", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if ev := tr.Events[0]; ev.Kind != trace.Internal || ev.P != 0 || ev.T != trace.Second {
			t.Errorf("%+v", ev)
		}
	}
	_, err := ReadTrace("x", strings.NewReader(doc(`{"T":1,"p":"P0","kind":"internal"}`)))
	if err == nil || err.Error() != `x: event 0: missing "t"` {
		t.Errorf("got %v", err)
	}
	in := runDoc(`{"seq":0,"t":0,"p":"P0","kind":"send","to":"P1","TO":"P9","From":"P1","pb":{"sn":1,"SN":"x","f":{}}}`)
	run, err := ReadRun("x", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev := run.Events[0]; ev.Peer != 1 || run.PB(&ev).Sn != 1 {
		t.Errorf("%+v", ev)
	}
}

// TestLongLines: a document's event on a line longer than maxLine is
// read by the document's stream decoder, a JSON Lines event whole, and
// each is read and reported as one on a short line.
func TestLongLines(t *testing.T) {
	for _, max := range []int{maxLine, 4 << 10} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			defer func(old int) { maxLine = old }(maxLine)
			maxLine = max
			testLongLines(t)
		})
	}
}

func testLongLines(t *testing.T) {
	head := `{"format":"ckpt/trace@1","processes":["P0"]}` + "\n"
	long := strings.Repeat("x", 100<<10)
	ok := `{"t":1,"p":"P0","kind":"internal","label":"` + long + `"}`
	tr, err := ReadTrace("x", strings.NewReader(head+ok+"\n"+`{"t":2,"p":"P0","kind":"internal"}`+"\n"))
	if err != nil || len(tr.Events) != 2 || tr.Label(&tr.Events[0]) != long {
		t.Fatalf("long JSON Lines event: %v", err)
	}
	tr, err = ReadTrace("x", strings.NewReader(doc(ok, `{"t":2,"p":"P0","kind":"internal"}`)))
	if err != nil || len(tr.Events) != 2 || tr.Label(&tr.Events[0]) != long {
		t.Fatalf("long document event: %v", err)
	}
	deep := strings.Repeat("[", 20000)
	tests := []struct{ name, in, want string }{
		{"bad kind", head + strings.Replace(ok, "internal", "nope", 1) + "\n", `x: event 0 (line 2): unknown kind "nope"`},
		{"syntax", head + "\n" + strings.Replace(ok, `"p":`, `"p" `, 1) + "\n", `x: event 0 (line 3): malformed JSON: invalid character '"' after object name (expecting ':')`},
		{"cut at the line's end", head + ok[:len(ok)-1] + "\n" + ok + "\n", `x: event 0 (line 2): malformed JSON: unexpected end of line (JSON Lines: one event per line)`},
		{"cut at the input's end", head + ok[:len(ok)-2], `x: event 0 (line 2): malformed JSON: unexpected end of input (truncated JSON?)`},
		{"two on the line", head + ok + " {}\n", `x: event 0 (line 2): malformed JSON: unexpected data after the event (JSON Lines: one event per line)`},
		{"deep", head + `{"t":1,"x":` + deep + "\n", `x: event 0 (line 2): malformed JSON: exceeded max depth`},
		{"deep document", doc(`{"t":1,"x":` + deep), `x: event 0: malformed JSON: exceeded max depth`},
		{"cut document", hdr + "\n" + ok[:len(ok)-2], `x: event 0: malformed JSON: unexpected end of input (truncated JSON?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace("x", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
