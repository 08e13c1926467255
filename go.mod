module github.com/ckpt-dev/ckpt

go 1.26.8

require (
	github.com/goccy/go-json v0.12.0
	github.com/olekukonko/tablewriter v1.1.5
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	pgregory.net/rapid v1.3.0
)

require (
	github.com/clipperhouse/displaywidth v0.10.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mattn/go-runewidth v0.0.19 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
