package explore

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/trace"
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
// replaces what the last run of the same exploration (trace and shard)
// wrote there (manifest.go): a witness it wrote that this run does not
// write again is removed, unless it was changed since or is an input of
// this command. dir is created if missing, its parent not. wrote says
// whether it wrote any; tidy, called once the report is written (it may
// go in dir), removes dir if ckpt created it and nothing is left in it.
// A witness whose name holds anything but ckpt's own (mayWrite: the
// user's file, a link, a named pipe, an input) is not written, its Path
// left empty: err names it, with tidy set, and the others are written.
// tidy is nil when err stopped the writing.
func WriteWitnesses(r *Result, dir string) (wrote bool, tidy func(), err error) {
	_, statErr := os.Stat(dir)
	m, err := readManifest(dir)
	if err != nil {
		return false, nil, err
	}
	own := entry{trace: cmp.Or(r.Scope.Trace, "-"), shard: r.Scope.Shard}
	var mine []entry
	var refused []string
	for a := range r.Algorithms {
		alg := &r.Algorithms[a]
		for _, p := range alg.Properties {
			w := p.Witness
			if w == nil || w.Trace == nil {
				continue
			}
			e := own
			e.name = alg.Algorithm + "-" + p.Name + ".json"
			if filepath.Base(e.name) != e.name {
				return false, nil, fmt.Errorf("witness %q: not a file name (edited or corrupt result?)", e.name)
			}
			if len(mine) == 0 && len(refused) == 0 {
				if err := output.MakeDir(dir); err != nil {
					return false, nil, err
				}
				m.created = m.created || errors.Is(statErr, os.ErrNotExist)
			}
			path := filepath.Join(dir, e.name)
			if !m.mayWrite(path, e.name) {
				// Not the path a shard merged from wrote it at, either.
				w.Path, refused = "", append(refused, path)
				continue
			}
			if e.sum, err = writeWitness(path, w.Trace); err != nil {
				return false, nil, err
			}
			w.Path, mine = path, append(mine, e)
		}
	}
	tidy, err = m.replace(dir, own, mine)
	if err == nil && len(refused) > 0 {
		err = fmt.Errorf("%s: witness not written: a file ckpt did not write has its name (yours, a link, an input, or a witness of a ckpt older than .ckpt-witnesses); move it, or give --out another directory", strings.Join(refused, ", "))
	}
	return len(mine) > 0, tidy, err
}

// writeWitness writes tr to path atomically and returns its SHA-256.
func writeWitness(path string, tr *trace.Trace) (sum string, err error) {
	h := sha256.New()
	err = output.Write(path, nil, func(out io.Writer) error {
		return codec.WriteTrace(io.MultiWriter(out, h), tr, codec.WriteOptions{})
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// CheckOutputs refuses, before the work, the outputs that could not be
// written after it: the report's path out (-o; "" and "-" are stdout),
// also where it is in the witness directory dir under the name of the
// list of witnesses or of a witness (a witness would replace the report,
// or the tidying remove it as the list), and dir, also where its list is
// not a regular file.
func CheckOutputs(out, dir string) error {
	if err := output.Check(out); err != nil {
		return err
	}
	if err := output.CheckDir(dir); err != nil {
		return err
	}
	if _, err := readManifest(dir); err != nil {
		return err
	}
	if out == "" || out == "-" {
		return nil
	}
	if o, d, err := absBoth(out, dir); err == nil && o == d { // redteam9: found only after the work
		return fmt.Errorf("writing %s: it is the witness directory (--out) too; give the report another name", out)
	}
	d1, err1 := filepath.Abs(filepath.Dir(out))
	d2, err2 := filepath.Abs(dir)
	if name := filepath.Base(out); err1 != nil || err2 != nil || d1 != d2 || (name != manifestName && !witnessName(name)) {
		return nil
	}
	return fmt.Errorf("writing %s: explore keeps its witnesses (or their list) under that name in %s; give another name", out, dir)
}

// absBoth returns a and b as absolute paths.
func absBoth(a, b string) (string, string, error) {
	x, err := filepath.Abs(a)
	if err != nil {
		return "", "", err
	}
	y, err := filepath.Abs(b)
	return x, y, err
}

// witnessName reports whether name is ALGORITHM-PROPERTY.json for an
// algorithm explore runs and a property the checker checks.
func witnessName(name string) bool {
	for _, p := range Properties {
		if alg, ok := strings.CutSuffix(name, "-"+p+".json"); ok {
			if _, ok := engineNamed(alg); ok {
				return true
			}
		}
	}
	return false
}
