package output

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/geo"
)

// RecordSchema names the version of a Record's layout.
const RecordSchema = "privmap-record/1"

// A Record says how a file privmap wrote was made, beside it: the
// command and its arguments, privmap's version and commit, every input
// file's digest and the output's, and the command's JSON line. A report
// (privmap report) matches a record to the file it describes by the
// output's SHA-256, so a renamed file keeps its record, and a changed
// one loses it.
type Record struct {
	Schema  string       `json:"schema"`
	Command string       `json:"command"`
	Args    []string     `json:"args"`
	Version string       `json:"version"`
	Commit  string       `json:"commit,omitempty"`
	Inputs  []FileDigest `json:"inputs"`
	Output  FileDigest   `json:"output"`
	// Also lists the command's other outputs (grid's study).
	Also   []FileDigest    `json:"also,omitempty"`
	Result json.RawMessage `json:"result"`
	// Path is the file the record was read from (not written).
	Path string `json:"-"`
}

// A FileDigest names a file with its size and SHA-256; a directory of
// parts is listed file by file in Parts.
type FileDigest struct {
	Path   string       `json:"path"`
	Bytes  int64        `json:"bytes"`
	SHA256 string       `json:"sha256"`
	Parts  []FileDigest `json:"parts,omitempty"`
}

// MaxDigestParts bounds the files of a directory a digest lists.
const MaxDigestParts = 100000

// Digest returns the digest of the file or directory path: a
// directory's size and SHA-256 are those of its regular files' digests
// in name order, listed in Parts. A path that is neither a regular file
// nor a folder (a device such as /dev/zero, which never ends, or a named
// pipe, whose opening blocks) is refused before it is opened; ctx stops
// the reading.
func Digest(ctx context.Context, path string) (FileDigest, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileDigest{}, err
	}
	if !st.IsDir() {
		f, err := openRegular(path, st)
		if err != nil {
			return FileDigest{}, err
		}
		defer f.Close()
		h := sha256.New()
		n, err := io.Copy(h, &geo.ProgressReader{Ctx: ctx, R: f})
		if err != nil {
			return FileDigest{}, fmt.Errorf("%s: %w", path, err)
		}
		return FileDigest{Path: path, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return FileDigest{}, err
	}
	if len(entries) > MaxDigestParts {
		return FileDigest{}, fmt.Errorf("%s: %d files, more than the %d a digest lists", path, len(entries), MaxDigestParts)
	}
	d := FileDigest{Path: path}
	h := sha256.New()
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		p, err := Digest(ctx, filepath.Join(path, e.Name()))
		if err != nil {
			return FileDigest{}, err
		}
		d.Parts = append(d.Parts, p)
		d.Bytes += p.Bytes
		fmt.Fprintf(h, "%s  %s\n", p.SHA256, e.Name())
	}
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
	return d, nil
}

// openRegular opens path, whose Stat is st, when it is a regular file,
// and checks the file opened is one still.
func openRegular(path string, st os.FileInfo) (*os.File, error) {
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): privmap digests files", path, geo.FileKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file once opened", path)
	}
	return f, nil
}

// DigestReading returns the digest of the file path while read reads
// it: the file is read once, and its remainder, if read stops early,
// is digested too. As for Digest, path must be a regular file, and ctx
// stops the reading.
func DigestReading(ctx context.Context, path string, read func(io.Reader) error) (FileDigest, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileDigest{}, err
	}
	f, err := openRegular(path, st)
	if err != nil {
		return FileDigest{}, err
	}
	defer f.Close()
	h := sha256.New()
	n := &countingWriter{w: h}
	r := &geo.ProgressReader{Ctx: ctx, R: f}
	if err := read(io.TeeReader(r, n)); err != nil {
		return FileDigest{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := io.Copy(n, r); err != nil {
		return FileDigest{}, fmt.Errorf("%s: %w", path, err)
	}
	return FileDigest{Path: path, Bytes: n.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// countingWriter counts the bytes it passes to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// BytesDigest is the digest of data to be written at path.
func BytesDigest(path string, data []byte) FileDigest {
	sum := sha256.Sum256(data)
	return FileDigest{Path: path, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}

// NewRecord returns the record of command run with args, which read
// inputs (empty names skipped) and wrote output, its JSON line result.
func NewRecord(ctx context.Context, command string, args []string, inputs []string, output FileDigest, result []byte) (*Record, error) {
	if result == nil {
		result = []byte("null") // a command that prints no JSON line
	}
	r := &Record{Schema: RecordSchema, Command: command, Args: slices.Clone(args), Version: build.Version, Commit: build.Commit(),
		Output: output, Result: json.RawMessage(slices.Clone(result))}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		d, err := Digest(ctx, in)
		if err != nil {
			return nil, err
		}
		r.Inputs = append(r.Inputs, d)
	}
	return r, nil
}

// WriteRecord writes r as indented JSON.
func WriteRecord(w io.Writer, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Commands are privmap's command-line commands, which a record may name
// as its maker (package cli's table has the same names, TestCommands),
// and "window", the command a record of a file privmap's window wrote
// names. A record naming any other is refused: the report's manifest
// lists each record's command for a shell to run.
var Commands = []string{"grid", "simulate", "channel", "estimate", "metrics", "render", "experiment", "plan", "release", "report", "attack", "version", "window"}

// MaxRecordBytes bounds a record file read.
const MaxRecordBytes = 16 << 20

// ReadRecord reads a record file.
func ReadRecord(name string) (*Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRecordBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxRecordBytes {
		return nil, fmt.Errorf("%s: larger than %d MB: not a privmap record", name, MaxRecordBytes>>20)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.Schema != RecordSchema {
		return nil, fmt.Errorf("%s: schema %q: want %q (privmap estimate -record writes it)", name, r.Schema, RecordSchema)
	}
	if !slices.Contains(Commands, r.Command) {
		c := r.Command
		if len(c) > 40 {
			c = c[:40] + "…"
		}
		return nil, fmt.Errorf("%s: command %q is not one of privmap's (%s): not a record privmap wrote", name, c, strings.Join(Commands, ", "))
	}
	return &r, nil
}
