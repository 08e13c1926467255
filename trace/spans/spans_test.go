package spans

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// zs writes one Zipkin span: id, parent, service, kind, start and
// duration in microseconds.
func zs(id, parent, svc, kind string, start, dur int) string {
	return fmt.Sprintf(`{"traceId":"t","id":%q,"parentId":%q,"localEndpoint":{"serviceName":%q},"kind":%q,"name":"op%s","timestamp":%d,"duration":%d}`,
		id, parent, svc, kind, id, start, dur)
}

// dump renders an execution one event a line, in order: process, time
// in microseconds, text, and the processes of the events it receives
// from.
func dump(t *testing.T, format, doc string) ([]string, []string) {
	t.Helper()
	ex, err := Read([]File{{Name: "x", R: strings.NewReader(doc), Format: format}})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range ex.Order {
		ev := &ex.Events[e]
		l := fmt.Sprintf("%s %d %s", ex.Hosts[ev.Host], ev.Time/1000, ev.Text)
		for _, p := range ev.Parents {
			l += " <" + ex.Hosts[ex.Events[p].Host]
		}
		lines = append(lines, l)
	}
	return lines, ex.Notes
}

func TestMapping(t *testing.T) {
	for _, tc := range []struct {
		name, format, doc string
		want              []string
		note              string
	}{
		{"synchronous call, server clock behind", Zipkin,
			"[" + zs("1", "", "a", "CLIENT", 100, 50) + "," + zs("2", "1", "b", "SERVER", 60, 30) + "]",
			[]string{"a 0 op1", "b 0 op2 <a", "b 30 op2 (end)", "a 50 op1 (end) <b"}, "clock of b shifted by +0.00004 s"},
		{"a name that would break the summary's line is quoted", Zipkin,
			"[" + zs("1", "", "a", "CLIENT", 100, 50) + "," + zs("2", "1", "b\n\t", "SERVER", 60, 30) + "]",
			[]string{"a 0 op1", "b\n\t 0 op2 <a", "b\n\t 30 op2 (end)", "a 50 op1 (end) <b\n\t"}, `clock of "b\n\t" shifted by +0.00004 s`},
		{"shared span: server half of the client's id", Zipkin,
			`[{"traceId":"t","id":"1","localEndpoint":{"serviceName":"a"},"kind":"CLIENT","name":"c","timestamp":10,"duration":20},` +
				`{"traceId":"t","id":"1","localEndpoint":{"serviceName":"b"},"kind":"SERVER","name":"s","timestamp":12,"duration":10,"shared":true}]`,
			[]string{"a 0 c", "b 2 s <a", "b 12 s (end)", "a 20 c (end) <b"}, "(request messages: 1, response messages: 1)"},
		{"producer and consumer: one message", Zipkin,
			"[" + zs("1", "", "a", "PRODUCER", 10, 1) + "," + zs("2", "1", "b", "CONSUMER", 15, 1) + "]",
			[]string{"a 0 op1", "b 5 op2 <a"}, "(request messages: 1, response messages: 0)"},
		{"remote child of a server span: the call is placed within it", Zipkin,
			"[" + zs("1", "", "a", "SERVER", 10, 100) + "," + zs("2", "1", "b", "", 30, 10) + "]",
			[]string{"a 0 op1", "a 20 call op2", "b 20 op2 <a", "b 30 op2 (end)", "a 30 op2 returned <b"}, "(request messages: 1, response messages: 1)"},
		{"same process: internal", Zipkin,
			"[" + zs("1", "", "a", "", 10, 100) + "," + zs("2", "1", "a", "", 30, 10) + "]",
			[]string{"a 0 op1", "a 20 op2"}, "spans within their parent's process (internal events): 1"},
		{"instances of one service", Zipkin,
			`[{"traceId":"t","id":"1","localEndpoint":{"serviceName":"a","ipv4":"10.0.0.1"},"name":"x","timestamp":1,"duration":1},` +
				`{"traceId":"t","id":"2","parentId":"1","localEndpoint":{"serviceName":"a","ipv4":"10.0.0.2"},"name":"y","timestamp":2,"duration":1}]`,
			[]string{"a@10.0.0.1 0 x", "a@10.0.0.1 1 call y", "a@10.0.0.2 1 y <a@10.0.0.1", "a@10.0.0.2 2 y (end)", "a@10.0.0.1 2 y returned <a@10.0.0.2"}, ""},
		{"duplicate, missing start, unknown parent", Zipkin,
			"[" + zs("1", "9", "a", "", 10, 1) + "," + zs("1", "", "a", "", 10, 1) + "," + zs("2", "", "a", "", 0, 1) + "]",
			[]string{"a 0 op1"}, "spans skipped, an id another span has: 1"},
		{"parent cycle", Zipkin,
			"[" + zs("1", "2", "a", "", 10, 1) + "," + zs("2", "1", "a", "", 11, 1) + "]",
			[]string{"a 0 op1", "a 1 op2"}, "parent cycles broken: 1"},
		{"jaeger follows-from is asynchronous", Jaeger,
			`{"data":[{"spans":[{"traceID":"t","spanID":"1","operationName":"x","startTime":10,"duration":5,"processID":"p1"},` +
				`{"traceID":"t","spanID":"2","operationName":"y","references":[{"refType":"FOLLOWS_FROM","traceID":"t","spanID":"1"}],"startTime":20,"duration":5,"processID":"p2"}],` +
				`"processes":{"p1":{"serviceName":"a"},"p2":{"serviceName":"b"}}}]}`,
			[]string{"a 0 x", "a 5 call y", "b 10 y <a"}, "(request messages: 1, response messages: 0)"},
		{"otlp kinds by number and name, times as strings", OTLP,
			`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},"scopeSpans":[{"spans":[` +
				`{"traceId":"t","spanId":"1","name":"c","kind":3,"startTimeUnixNano":"1000","endTimeUnixNano":"9000"}]}]},` +
				`{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"b"}}]},"scopeSpans":[{"spans":[` +
				`{"traceId":"t","spanId":"2","parentSpanId":"1","name":"s","kind":"SPAN_KIND_SERVER","startTimeUnixNano":2000,"endTimeUnixNano":"3000"}]}]}]}`,
			[]string{"a 0 c", "b 1 s <a", "b 2 s (end)", "a 8 c (end) <b"}, "(request messages: 1, response messages: 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes := dump(t, tc.format, tc.doc)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if !strings.Contains(strings.Join(notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", notes, tc.note)
			}
		})
	}
}

