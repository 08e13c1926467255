package cmd

import "github.com/spf13/cobra"

// newReplayCmd is a placeholder until its issue lands.
func newReplayCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "replay",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("replay: not implemented yet")
		},
	}
}
