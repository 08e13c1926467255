package codec

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

const hdr = `{"format":"ckpt/trace@1","processes":["P0","P1","P2"],"events":[`

// doc wraps event objects in a JSON document over P0, P1, P2.
func doc(events ...string) string {
	return hdr + "\n" + strings.Join(events, ",\n") + "\n]}\n"
}

// TestRejectJSON has one case per rejection rule of SPEC §2.
func TestRejectJSON(t *testing.T) {
	send01 := `{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1"}`
	tests := []struct {
		name, in, want string
	}{
		{"empty input", "", `bad.json: empty input: expected a ckpt/trace@1 JSON object`},
		{"not an object", `[1]`, `bad.json: expected a JSON object, found an array; not a ckpt trace: if it is a ShiViz log or OTLP, Jaeger or Zipkin spans, use ckpt import`},
		{"malformed header", `{"format" "x"}`, `bad.json: line 1: malformed JSON: invalid character '"' after object name (expecting ':')`},
		// A name given twice: which one counts would be a guess.
		{"field twice", doc(`{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1","msg":"m2"}`), `bad.json: event 0: "msg" is given twice`},
		{"header key twice", `{"format":"ckpt/trace@1","format":"ckpt/run@1","processes":["P0"],"events":[]}`, `bad.json: line 1: "format" is given twice`},
		{"malformed event", doc(`{"t":1,"p":"P0" "kind":"internal"}`), `bad.json: event 0: malformed JSON: invalid character '"' after object value (expecting ',' or '}')`},
		{"truncated", doc(send01)[:len(hdr)+30], `bad.json: event 0: malformed JSON: unexpected end of input (truncated JSON?)`},
		{"truncated after events", strings.TrimSuffix(doc(send01), "]}\n"), `bad.json: event 1: malformed JSON: unexpected end of input (truncated JSON?)`},
		{"trailing data", doc() + "{}", `bad.json: line 4: unexpected data after the JSON document`},
		{"invalid number", doc(`{"t":01,"p":"P0","kind":"internal"}`), `bad.json: event 0: malformed JSON: invalid character '1' after object value (expecting ',' or '}')`},
		{"bad literal", doc(`{"t":1,"p":"P0","kind":"internal","x":nul}`), `bad.json: event 0: malformed JSON: invalid character '}' in literal null (expecting 'l')`},
		{"missing format", `{"processes":["P0"],"events":[]}`, `bad.json: missing "format" (want "ckpt/trace@1"); not a ckpt trace: if it is a ShiViz log or OTLP, Jaeger or Zipkin spans, use ckpt import`},
		{"wrong format", `{"format":"ckpt/run@1","processes":["P0"],"events":[]}`, `bad.json: "format" is "ckpt/run@1", want "ckpt/trace@1" (a ckpt run: use ckpt check)`},
		{"a recording", `{"format":"ckpt/recording@1","process":"P0"}`, `bad.json: "format" is "ckpt/recording@1", want "ckpt/trace@1" (a recording: use ckpt import)`},
		{"not JSON", "(0) Node0 sent", `bad.json: line 1: malformed JSON: invalid character '(' at start of value; not a ckpt trace: if it is a ShiViz log or OTLP, Jaeger or Zipkin spans, use ckpt import`},
		{"format not a string", `{"format":1}`, `bad.json: "format" must be a string, not a number`},
		{"missing processes", `{"format":"ckpt/trace@1","events":[]}`, `bad.json: missing "processes"`},
		{"empty processes", `{"format":"ckpt/trace@1","processes":[],"events":[]}`, `bad.json: "processes" must list at least one process`},
		{"duplicate process", `{"format":"ckpt/trace@1","processes":["P0","P1","P0"],"events":[]}`, `bad.json: duplicate process name "P0"`},
		{"empty process name", `{"format":"ckpt/trace@1","processes":[""],"events":[]}`, `bad.json: process names must not be empty`},
		{"processes wrong type", `{"format":"ckpt/trace@1","processes":"P0","events":[]}`, `bad.json: "processes" must be an array of strings, not a string`},
		{"process name wrong type", `{"format":"ckpt/trace@1","processes":["P0",1],"events":[]}`, `bad.json: "processes" must be an array of strings, found a number`},
		{"events wrong type", `{"format":"ckpt/trace@1","processes":["P0"],"events":{}}`, `bad.json: "events" must be an array, not an object`},
		{"event not an object", doc(`3`), `bad.json: event 0: an event must be a JSON object, not a number`},
		{"unknown process", doc(`{"t":1,"p":"P7","kind":"internal"}`), `bad.json: event 0: unknown process "P7"`},
		{"unknown process in to", doc(`{"t":1,"p":"P0","kind":"send","to":"Q","msg":"m"}`), `bad.json: event 0: unknown process "Q"`},
		{"unknown process after events", `{"format":"ckpt/trace@1","events":[{"t":1,"p":"P0","kind":"internal"},{"t":1,"p":"P9","kind":"internal"}],"processes":["P0"]}`, `bad.json: event 1: unknown process "P9"`},
		{"missing t", doc(`{"p":"P0","kind":"internal"}`), `bad.json: event 0: missing "t"`},
		{"negative t", doc(`{"t":-0.5,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be a finite number >= 0, got -0.5`},
		{"non-finite t", doc(`{"t":1e999,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be a finite number >= 0, got +Inf`},
		{"huge t", doc(`{"t":1e300,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be at most 2305843009.213693951 s (about 73 years), got 1e+300; make epoch timestamps relative to the trace's start`},
		{"epoch t", doc(`{"t":1e12,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be at most 2305843009.213693951 s (about 73 years), got 1e+12; make epoch timestamps relative to the trace's start`},
		{"t just past the limit", doc(`{"t":2305843009.213693952,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be at most 2305843009.213693951 s (about 73 years), got 2.305843009213694e+09; make epoch timestamps relative to the trace's start`},
		{"t at the limit", doc(`{"t":2305843009.213693951,"p":"P0","kind":"internal"}`, `{"t":2305843009.213693951,"p":"P0","kind":"internaal"}`), `bad.json: event 1: unknown kind "internaal"`},
		{"params beyond the limit", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"restart_delay":3e9},"events":[]}`, `bad.json: params.restart_delay must be at most 2305843009.213693951 s (about 73 years), got 3e+09`},
		{"down beyond the limit", doc(`{"t":1,"p":"P0","kind":"fail","down":1e10}`), `bad.json: event 0: "down" must be at most 2305843009.213693951 s (about 73 years), got 1e+10`},
		{"down below the resolution", doc(`{"t":1,"p":"P0","kind":"fail","down":1e-10}`), `bad.json: event 0: "down" must be a finite number > 0, got 1e-10, which rounds to 0 ns; the resolution is 1 ns`},
		{"down of ten decimals", doc(`{"t":1,"p":"P0","kind":"fail","down":0.0000000004}`), `bad.json: event 0: "down" must be a finite number > 0, got 4e-10, which rounds to 0 ns; the resolution is 1 ns`},
		{"params below the resolution", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"restart_delay":1e-10},"events":[]}`, `bad.json: params.restart_delay must be a finite number > 0, got 1e-10, which rounds to 0 ns; the resolution is 1 ns`},
		{"t wrong type", doc(`{"t":"1","p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be a number, not a string`},
		{"t null", doc(`{"t":null,"p":"P0","kind":"internal"}`), `bad.json: event 0: "t" must be a number, not null`},
		{"decreasing t", doc(`{"t":2,"p":"P0","kind":"internal"}`, `{"t":1.5,"p":"P1","kind":"internal"}`), `bad.json: event 1: t 1.5 is before the previous event's t 2 (events must be in non-decreasing t)`},
		{"missing kind", doc(`{"t":1,"p":"P0"}`), `bad.json: event 0: missing "kind"`},
		{"a run's kind", doc(`{"t":1,"p":"P0","kind":"restart"}`), `bad.json: event 0: kind "restart" is a run's event, not a trace's: if this is a ckpt run, check it with ckpt check`},
		{"kind wrong type", doc(`{"t":1,"p":"P0","kind":true}`), `bad.json: event 0: "kind" must be a string, not a boolean`},
		{"missing p", doc(`{"t":1,"kind":"internal"}`), `bad.json: event 0: missing "p"`},
		{"p wrong type", doc(`{"t":1,"p":0,"kind":"internal"}`), `bad.json: event 0: "p" must be a string, not a number`},
		{"send to self", doc(`{"t":1,"p":"P0","kind":"send","to":"P0","msg":"m1"}`), `bad.json: event 0: send of "m1" to itself (P0)`},
		{"send without to", doc(`{"t":1,"p":"P0","kind":"send","msg":"m1"}`), `bad.json: event 0: send without "to"`},
		{"send without msg", doc(`{"t":1,"p":"P0","kind":"send","to":"P1"}`), `bad.json: event 0: send without "msg"`},
		{"recv without msg", doc(`{"t":1,"p":"P0","kind":"recv"}`), `bad.json: event 0: recv without "msg"`},
		{"msg wrong type", doc(`{"t":1,"p":"P0","kind":"recv","msg":4}`), `bad.json: event 0: "msg" must be a string, not a number`},
		{"duplicate message id", doc(send01, `{"t":2,"p":"P2","kind":"send","to":"P1","msg":"m1"}`), `bad.json: event 1: duplicate message id "m1" (already sent by event 0)`},
		{"recv of unknown message", doc(send01, `{"t":2,"p":"P1","kind":"recv","msg":"m4"}`, `{"t":3,"p":"P2","kind":"internal"}`), `bad.json: event 1: recv of unknown message "m4" (no event sends it)`},
		{"recv before send", doc(`{"t":1,"p":"P1","kind":"recv","msg":"m1"}`, send01), `bad.json: event 0: recv of "m1" before its send`},
		{"recv by wrong process", doc(send01, `{"t":2,"p":"P2","kind":"recv","msg":"m1"}`), `bad.json: event 1: recv of "m1" by P2, but it was sent to P1`},
		{"recv twice", doc(send01, `{"t":2,"p":"P1","kind":"recv","msg":"m1"}`, `{"t":3,"p":"P1","kind":"recv","msg":"m1"}`), `bad.json: event 2: recv of "m1" twice (first by event 1)`},
		{"params zero", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"restart_delay":0},"events":[]}`, `bad.json: params.restart_delay must be a finite number > 0, got 0`},
		{"params negative", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"control_delay":-1},"events":[]}`, `bad.json: params.control_delay must be a finite number > 0, got -1`},
		{"params non-finite", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"default_delay":1e400},"events":[]}`, `bad.json: params.default_delay must be a finite number > 0, got +Inf`},
		{"params wrong type", `{"format":"ckpt/trace@1","processes":["P0"],"params":{"restart_delay":"1"},"events":[]}`, `bad.json: params.restart_delay must be a finite number > 0, not a string`},
		{"params not an object", `{"format":"ckpt/trace@1","processes":["P0"],"params":[],"events":[]}`, `bad.json: "params" must be an object, not an array`},
		{"down zero", doc(`{"t":1,"p":"P0","kind":"fail","down":0}`), `bad.json: event 0: "down" must be a finite number > 0, got 0`},
		{"down negative", doc(`{"t":1,"p":"P0","kind":"fail","down":-2}`), `bad.json: event 0: "down" must be a finite number > 0, got -2`},
		{"down wrong type", doc(`{"t":1,"p":"P0","kind":"fail","down":"2"}`), `bad.json: event 0: "down" must be a number, not a string`},
		{"control char in string", doc("{\"t\":1,\"p\":\"P0\",\"kind\":\"internal\",\"label\":\"a\x01\"}"), `bad.json: event 0: malformed JSON: invalid character '\x01' in string (expecting non-control character)`},
		{"trailing comma", doc(`{"t":1,"p":"P0","kind":"internal"}`, ``), `bad.json: event 1: malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"missing value", doc(`{"t":,"p":"P0","kind":"internal"}`), `bad.json: event 0: malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"bad escape", doc(`{"t":1,"p":"P0","kind":"internal","label":"\q"}`), "bad.json: event 0: malformed JSON: invalid escape sequence `\\q` in string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace("bad.json", strings.NewReader(tt.in))
			var ie *trace.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v (%T), want an *InputError", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestRejectJSONL checks that JSON Lines errors name the line as well.
func TestRejectJSONL(t *testing.T) {
	head := `{"format":"ckpt/trace@1","processes":["P0","P1"]}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"bad event", head + `{"t":1,"p":"P0","kind":"internal"}` + "\n\n" + `{"t":1,"p":"P0","kind":"nope"}` + "\n", `bad.jsonl: event 1 (line 4): unknown kind "nope"`},
		{"malformed", head + `{"t":1,"p":"P0","kind":"internal"}` + "\n" + `{"t":1,"p":"P0",}` + "\n", `bad.jsonl: event 1 (line 3): malformed JSON: invalid character ',' at start of value (a value missing, or a comma too many)`},
		{"recv before send", head + `{"t":1,"p":"P1","kind":"recv","msg":"m"}` + "\n" + `{"t":2,"p":"P0","kind":"send","to":"P1","msg":"m"}` + "\n", `bad.jsonl: event 0 (line 2): recv of "m" before its send`},
		{"recv unknown", head + `{"t":1,"p":"P1","kind":"internal"}` + "\n" + `{"t":1,"p":"P1","kind":"recv","msg":"m"}` + "\n", `bad.jsonl: event 1 (line 3): recv of unknown message "m" (no event sends it)`},
		{"header without processes", `{"format":"ckpt/trace@1"}` + "\n" + `{"t":1,"p":"P1","kind":"internal"}` + "\n", `bad.jsonl: missing "processes"`},
		{"truncated", head + `{"t":1,"p":"P1","ki`, `bad.jsonl: event 0 (line 2): malformed JSON: unexpected end of input (truncated JSON?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace("bad.jsonl", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestAcceptVariants(t *testing.T) {
	tests := []struct {
		name, in string
		events   int
	}{
		{"events before processes", `{"events":[{"t":1,"p":"P1","kind":"send","to":"P0","msg":"m"},{"t":2,"p":"P0","kind":"recv","msg":"m"}],"format":"ckpt/trace@1","processes":["P0","P1"]}`, 2},
		{"unknown fields", `{"format":"ckpt/trace@1","x":{"a":[1,"b",null,true]},"processes":["P0"],"events":[{"t":1,"p":"P0","kind":"internal","extra":[{}]}]}`, 1},
		{"empty trace", `{"format":"ckpt/trace@1","processes":["P0"],"events":[]}`, 0},
		{"jsonl empty", `{"format":"ckpt/trace@1","processes":["P0"]}`, 0},
		{"crlf jsonl", "{\"format\":\"ckpt/trace@1\",\"processes\":[\"P0\"]}\r\n{\"t\":1e-9,\"p\":\"P0\",\"kind\":\"fail\",\"down\":2.5}\r\n", 1},
		{"escapes", `{"format":"ckpt/trace@1","processes":["P\u00e9\ud83d\ude00"],"events":[{"t":0,"p":"Pé😀","kind":"internal","label":"a\"b\\c\/\n"}]}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadTrace("ok.json", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Events) != tt.events {
				t.Fatalf("%d events, want %d", len(tr.Events), tt.events)
			}
		})
	}
	tr, err := ReadTrace("x", strings.NewReader(tests[0].in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Events[0].P != 1 || tr.Events[0].To != 0 || tr.Events[1].P != 0 {
		t.Errorf("processes not renumbered after a late list: %+v", tr.Events)
	}
}

func TestGzipDetectedFromContent(t *testing.T) {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(doc(`{"t":1,"p":"P0","kind":"internal"}`)))
	zw.Close()
	tr, err := ReadTrace("no-extension", bytes.NewReader(zb.Bytes()))
	if err != nil || len(tr.Events) != 1 {
		t.Fatalf("gzip input: %v", err)
	}
	_, err = ReadTrace("cut.gz", bytes.NewReader(zb.Bytes()[:zb.Len()-12]))
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated gzip: got %v", err)
	}
	corrupt := bytes.Clone(zb.Bytes())
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 in the trailer
	_, err = ReadTrace("crc.gz", bytes.NewReader(corrupt))
	if err == nil || err.Error() != "crc.gz: reading: gzip: invalid checksum" {
		t.Fatalf("corrupt gzip: got %v", err)
	}
}

func TestInvalidUTF8BecomesReplacement(t *testing.T) {
	in := doc("{\"t\":1,\"p\":\"P0\",\"kind\":\"internal\",\"label\":\"a\xffb\"}")
	tr, err := ReadTrace("x", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Label(&tr.Events[0]); got != "a\uFFFDb" {
		t.Fatalf("label %q", got)
	}
}
