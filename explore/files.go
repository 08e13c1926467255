package explore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// WitnessDir is where an exploration of input (a path, "-" for stdin)
// writes its witnesses by default: INPUT.explore beside it, without its
// .json, .jsonl and .gz extensions (stdin.explore in the working
// directory). One place per input, which every run replaces: no litter.
func WitnessDir(input string) string {
	if input == "-" {
		return "stdin.explore"
	}
	stem := filepath.Base(input)
	for _, ext := range []string{".gz", ".jsonl", ".json"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	return filepath.Join(filepath.Dir(input), stem+".explore")
}

// WriteWitnesses writes every witness trace of r into dir as
// ALGORITHM-PROPERTY.json, each atomically, records the paths in r, and
// removes the witnesses an earlier run left there that this one does
// not replace (a directory left empty goes too). It returns whether it
// wrote any. dir is created if missing, its parent not.
func WriteWitnesses(r *Result, dir string) (bool, error) {
	var wrote []string
	for a := range r.Algorithms {
		alg := &r.Algorithms[a]
		for _, p := range alg.Properties {
			if w := p.Witness; w != nil && w.Trace != nil {
				if len(wrote) == 0 {
					if err := output.MakeDir(dir); err != nil {
						return false, err
					}
				}
				name := alg.Algorithm + "-" + p.Name + ".json"
				w.Path = filepath.Join(dir, name)
				err := output.Write(w.Path, nil, func(out io.Writer) error { return codec.WriteTrace(out, w.Trace, codec.WriteOptions{}) })
				if err != nil {
					return false, err
				}
				wrote = append(wrote, name)
			}
		}
	}
	return len(wrote) > 0, removeStale(dir, wrote)
}

// removeStale removes from dir the witness files not in keep — named
// ALGORITHM-PROPERTY.json for a property explore reports — and dir
// itself if that leaves it empty. Other files stay.
func removeStale(dir string, keep []string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	left := len(entries)
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || slices.Contains(keep, name) || !isWitnessName(name) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
		left--
	}
	if left == 0 {
		return os.Remove(dir)
	}
	return nil
}

// isWitnessName reports whether name is ALGORITHM-PROPERTY.json.
func isWitnessName(name string) bool {
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return false
	}
	for _, p := range Properties {
		if alg, ok := strings.CutSuffix(stem, "-"+p); ok && alg != "" {
			return true
		}
	}
	return false
}
