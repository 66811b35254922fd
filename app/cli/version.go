package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/assets"
)

// runVersion is
//
//	privmap version [-licences]
//
// It prints the build (version, commit, build date, Go and Fyne), the
// data's licences and OpenStreetMap's credit, privmap's own licence and
// every linked module's; with -licences, the licences' full texts after
// them, privmap's first.
func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("version")
	texts := fs.Bool("licences", false, "also print the full text of privmap's licence and of every linked module's")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fmt.Fprint(stdout, build.About())
	if *texts {
		fmt.Fprint(stdout, "\nprivmap's licence (", assets.LicenceID, "):\n\n", assets.Licence, "\n", assets.ThirdParty)
	}
	return nil
}
