package cmd

import "github.com/spf13/cobra"

// newValidateCmd is a placeholder until its issue lands.
func newValidateCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "validate",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("validate: not implemented yet")
		},
	}
}
