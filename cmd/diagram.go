package cmd

import "github.com/spf13/cobra"

// newDiagramCmd is a placeholder until its issue lands.
func newDiagramCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "diagram",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("diagram: not implemented yet")
		},
	}
}
