package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/ckpt-dev/ckpt/algorithms"
)

// TestTextFitsWidth: the text of verify, report, explore and compare
// never has a line wider than 100 display columns on the bundled traces
// and on a trace of long and CJK process names (cmd/testdata/width):
// headings wrap, and every width is measured in terminal columns (a CJK
// character takes two), not in characters.
func TestTextFitsWidth(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join("..", "testdata", "traces", "*.json"))
	wide, _ := filepath.Glob(filepath.Join("testdata", "width", "*.json"))
	traces = append(append(traces, filepath.Join("..", "explore", "testdata", "textbook-concurrent.json")), wide...)
	if len(wide) == 0 || len(traces) < 5 {
		t.Fatalf("traces missing: %v", traces)
	}
	out := t.TempDir()
	for _, tr := range traces {
		for _, args := range [][]string{
			{"verify", tr},
			{"verify", "--algo", "ms", "--variant", "textbook", tr},
			{"report", tr},
			{"explore", "--failures", "1", "--out", out, tr},
			// --budget bounds the wide traces' spaces (sampled beyond it).
			{"explore", "--algo", "ms", "--variant", "textbook", "--failures", "2", "--budget", "500", "--out", out, tr},
			{"compare", tr},
		} {
			var stdout, stderr bytes.Buffer
			Main(args, strings.NewReader(""), &stdout, &stderr)
			if stdout.Len() == 0 {
				t.Errorf("%s: no output (stderr %q)", strings.Join(args, " "), stderr.String())
			}
			for i, line := range strings.Split(stdout.String(), "\n") {
				if w := twwidth.WidthWithOptions(line, twwidth.Options{}); w > 100 {
					t.Errorf("%s: line %d is %d columns wide:\n%s", strings.Join(args, " "), i+1, w, line)
				}
			}
		}
	}
}

// TestHelpFitsWidth: every command's --help (flags wrapped by wrapHelp,
// the algorithm table by algorithms.Help) fits 100 display columns.
func TestHelpFitsWidth(t *testing.T) {
	root := NewRootCmd(&IO{})
	cmds := [][]string{{"--help"}}
	for _, c := range root.Commands() {
		cmds = append(cmds, []string{c.Name(), "--help"})
		for _, sub := range c.Commands() {
			cmds = append(cmds, []string{c.Name(), sub.Name(), "--help"})
		}
	}
	for _, args := range cmds {
		var stdout, stderr bytes.Buffer
		Main(args, strings.NewReader(""), &stdout, &stderr)
		if stdout.Len() == 0 {
			t.Errorf("%s: no help", strings.Join(args, " "))
		}
		for i, line := range strings.Split(stdout.String(), "\n") {
			if w := twwidth.WidthWithOptions(line, twwidth.Options{}); w > algorithms.HelpWidth {
				t.Errorf("%s: line %d is %d columns wide:\n%s", strings.Join(args, " "), i+1, w, line)
			}
		}
	}
}
