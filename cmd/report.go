package cmd

import "github.com/spf13/cobra"

// newReportCmd is a placeholder until its issue lands.
func newReportCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "report",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("report: not implemented yet")
		},
	}
}