// TestReadErrors: every error names the file and the line of a JSON
// fault (of the document after the first, counted from the file's
// start), or the span or array item, never a Go type, and a time as
// written.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ format, doc, want string }{
		{Zipkin, `[]`, "no spans to import"},
		{Zipkin, `[` + zs("1", "", "a", "", 0, 1) + `]`, "no spans to import (spans skipped, no start time: 1)"},
		{Zipkin, `[{"id": 3}]`, `item 1 of the array: "id" holds a JSON number where a string is wanted`},
		{Zipkin, `[1,2]`, `item 1 of the array: holds a JSON number where an object is wanted`},
		{Jaeger, `{"data": 5}`, `line 1: "data" holds a JSON number where an array is wanted`},
		{Jaeger, "{\"spans\":[\n{\"spanID\":7}]}", `line 2: "spans.0.spanID" holds a JSON number where a string is wanted`},
		{Jaeger, "{}\n\n{\"spans\":[\n{\"spanID\":7}]}", `line 4: document 2: "spans.0.spanID" holds a JSON number where a string is wanted`},
		{Jaeger, "{}\n{\"spans\":[\n{\"spanID\" 7}]}", `line 3: document 2: malformed JSON: invalid character '7' after object key`},
		{Jaeger, `{"processes":[]}`, `line 1: "processes" holds a JSON array where an object is wanted`},
		{OTLP, `{"resourceSpans":[{"resource":true}]}`, `line 1: "resourceSpans.0.resource" holds a JSON bool where an object is wanted`},
		{Zipkin, `5`, `line 1: the document holds a JSON number where an array is wanted`},
		{Zipkin, "[\n{\"id\":\"1\",\n", "line 2: the JSON is cut short: the file ends inside it"},
		{OTLP, "# a log", "line 1: malformed JSON: invalid character '#' looking for beginning of value"},
		{Jaeger, `{"spans":[{"spanID":"1","startTime":1,"processID":"p9"}],"processes":{}}`, `span "1" names process "p9", which the trace does not list`},
		{Zipkin, `[{"traceId":"a","id":"1","timestamp":1.5,"localEndpoint":{"serviceName":"A"}}]`, `span "1": timestamp 1.5: want a whole number of microseconds, at most 4611686018427387`},
		// It fits in 64 bits, but not in nanoseconds.
		{Zipkin, `[{"id":"1","timestamp":9223372036854775807}]`, `span "1": timestamp 9223372036854775807: want a whole number of microseconds`},
		{Jaeger, `{"spans":[{"spanID":"1","startTime":1,"duration":"abc"}]}`, `span "1": duration "abc": want a whole number of microseconds`},
		{OTLP, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"b","startTimeUnixNano":"18446744073709551615"}]}]}]}`, `span "b": startTimeUnixNano "18446744073709551615": want a whole number of nanoseconds, at most 4611686018427387903`},
		{Zipkin, `[{"id":"1","timestamp":-5}]`, "no spans to import (spans skipped, starting before 1970: 1)"},
		// Times 130 years apart (a clock that says 2100): the message
		// names the first and the last span.
		{Zipkin, "[" + zs("1", "", "a", "", 5, 1) + "," + zs("2", "", "b", "", 4102444800000001, 1) + "]",
			`the events' times span more than 2305843009.213693951 s (about 73 years): from a:1 ("op1 [span=1]") to b:1 ("op2 [span=2]"), 4102444800 s later`},
		{"nosuch", `{}`, "unknown span format"},
	} {
		_, err := Read([]File{{Name: "bad.json", R: strings.NewReader(tc.doc), Format: tc.format}})
		if err == nil || !strings.HasPrefix(err.Error(), "bad.json: "+tc.want) || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s %s: got %v, want %q", tc.format, tc.doc, err, tc.want)
		}
	}
}

// TestFanOutToOneService: a client span calling one service twice (two
// server children there) sends two requests from one event to one host;
// each gets its own message id, where they used to collide.
func TestFanOutToOneService(t *testing.T) {
	doc := "[" + zs("1", "", "a", "CLIENT", 100, 50) + "," + zs("2", "1", "b", "SERVER", 110, 10) + "," + zs("3", "1", "b", "SERVER", 125, 10) + "]"
	ex, err := Read([]File{{Name: "x", R: strings.NewReader(doc), Format: Zipkin}})
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := ex.Trace("x", shiviz.ImportOptions{})
	if err != nil {
		t.Fatalf("fan-out to one service: %v", err)
	}
	if !slices.Contains(tr.Msgs, "a:1->b") || !slices.Contains(tr.Msgs, "a:1->b#2") {
		t.Errorf("message ids %q: want a:1->b and a:1->b#2", tr.Msgs)
	}
}
