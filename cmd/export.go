package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// newExportCmd builds `ckpt export`, a parent for one subcommand per
// foreign format.
func newExportCmd(ios *IO) *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Convert runs into formats other tools read",
		Args:  takesArgs(""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("export needs a format: ckpt export shiviz RUN")
		},
	}
	c.AddCommand(newExportShivizCmd(ios))
	return c
}

func newExportShivizCmd(ios *IO) *cobra.Command {
	var out string
	var quiet bool
	c := &cobra.Command{
		Use:   "shiviz [flags] RUN",
		Short: "Write a run (ckpt/run@1 or @2) as a ShiViz log",
		Long: `Write a run as a log that ShiViz (https://distributedclocks.github.io/shiviz/)
visualises: its first line is the regular expression to paste into ShiViz,
then one line per event: process, vector clock, text. Sends, receives and
internal events (also those a recovery later undid, marked [undone]) carry
the messages; checkpoints, failures, restarts and rollbacks are labelled
local events. ` + "`ckpt import shiviz`" + ` reads the log back.`,
		Args: takesArgs("RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExportShiviz(ios, args[0], out, quiet)
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "output file; default stdout")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not print the summary on stderr")
	return c
}

// runExportShiviz writes the run in file to out, and a summary on
// stderr unless quiet.
func runExportShiviz(ios *IO, file, out string, quiet bool) error {
	run, err := readOne("ckpt export shiviz", pipeline.RunDoc, file, ios.pipe().ReadRun)
	if err != nil {
		return err
	}
	var st shiviz.ExportStats
	err = output.Write(out, ios.Out, func(w io.Writer) error {
		var err error
		st, err = shiviz.Export(w, run)
		return err
	})
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(ios.ErrOut, "%s: %s written", file, pipeline.Plural(st.Events, "event", "events"))
		if st.Hidden > 0 {
			fmt.Fprintf(ios.ErrOut, "; %s", pipeline.Plural(st.Hidden,
				"receive cannot show in vector clocks (the receiver already knew the send) and appears as a local event",
				"receives cannot show in vector clocks (the receiver already knew the send) and appear as local events"))
		}
		fmt.Fprintln(ios.ErrOut)
	}
	return nil
}
