package cmd

import "github.com/spf13/cobra"

// newImportCmd is a placeholder until its issue lands.
func newImportCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "import",
		Short:  "(not implemented yet)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("import: not implemented yet")
		},
	}
}
