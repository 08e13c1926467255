package render

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/algorithms"
)

// AlgorithmHelp describes the algorithm table (algorithms.All) for a
// command's long help: one line per algorithm and per variant, wrapped
// to algorithms.HelpWidth, continuation lines under the text's start.
func AlgorithmHelp() string {
	var b strings.Builder
	b.WriteString("Algorithms (--algo):\n")
	w := 0 // the names' column, as wide as the longest
	for _, a := range algorithms.All {
		w = max(w, displayWidth(a.Name))
	}
	for _, a := range algorithms.All {
		doc := a.Doc
		if !a.Recovery {
			doc += " (checkpointing only)"
		}
		hang(&b, fmt.Sprintf("  %-*s ", w, a.Name), doc)
		for _, v := range a.Variants {
			hang(&b, "    --variant "+v.Name+": ", v.Doc)
		}
	}
	return b.String()
}

// hang writes text after prefix, wrapped, later lines indented by the
// prefix's width.
func hang(b *strings.Builder, prefix, text string) {
	wrapText(b, text, prefix, strings.Repeat(" ", displayWidth(prefix)), algorithms.HelpWidth)
}
