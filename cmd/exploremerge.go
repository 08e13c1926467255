package cmd

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-json"
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
)

// newExploreMergeCmd builds `ckpt explore merge [flags] SHARD.json...`.
func newExploreMergeCmd(ios *IO) *cobra.Command {
	f := &exploreFlags{}
	c := &cobra.Command{
		Use:   "merge [flags] SHARD.json...",
		Short: "Merge the --format json results of explore's shards into the whole report",
		Long: `merge reads the --format json results of the shards 1/N … N/N of one
exploration (ckpt explore --shard I/N --format json, e.g. the jobs of a CI
matrix), in any order, and writes the report the unsharded exploration
writes: the same counts, worst cases and witnesses (the first failing
schedule of the whole space, shrunk by its shard), in any format. The
witnesses go under --out (default: NAME.explore beside the first shard,
NAME being the trace's). A SHARD of - is read from standard input.

Exit status: 0 no schedule fails, 1 some schedule fails a property, 2 a
shard missing, given twice, stopped early, of another exploration or
unreadable.`,
		Args: takesArgs("SHARD.json..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExploreMerge(ios, f, args)
		},
	}
	fl := c.Flags()
	rf := &f.report
	fl.StringVar(&rf.Format, "format", string(render.Text), "output format: text, json, markdown or junit")
	fl.BoolVarP(&rf.Quiet, "quiet", "q", false, "print only one verdict line per algorithm")
	fl.StringVarP(&rf.Output, "output", "o", "", "write the output to this file (atomically) instead of stdout")
	fl.StringVar(&f.out, "out", "", "directory for witness traces (default: NAME.explore beside the first shard)")
	return c
}

func runExploreMerge(ios *IO, f *exploreFlags, paths []string) error {
	if _, err := render.ParseFormat(f.report.Format, render.Formats...); err != nil {
		return flagError{err}
	}
	if i := slices.Index(paths, "-"); i >= 0 && slices.Contains(paths[i+1:], "-") {
		return fmt.Errorf("-: standard input given twice")
	}
	parts := make([]*explore.Result, len(paths))
	for i, path := range paths {
		r, err := readShard(ios, path)
		if err != nil {
			return fmt.Errorf("%s: %s", path, pipeline.Describe(err))
		}
		parts[i] = r
	}
	res, err := explore.Merge(parts, paths)
	if err != nil {
		return err
	}
	dir := cmp.Or(f.out, filepath.Join(filepath.Dir(paths[0]), filepath.Base(explore.WitnessDir(res.File))))
	if err := explore.CheckOutputs(f.report.Output, dir); err != nil {
		return err
	}
	return finishExplore(ios, &f.report, res, dir, 0)
}

// readShard reads one shard's --format json result ("-": stdin, as
// every command reads it); an error entry (the shard could not explore
// its trace) is refused with its message.
func readShard(ios *IO, path string) (*explore.Result, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(ios.pipe().OpenStdin())
	} else {
		output.Reading(path)
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		explore.Result
		Verdict, Error string
	}
	err = json.Unmarshal(b, &doc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not the --format json result of ckpt explore: %s", notAResult(b, err))
	case doc.Scope.Schedules == nil && doc.Verdict == "error":
		return nil, fmt.Errorf("the shard could not explore %s: %s", doc.File, doc.Error)
	case doc.Scope.Schedules == nil:
		return nil, fmt.Errorf("not the --format json result of ckpt explore")
	}
	return &doc.Result, nil
}

// notAResult says in words what b, which does not decode as explore's
// result (err), is instead.
func notAResult(b []byte, err error) string {
	var te *json.UnmarshalTypeError
	switch t := bytes.TrimSpace(b); {
	case !json.Valid(t):
		return "malformed JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	case t[0] == '[':
		return "a JSON array, where explore writes one object (verify's and check's --format json are arrays)"
	case t[0] != '{':
		return "a JSON value that is not an object, which explore writes"
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("its %q holds a JSON %s, which explore never writes there", te.Field, te.Value)
	}
	return "an object whose fields hold values explore never writes"
}
