package cmd

import "github.com/spf13/cobra"

// newExportCmd is a placeholder until its issue lands.
func newExportCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "export",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("export: not implemented yet")
		},
	}
}
