package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// input is one file a command reads: a path as the user gave it (or as
// a directory argument listed it), or a directory argument that gave
// nothing, with err saying so.
type input struct {
	path string
	err  error
}

// expandInputs replaces every directory argument by the files in it, in
// name order, not recursively: a trace or run file (.json, .jsonl, either
// optionally .gz) of the format want ("" for any). What a directory holds
// besides is skipped, and said on w, one note line per reason, so that a
// file never drops out of a CI run unnoticed. "-" and files stay as
// given; a missing one is reported when it is read. Only a usage error
// (stdin twice) is returned as an error.
func expandInputs(w io.Writer, args []string, want string) ([]input, error) {
	var out []input
	stdin := 0
	for _, a := range args {
		if a == "-" {
			if stdin++; stdin > 1 {
				return nil, invalidf("-: stdin can be read only once")
			}
			out = append(out, input{path: a})
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, input{path: a})
			continue
		}
		out = append(out, expandDir(w, a, want)...)
	}
	return out, nil
}

// skipReasons are why a directory entry is not read, in the order notes
// give them.
var skipReasons = []string{
	"not .json, .jsonl or .gz",
	"hidden",
	"directories: not read recursively",
	"not regular files",
	"runs (ckpt/run@1): ckpt check reads them",
	"traces (ckpt/trace@1): ckpt verify reads them",
}

// expandDir lists the inputs of directory dir and notes what it skips.
func expandDir(w io.Writer, dir, want string) []input {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []input{{path: dir, err: fmt.Errorf("cannot list the directory: %s", osErrorText(unwrapPath(err)))}}
	}
	var out []input
	skipped := map[string][]string{}
	for _, e := range entries { // sorted by name
		name := filepath.Join(dir, e.Name())
		why := skipReason(e, name, want)
		if why != "" {
			skipped[why] = append(skipped[why], e.Name())
			continue
		}
		out = append(out, input{path: name})
	}
	for _, why := range skipReasons {
		if names := skipped[why]; len(names) > 0 {
			fmt.Fprintf(w, "ckpt: note: %s: skipped %s (%s): %s\n", dir, plural(len(names), "entry", "entries"), why, listSome(names, 5))
		}
	}
	if len(out) == 0 {
		kind := "trace or run"
		switch want {
		case trace.TraceFormat:
			kind = "trace"
		case trace.RunFormat:
			kind = "run"
		}
		out = append(out, input{path: dir, err: fmt.Errorf("no %s files (.json, .jsonl, .json.gz or .jsonl.gz) in the directory", kind)})
	}
	return out
}

// skipReason says why the directory entry at name is not an input ("" if
// it is one). Symbolic links are followed.
func skipReason(e os.DirEntry, name, want string) string {
	switch {
	case strings.HasPrefix(e.Name(), "."):
		return skipReasons[1]
	}
	st, err := os.Stat(name)
	switch {
	case err != nil:
		return "" // reported when read
	case st.IsDir():
		return skipReasons[2]
	case !st.Mode().IsRegular():
		return skipReasons[3]
	case !isInputName(e.Name()):
		return skipReasons[0]
	}
	switch got := fileFormat(name); {
	case want == "" || got == want:
	case got == trace.RunFormat:
		return skipReasons[4]
	case got == trace.TraceFormat:
		return skipReasons[5]
	}
	return ""
}

// listSome joins up to n names, saying how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// fileFormat is the "format" a file's header names ("" if it cannot be
// told: such files are kept, so that bad input is still reported).
func fileFormat(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	got, _, err := trace.Detect(f)
	if err != nil {
		return ""
	}
	return got
}

// isInputName tells trace and run files from READMEs and the like in a
// directory argument.
func isInputName(name string) bool {
	name = strings.TrimSuffix(name, ".gz")
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")
}

// unwrapPath returns the error inside a *os.PathError, or err.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
