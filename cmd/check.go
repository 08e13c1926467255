package cmd

import "github.com/spf13/cobra"

// newCheckCmd is a placeholder until its issue lands.
func newCheckCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "check",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("check: not implemented yet")
		},
	}
}
