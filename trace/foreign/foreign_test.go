package foreign

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

const imports = "../../testdata/imports"

func TestDetect(t *testing.T) {
	for _, tc := range []struct{ head, want, err string }{
		{`{"resourceSpans":[`, "otlp", ""},
		{"  {\"data\": [{\"traceID\"", "jaeger", ""},
		{`{"traceID":"1","spans":[]}`, "jaeger", ""},
		{`{"x":{"y":[1,2]},"spans":[`, "jaeger", ""},
		{`{"TracerIdentity":"a","Tag":"x"}` + "\n", "tracing", ""},
		{` [{"traceId":"1"`, "zipkin", ""},
		{"[\n [", "zipkin", ""},
		// A JSON array of anything is Zipkin's, to be refused there.
		{"[1, 2, 3]\n", "zipkin", ""},
		{"[null]", "zipkin", ""},
		{`["a", tru`, "zipkin", ""},
		{"[1] a {\"a\":1}\n", "shiviz", ""},
		// A ShiViz log whose event texts are JSON arrays has a host and
		// clock line after the first: a Zipkin file holds arrays only.
		{"[\"put\", \"k\", 1]\n24464 {\"24464\":1}\n[\"get\", \"k\"]\n24468 {\"24464\":1, \"24468\":1}\n", "shiviz", ""},
		{"[1]\n7 {\"7\":1}\n[2]\n8 {\"7\":1, \"8\":1}\n", "shiviz", ""},
		{"[{\"op\":\"put\"}]\n24464 {\"24464\":1}\n", "shiviz", ""},
		{"[{\"id\":\"1\"}]\n[{\"id\":\"2\"}]\n", "zipkin", ""},
		{"[{\"id\":\"1\",, x\n", "zipkin", ""},
		{"[{\"id\":\"1\"}]\n[{\"id\":\"2\",, x\n", "zipkin", ""},
		{"[INFO] [10/13/2014 04:23:20.113] [akka://B/user/n0] {\"n0\" : 1} hi", "shiviz", ""},
		{"[2013-05-24 23:28:00,637 voldemort] INFO init\nh {\"h\":1}\n", "shiviz", ""},
		{"a {\"a\":1}\nhello\n", "shiviz", ""},
		{"", "shiviz", ""},
		{"ab\x00cd", "", "NUL byte at offset 2"},
		{"ab\xff\xfecd", "", "not UTF-8"},
		{"ab\xe2\x82", "shiviz", ""}, // a character cut by the end of the head
		{`{"name":"x"}`, "", "not one ckpt imports"},
		// ckpt's own documents are named, not taken for Jaeger (their
		// "processes") or for no log at all.
		{`{"format":"ckpt/trace@1","processes":["P0"],"events":[`, "", "already a ckpt trace (ckpt/trace@1): verify or check it directly"},
		{`{"format":"ckpt/run@2","algorithm":"ms","processes":["P0"]`, "", "already a ckpt run (ckpt/run@2): check it directly"},
		{`{"format":"ckpt/recording@1","process":"P0"}`, "", "a ckpt recording (ckpt/recording@1): import it with"},
		{`{"format":"ckpt/explore@1"}`, "", "a ckpt document (ckpt/explore@1), not a log or spans"},
		{`{"format":{"x":1},"spans":[`, "jaeger", ""},
		{`{"format":"otel","spans":[`, "jaeger", ""},
	} {
		got, err := detect([]byte(tc.head))
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("detect(%q) = %q, %v; want %q, %q", tc.head, got, err, tc.want, tc.err)
		}
	}
}

