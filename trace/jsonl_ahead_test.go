package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// sameBothWays decodes data with JSON Lines parsed ahead and one event at
// a time, and fails unless both give the same trace or the same error.
// It returns the error.
func sameBothWays(t *testing.T, data []byte) error {
	t.Helper()
	return sameBothWaysFrom(t, func() io.Reader { return bytes.NewReader(data) })
}

// sameBothWaysFrom is sameBothWays over the readers open returns.
func sameBothWaysFrom(t *testing.T, open func() io.Reader) error {
	t.Helper()
	ahead, aerr := readTrace("x", open(), false)
	one, oerr := readTrace("x", open(), true)
	switch {
	case (aerr == nil) != (oerr == nil):
		t.Fatalf("read ahead: %v\none by one: %v", aerr, oerr)
	case aerr != nil:
		if aerr.Error() != oerr.Error() {
			t.Fatalf("read ahead: %v\none by one: %v", aerr, oerr)
		}
		if _, ok := aerr.(*InputError); !ok {
			t.Fatalf("error of type %T: %v", aerr, aerr)
		}
	case !reflect.DeepEqual(normTrace(ahead), normTrace(one)):
		t.Fatalf("read ahead and one by one decode different traces")
	}
	return aerr
}

// aheadLines returns a JSON Lines trace of n events (synthetic) as its
// header and its event lines.
func aheadLines(t *testing.T, n int) (string, []string) {
	lines := strings.Split(strings.TrimSuffix(string(synthetic(t, n, WriteOptions{JSONL: true})), "\n"), "\n")
	return lines[0] + "\n", lines[1:]
}

// TestReadAheadSameAsOneByOne: reading JSON Lines ahead decodes every
// trace as reading one event at a time does, and reports every problem
// at the same event and line, wherever it falls against the batches.
func TestReadAheadSameAsOneByOne(t *testing.T) {
	head, lines := aheadLines(t, 5*aheadEvents)
	join := func(ls []string) []byte { return []byte(head + strings.Join(ls, "\n") + "\n") }
	if err := sameBothWays(t, join(lines)); err != nil {
		t.Fatalf("valid trace: %v", err)
	}
	breaks := map[string]func(string) string{
		"malformed":     func(l string) string { return l[:len(l)-1] + ",}" },
		"cut":           func(l string) string { return l[:len(l)/2] },
		"wrong type":    func(l string) string { return strings.Replace(l, `"t":`, `"t":"x","u":`, 1) },
		"unknown kind":  func(l string) string { return strings.Replace(l, `"kind":"`, `"kind":"x`, 1) },
		"two on a line": func(l string) string { return l + " {}" },
		"array":         func(string) string { return "[1]" },
	}
	for _, at := range []int{0, 1, aheadEvents - 1, aheadEvents, aheadEvents + 1, 3*aheadEvents + 7, len(lines) - 1} {
		for name, brk := range breaks {
			t.Run(fmt.Sprint(name, "@", at), func(t *testing.T) {
				ls := append([]string(nil), lines...)
				ls[at] = brk(ls[at])
				err := sameBothWays(t, join(ls))
				var ie *InputError
				if !errors.As(err, &ie) || ie.Event != at {
					t.Fatalf("got %v, want an error at event %d", err, at)
				}
			})
		}
	}
}

// TestReadAheadNames: names that are unescaped, or that outgrow a
// batch's names, keep their text; blank lines, CRLF and a last line
// without its newline count as one event at a time does.
func TestReadAheadNames(t *testing.T) {
	head := `{"format":"ckpt/trace@1","processes":["P\u00e90","P1"]}` + "\n"
	var b strings.Builder
	b.WriteString(head)
	big := strings.Repeat("y", aheadNames+100)
	for i := 0; i < 3*aheadEvents; i++ {
		switch {
		case i%2 == 0:
			fmt.Fprintf(&b, `{"t":%d,"p":"P\u00e90","kind":"send","to":"P1","msg":"m\"%d"}`+"\r\n", i, i)
		case i == 2*aheadEvents+1:
			fmt.Fprintf(&b, `{"t":%d,"p":"P1","kind":"recv","msg":"m\"%d","label":"%s"}`+"\n\n", i, i-1, big)
		default:
			fmt.Fprintf(&b, `{"t":%d,"p":"P1","kind":"recv","msg":"m\u0022%d","label":"l\t%d"}`+"\n", i, i-1, i)
		}
	}
	in := strings.TrimSuffix(b.String(), "\n")
	if err := sameBothWays(t, []byte(in)); err != nil {
		t.Fatal(err)
	}
	tr, _ := ReadTrace("x", strings.NewReader(in))
	if got := tr.Msgs[tr.Events[3].Msg]; got != `m"2` {
		t.Errorf("message of event 3 is %q", got)
	}
	if got := tr.Label(&tr.Events[2*aheadEvents+1]); got != big {
		t.Errorf("label of event %d has %d bytes, want %d", 2*aheadEvents+1, len(got), len(big))
	}
	if got := tr.Processes[0]; got != "P\u00e90" {
		t.Errorf("process 0 is %q", got)
	}
}

