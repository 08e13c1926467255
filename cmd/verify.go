package cmd

import "github.com/spf13/cobra"

// newVerifyCmd is a placeholder until its issue lands.
func newVerifyCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "verify",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("verify: not implemented yet")
		},
	}
}
