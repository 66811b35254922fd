package cli

import (
	"bytes"
	"context"
	"io"

	"github.com/privmap/privmap/app/output"
)

// recording is a command's outputs on their way to its batch, and the
// record (output.Record) that -record asks for beside them.
type recording struct {
	path    string   // -record's file, "" for none
	command string   // the sub-command
	args    []string // its arguments as given
	outs    []pendingOut
}

type pendingOut struct {
	name    string
	fill    func(io.Writer) error
	sources []string
}

// Add adds an output, as output.Batch.Add does.
func (r *recording) Add(name string, fill func(io.Writer) error, sources ...string) {
	r.outs = append(r.outs, pendingOut{name, fill, sources})
}

// addTo adds the outputs to b and, when -record was given, the record
// of the command: its JSON line, the digests of inputs and of every
// output's bytes, which are made first to be digested (the first output
// is the record's Output, the others its Also). Everything is
// committed together or not at all.
func (r *recording) addTo(ctx context.Context, b *output.Batch, line []byte, inputs []string) error {
	if r.path == "" {
		for _, o := range r.outs {
			b.Add(o.name, o.fill, o.sources...)
		}
		return nil
	}
	var digests []output.FileDigest
	for _, o := range r.outs {
		if o.name == "-" {
			return usageError{msg: "-record describes files: name the output with -o, not standard output"}
		}
		var buf bytes.Buffer
		if err := o.fill(&buf); err != nil {
			return err
		}
		data := buf.Bytes()
		digests = append(digests, output.BytesDigest(o.name, data))
		b.Add(o.name, func(w io.Writer) error { _, err := w.Write(data); return err }, o.sources...)
	}
	rec, err := output.NewRecord(ctx, r.command, r.args, inputs, digests[0], line)
	if err != nil {
		return err
	}
	rec.Also = digests[1:]
	b.Add(r.path, func(w io.Writer) error { return output.WriteRecord(w, rec) }, inputs...)
	return nil
}

// addRecorded adds to b the file out, written by fill, with the record
// of command when record is not empty (recording.addTo).
func addRecorded(ctx context.Context, b *output.Batch, out, record string, fill func(io.Writer) error, command string, args []string, line []byte, inputs []string) error {
	r := recording{path: record, command: command, args: args}
	r.Add(out, fill, inputs...)
	return r.addTo(ctx, b, line, inputs)
}
