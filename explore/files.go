package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
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
// replaces what the last run of the same shard wrote there (manifest.go):
// a witness it wrote that this run does not write again is removed,
// unless it was changed since or is an input of this command. dir is
// created if missing, its parent not. wrote says whether it wrote any;
// tidy, called once the report is written (it may go in dir), removes
// dir if ckpt created it and nothing is left in it.
func WriteWitnesses(r *Result, dir string) (wrote bool, tidy func(), err error) {
	_, statErr := os.Stat(dir)
	m := readManifest(dir)
	var mine []entry
	for a := range r.Algorithms {
		alg := &r.Algorithms[a]
		for _, p := range alg.Properties {
			if w := p.Witness; w != nil && w.Trace != nil {
				if len(mine) == 0 {
					if err := output.MakeDir(dir); err != nil {
						return false, nil, err
					}
					m.created = m.created || errors.Is(statErr, os.ErrNotExist)
				}
				e := entry{shard: r.Scope.Shard, name: alg.Algorithm + "-" + p.Name + ".json"}
				w.Path = filepath.Join(dir, e.name)
				h := sha256.New()
				err := output.Write(w.Path, nil, func(out io.Writer) error {
					return codec.WriteTrace(io.MultiWriter(out, h), w.Trace, codec.WriteOptions{})
				})
				if err != nil {
					return false, nil, err
				}
				e.sum = hex.EncodeToString(h.Sum(nil))
				mine = append(mine, e)
			}
		}
	}
	tidy, err = m.replace(dir, r.Scope.Shard, mine)
	return len(mine) > 0, tidy, err
}