// TestRealFiles imports every real file of testdata/imports with no
// option, checks what it becomes, and converts it into a valid trace.
func TestRealFiles(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  [3]int // processes, events, messages
	}{
		{[]string{"blueprint-shiviz_all_services.log"}, [3]int{2, 107, 30}},
		{[]string{"blueprint-leaf_process.goveclogger-Log.txt", "blueprint-nonleaf_process.goveclogger-Log.txt"}, [3]int{2, 107, 30}},
		{[]string{"tracechecker-trace_log.txt"}, [3]int{3, 169, 40}},
		{[]string{"tracechecker-trace_log_shiviz.txt"}, [3]int{3, 169, 40}},
		{[]string{"zipkin-skew.json"}, [3]int{2, 6, 2}},
		{[]string{"zipkin-messaging.json"}, [3]int{2, 4, 1}},
		{[]string{"zipkin-yelp.json"}, [3]int{6, 32, 14}},
		{[]string{"jaeger-petclinic.json"}, [3]int{2, 7, 2}},
		{[]string{"jaeger-nodejs.json"}, [3]int{1, 4, 0}},
		{[]string{"otlp-nodejs.json"}, [3]int{1, 4, 0}},
		{[]string{"otlp-example.json"}, [3]int{1, 1, 0}},
		{[]string{"zipkin-skew.json", "zipkin-messaging.json"}, [3]int{4, 10, 3}},
	} {
		// Every format reads alike after a byte-order mark.
		for _, bom := range []string{"", "\ufeff"} {
			t.Run(tc.files[0]+map[string]string{"": "", "\ufeff": "/bom"}[bom], func(t *testing.T) {
				var files []File
				for _, f := range tc.files {
					data, err := os.ReadFile(filepath.Join(imports, f))
					if err != nil {
						t.Fatal(err)
					}
					files = append(files, File{Name: f, R: bytes.NewReader(append([]byte(bom), data...))})
				}
				log, err := Read(files, Options{})
				if err != nil {
					t.Fatal(err)
				}
				ex := log.Executions[0]
				if got := [3]int{len(ex.Hosts), len(ex.Events), ex.Messages()}; got != tc.want {
					t.Errorf("processes, events, messages = %v, want %v", got, tc.want)
				}
				if _, _, err := ex.Trace(tc.files[0], shiviz.ImportOptions{TickEvery: 2}); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		files []string
		opts  Options
		want  string
	}{
		{[]string{"a {\"a\":1}\nx\n", `[]`}, Options{}, "f1: holds zipkin spans but f0 is a vector-clock log"},
		{[]string{`[]`}, Options{Parse: shiviz.ParseOptions{Regex: "x"}}, "f0: --regex and --delimiter apply to ShiViz and GoVector logs"},
		{[]string{"\x00"}, Options{}, "f0: binary data"},
		{[]string{"a {\"a\":1}\nx\n"}, Options{From: "zipkin"}, "f0: line 1: malformed JSON: invalid character 'a'"},
	} {
		var files []File
		for i, f := range tc.files {
			files = append(files, File{Name: "f" + string(rune('0'+i)), R: strings.NewReader(f)})
		}
		_, err := Read(files, tc.opts)
		var ie *trace.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an input error with %q", tc.files, err, tc.want)
		}
	}
}

// TestCutGzip: a gzipped log or span file cut short, or followed by a
// few bytes that are no gzip member, is "truncated input", as verify
// says, at the line reached in a log.
func TestCutGzip(t *testing.T) {
	log, err := os.ReadFile(filepath.Join(imports, "shiviz", "chord.log"))
	if err != nil {
		t.Fatal(err)
	}
	spans, err := os.ReadFile(filepath.Join(imports, "zipkin-skew.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		cut  func([]byte) []byte
		want string
	}{
		{"half", log, func(z []byte) []byte { return z[:len(z)/2] }, "half: line 1220: truncated input (unexpected end of compressed data)"},
		{"trailer", log, func(z []byte) []byte { return z[:len(z)-4] }, "trailer: line 2471: truncated input (unexpected end of compressed data)"},
		{"junk", log, func(z []byte) []byte { return append(z, "garbage\n"...) }, "junk: line 2471: truncated input (unexpected end of compressed data)"},
		{"spans", spans, func(z []byte) []byte { return z[:len(z)/2] }, "spans: line 8: truncated input (unexpected end of compressed data)"},
	} {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(tc.data)
		zw.Close()
		r, err := codec.OpenInput(bytes.NewReader(tc.cut(z.Bytes())))
		if err == nil {
			_, err = Read([]File{{Name: tc.name, R: r}}, Options{})
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzRead: no input makes any reader panic; errors are input errors;
// what is read converts into a valid trace.
func FuzzRead(f *testing.F) {
	entries, err := os.ReadDir(imports)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join(imports, e.Name())); err == nil && len(data) < 10000 {
			f.Add(data, uint8(0))
		}
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"1","startTimeUnixNano":"5"}]}]}]}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, from uint8) {
		opts := Options{}
		if int(from) < len(Formats) {
			opts.From = Formats[from]
		}
		log, err := Read([]File{{Name: "fuzz", R: bytes.NewReader(data)}}, opts)
		if err != nil {
			var ie *trace.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		for _, ex := range log.Executions {
			if _, _, err := ex.Trace("fuzz", shiviz.ImportOptions{TickEvery: 2}); err != nil {
				t.Fatalf("read, but the trace is invalid: %v", err)
			}
		}
	})
}

// TestByteOrderMark: Read skips a byte-order mark before anything reads
// the file (detect, the ShiViz parser choosing its regex, the span
// readers), so every format, detected or forced, with a regex on the
// first line, given or detected, reads the same log with and without
// one.
func TestByteOrderMark(t *testing.T) {
	real := func(name string) string {
		data, err := os.ReadFile(filepath.Join(imports, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	export := shiviz.ExportRegex + "\nP0\t{\"P0\":1}\tsend\nP1\t{\"P0\":1,\"P1\":1}\trecv\n"
	for _, tc := range []struct {
		name  string
		files []string
		opts  Options
	}{
		{"export", []string{export}, Options{}},
		{"export crlf", []string{strings.ReplaceAll(export, "\n", "\r\n")}, Options{From: ShiViz}},
		{"regex line", []string{real("blueprint-shiviz_all_services.log")}, Options{From: ShiViz}},
		{"govector", []string{real("blueprint-leaf_process.goveclogger-Log.txt"), real("blueprint-nonleaf_process.goveclogger-Log.txt")}, Options{}},
		{"regex given", []string{"a {\"a\":1}\nx\n"}, Options{Parse: shiviz.ParseOptions{Regex: shiviz.GoVectorRegex}}},
		{"delimiter", []string{"== r ==\na {\"a\":1}\nx\n== s ==\nb {\"b\":1}\ny\n"}, Options{Parse: shiviz.ParseOptions{Delimiter: `^== (?<trace>.*) ==$`}}},
		{"tracing", []string{real("tracechecker-trace_log.txt")}, Options{From: Tracing}},
		{"otlp", []string{real("otlp-example.json")}, Options{From: "otlp"}},
		{"jaeger", []string{real("jaeger-petclinic.json")}, Options{From: "jaeger"}},
		{"zipkin", []string{real("zipkin-yelp.json")}, Options{From: "zipkin"}},
		{"jaeger detected", []string{"  " + real("jaeger-petclinic.json")}, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(bom string) *shiviz.Log {
				var files []File
				for i, f := range tc.files {
					files = append(files, File{Name: "f" + string(rune('0'+i)), R: strings.NewReader(bom + f)})
				}
				log, err := Read(files, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				return log
			}
			if plain, marked := read(""), read("\ufeff"); !reflect.DeepEqual(plain, marked) {
				t.Errorf("a byte-order mark changes the log:\n%+v\n%+v", plain, marked)
			}
		})
	}
}