// TestReadAheadLongLines: a line longer than maxLine between batches is
// read by the stream decoder while the parse waits, and the events after
// it are read and reported as one at a time reads them.
func TestReadAheadLongLines(t *testing.T) {
	defer func(old int) { maxLine = old }(maxLine)
	maxLine = 4 << 10
	head, lines := aheadLines(t, 3*aheadEvents)
	// Longer than maxLine and than the line reader's buffer, which
	// returns shorter lines whole.
	long := `{"t":0,"p":"P0","kind":"internal","label":"` + strings.Repeat("z", 100<<10) + `"}`
	cases := map[string]func([]string) []string{
		"between":      func(ls []string) []string { return splice(ls, aheadEvents+3, long) },
		"first":        func(ls []string) []string { return splice(ls, 0, long) },
		"two in a row": func(ls []string) []string { return splice(splice(ls, 10, long), 10, long) },
		"last":         func(ls []string) []string { return append(ls, long) },
		"bad after":    func(ls []string) []string { ls = splice(ls, 5, long); ls[2*aheadEvents] += "x"; return ls },
		"bad long":     func(ls []string) []string { return splice(ls, aheadEvents, long[:len(long)-1]) },
		"bad 2nd long": func(ls []string) []string { return splice(splice(ls, 10, long[:len(long)-1]), 10, long) },
		"late time": func(ls []string) []string {
			return splice(ls, len(ls)-1, strings.Replace(long, `"t":0`, `"t":0.0001`, 1))
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			ls := mk(append([]string(nil), lines...))
			for _, end := range []string{"\n", ""} {
				sameBothWays(t, []byte(head+strings.Join(ls, "\n")+end))
			}
		})
	}
}

// splice returns ls with line inserted before index i, its time that of
// the line before it.
func splice(ls []string, i int, line string) []string {
	if i > 0 {
		t := ls[i-1][strings.Index(ls[i-1], `"t":`)+4:]
		t = t[:strings.IndexByte(t, ',')]
		line = strings.Replace(line, `"t":0,`, `"t":`+t+`,`, 1)
	}
	return append(ls[:i], append([]string{line}, ls[i:]...)...)
}

// TestReadAheadReadError: a read error is reported at the event being
// read when it came, as one at a time reports it, and ends the parse.
func TestReadAheadReadError(t *testing.T) {
	head, lines := aheadLines(t, 4*aheadEvents)
	data := []byte(head + strings.Join(lines, "\n") + "\n")
	for _, at := range []int{len(head) + 10, len(data) / 3, len(data) - 5} {
		err := sameBothWaysFrom(t, func() io.Reader { return &failingReader{b: data[:at]} })
		if err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("cut at %d: got %v", at, err)
		}
	}
}

// failingReader reads b, then fails.
type failingReader struct{ b []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// FuzzReadAhead checks that JSON Lines read ahead decode as they do one
// event at a time, errors included.
func FuzzReadAhead(f *testing.F) {
	addSeeds(f, "../testdata/traces/*.jsonl", "../testdata/bad/*.jsonl")
	f.Add([]byte("{\"format\":\"ckpt/trace@1\",\"processes\":[\"A\",\"B\"]}\n{\"t\":1,\"p\":\"B\",\"kind\":\"send\",\"to\":\"A\",\"msg\":\"m\\u0041\"}\n\n{\"t\":2,\"p\":\"A\",\"kind\":\"recv\",\"msg\":\"mA\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameBothWays(t, data)
	})
}
