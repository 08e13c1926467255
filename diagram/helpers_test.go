package diagram

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// examples is the worked examples' directory (SPEC's testdata/traces).
const examples = "../testdata/traces"

// replayed replays tr through alg ("ms", "pk", or a variant as
// "ms:VARIANT") and checks it.
func replayed(t testing.TB, tr *trace.Trace, alg string) (*trace.Run, *report.Report) {
	t.Helper()
	name, variant, _ := strings.Cut(alg, ":")
	a, err := mutants.New(name, variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	rep := pipeline.Report(run, tr)
	return run, &rep
}

func readExample(t testing.TB, name string) *trace.Trace {
	t.Helper()
	tr, err := codec.ReadTraceFile(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	// Names in goldens must not depend on where the test runs from.
	tr.Name = name
	return tr
}

// svgOf draws one run as an SVG.
func svgOf(w io.Writer, run *trace.Run, rep *report.Report, opts Options) error {
	return SVGPanels(w, []Panel{{Run: run, Report: rep}}, opts)
}

// htmlOf draws one run as a page.
func htmlOf(w io.Writer, run *trace.Run, rep *report.Report, opts Options) error {
	return HTMLPanels(w, []Panel{{Run: run, Report: rep}}, opts)
}

func renderSVG(t testing.TB, run *trace.Run, rep *report.Report, opts Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := svgOf(&b, run, rep, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// node is one parsed SVG element with what the tests look at.
type node struct {
	name    string
	classes []string
	attrs   map[string]string
	title   string
	text    string // character data directly inside the element
}

func (n *node) has(class string) bool {
	for _, c := range n.classes {
		if c == class {
			return true
		}
	}
	return false
}

// parseSVG parses doc as XML — failing the test if it is not well formed
// — and returns its elements in document order.
func parseSVG(t testing.TB, doc []byte) []*node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var (
		out   []*node
		stack []*node
		depth int
		root  bool
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if tk.Name.Local != "svg" || tk.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root element is %v, want svg in the SVG namespace", tk.Name)
				}
				root = true
			}
			depth++
			n := &node{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				n.attrs[a.Name.Local] = a.Value
				if a.Name.Local == "class" {
					n.classes = strings.Fields(a.Value)
				}
			}
			out = append(out, n)
			stack = append(stack, n)
		case xml.EndElement:
			depth--
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) >= 2 && stack[len(stack)-1].name == "title" {
				stack[len(stack)-2].title += string(tk)
			} else if len(stack) >= 1 {
				stack[len(stack)-1].text += string(tk)
			}
		}
	}
	if !root {
		t.Fatal("no svg element")
	}
	return out
}

// inside reports whether n is drawn in the diagram proper rather than in
// the legend (legend samples use the same classes).
func drawn(nodes []*node) []*node {
	var out []*node
	for _, n := range nodes {
		if n.attrs["data-seq"] != "" || (n.has("ckpt-initial") && n.attrs["data-p"] != "") {
			out = append(out, n)
		}
	}
	return out
}

// summarize counts the diagram's elements by class and lists its
// rollbacks and recovery lines: what the goldens pin.
func summarize(doc []byte) func(t testing.TB) string {
	return func(t testing.TB) string {
		nodes := parseSVG(t, doc)
		root := nodes[0]
		var b strings.Builder
		fmt.Fprintf(&b, "algorithm=%s events=%s drawn=%s processes=%s\n",
			root.attrs["data-algorithm"], root.attrs["data-events"], root.attrs["data-drawn"], root.attrs["data-processes"])
		counts := map[string]int{}
		var jumps, lines []string
		for _, n := range drawn(nodes) {
			for _, c := range n.classes {
				switch {
				case strings.HasPrefix(c, "ckpt-"), strings.HasPrefix(c, "msg-"), strings.HasPrefix(c, "ev-"),
					strings.HasPrefix(c, "ctl-"), strings.HasPrefix(c, "reason-"), strings.HasPrefix(c, "state-"),
					c == "down", c == "held", c == "viol", c == "lost-mark":
					counts[c]++
					if n.has("undone") {
						counts[c+" undone"]++
					}
					if n.has("discarded") {
						counts[c+" discarded"]++
					}
				}
			}
			if n.has("jump") {
				jumps = append(jumps, firstLine(n.title))
			}
			if n.has("rline") {
				lines = append(lines, strings.ReplaceAll(n.title, "\n", "; ")+" points="+n.attrs["points"])
			}
		}
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %d\n", k, counts[k])
		}
		for _, j := range jumps {
			fmt.Fprintf(&b, "jump: %s\n", j)
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "rline: %s\n", l)
		}
		return b.String()
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
