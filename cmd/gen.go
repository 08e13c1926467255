package cmd

import "github.com/spf13/cobra"

// newGenCmd is a placeholder until its issue lands.
func newGenCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "gen",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("gen: not implemented yet")
		},
	}
}
