package cli

import (
	"bytes"
	"io"

	"github.com/privmap/privmap/app"
)

// addRecorded adds to b the file out, written by fill, and when record
// is not empty the record of the command that made it (app.Record):
// command with args, its JSON line and the digests of inputs and of
// out's bytes, which are made first to be digested. Both are committed
// together or not at all.
func addRecorded(b *app.Batch, out, record string, fill func(io.Writer) error, command string, args []string, line []byte, inputs []string) error {
	if record == "" {
		b.Add(out, fill, inputs...)
		return nil
	}
	if out == "-" {
		return usageError{msg: "-record describes a file: name the output with -o, not standard output"}
	}
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	r, err := app.NewRecord(command, args, inputs, app.BytesDigest(out, buf.Bytes()), line)
	if err != nil {
		return err
	}
	b.Add(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }, inputs...)
	b.Add(record, func(w io.Writer) error { return app.WriteRecord(w, r) }, inputs...)
	return nil
}
