package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"
)

// Input is one file to read: a path as the user gave it (or as a
// directory argument listed it), or a directory argument that gave
// nothing, with Err saying so.
type Input struct {
	Path string
	Err  error
}

// Expand replaces every directory argument by the files in it, in name
// order, not recursively: the trace and run files (.json, .jsonl, either
// optionally .gz) of the format want ("" for any). What a directory
// holds besides is skipped and said in notes, one line per directory
// and reason, so that a file never drops out of a CI run unnoticed. "-"
// and files stay as given; a missing one is reported when it is read.
// The error is stdin given twice.
func Expand(args []string, want string) (in []Input, notes []string, err error) {
	stdin := 0
	for _, a := range args {
		if a == "-" {
			if stdin++; stdin > 1 {
				return nil, nil, errors.New("-: stdin can be read only once")
			}
		}
		if st, err := os.Stat(a); a == "-" || err != nil || !st.IsDir() {
			in = append(in, Input{Path: a})
			continue
		}
		files, n := expandDir(a, want)
		in, notes = append(in, files...), append(notes, n...)
	}
	return in, notes, nil
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
func expandDir(dir, want string) ([]Input, []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []Input{{Path: dir, Err: fmt.Errorf("cannot list the directory: %s", OSErrorText(err))}}, nil
	}
	var out []Input
	var notes []string
	skipped := map[string][]string{}
	for _, e := range entries { // sorted by name
		name := filepath.Join(dir, e.Name())
		if why := skipReason(e.Name(), name, want); why != "" {
			skipped[why] = append(skipped[why], e.Name())
			continue
		}
		out = append(out, Input{Path: name})
	}
	for _, why := range skipReasons {
		if names := skipped[why]; len(names) > 0 {
			notes = append(notes, fmt.Sprintf("%s: skipped %s (%s): %s", dir, Plural(len(names), "entry", "entries"), why, listSome(names, 5)))
		}
	}
	if len(out) == 0 {
		kind := map[string]string{"": "trace or run", codec.TraceFormat: "trace", codec.RunFormat: "run"}[want]
		out = append(out, Input{Path: dir, Err: fmt.Errorf("no %s files (.json, .jsonl, .json.gz or .jsonl.gz) in the directory", kind)})
	}
	return out, notes
}

// skipReason says why the directory entry base, at path name, is not an
// input ("" if it is one). Symbolic links are followed.
func skipReason(base, name, want string) string {
	if strings.HasPrefix(base, ".") {
		return skipReasons[1]
	}
	st, err := os.Stat(name)
	stem := strings.TrimSuffix(base, ".gz")
	switch {
	case err != nil:
		return "" // reported when read
	case st.IsDir():
		return skipReasons[2]
	case !st.Mode().IsRegular():
		return skipReasons[3]
	case !strings.HasSuffix(stem, ".json") && !strings.HasSuffix(stem, ".jsonl"):
		return skipReasons[0]
	}
	switch got := fileFormat(name); {
	case want == "" || got == want:
	case got == codec.RunFormat:
		return skipReasons[4]
	case got == codec.TraceFormat:
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

// Plural is "1 thing" or "n things".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
