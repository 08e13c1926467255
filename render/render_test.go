package render

import (
	"bytes"
	"github.com/ckpt-dev/ckpt/report"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/internal/golden"
)

func render(t *testing.T, f Format, reports []report.Report, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Reports(&buf, f, reports, opts); err != nil {
		t.Fatalf("Reports(%s): %v", f, err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	fixtures := []struct {
		name    string
		reports []report.Report
	}{
		{"clean", cleanPair()},
		{"violating", violatingPair()},
	}
	formats := []struct {
		f    Format
		ext  string
		full bool
	}{
		{Text, "txt", false},
		{Text, "full.txt", true},
		{Markdown, "md", false},
		{Markdown, "full.md", true},
		{JSON, "json", false},
		{JUnit, "xml", false},
	}
	for _, fx := range fixtures {
		for _, f := range formats {
			name := fx.name + "." + f.ext
			t.Run(name, func(t *testing.T) {
				got := render(t, f.f, fx.reports, Options{Full: f.full})
				golden.Check(t, name, []byte(got))
				if again := render(t, f.f, fx.reports, Options{Full: f.full}); again != got {
					t.Error("two renderings of the same reports differ")
				}
				if strings.Contains(got, "\x1b[") {
					t.Error("colour escape without Options.Color")
				}
				if !strings.HasSuffix(got, "\n") {
					t.Error("output does not end in a newline")
				}
			})
		}
	}
}
