package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// The kinds of entry.
const (
	// KindBudget sets a data set's budget, once.
	KindBudget = "budget"
	// KindRaise raises it, when asked.
	KindRaise = "raise"
	// KindLower lowers it, which never needs asking.
	KindLower = "lower"
	// KindPublication is a release drawn for publication: its ε is spent.
	KindPublication = "publication"
)

// An Entry is one line of the ledger.
type Entry struct {
	// Seq numbers the entries of the database from 1, in order.
	Seq int64 `json:"seq"`
	// Dataset names the data set, Kind what the entry does.
	Dataset string `json:"dataset"`
	Kind    string `json:"kind"`
	// Date is when it was written, RFC 3339 in UTC; Who the account
	// that wrote it.
	Date string `json:"date"`
	Who  string `json:"who"`
	// DataSHA256 is the data file's digest, Study the study file, both
	// as the command knew them ("" when none).
	DataSHA256 string `json:"data_sha256"`
	Study      string `json:"study"`
	// Mechanism, Sensitivity and Epsilon are a publication's noise,
	// its Δ and the worst-case ε it spends on a person (a decimal, as
	// printed, exact); Budget a budget entry's new budget.
	Mechanism   string `json:"mechanism"`
	Sensitivity int    `json:"sensitivity"`
	Epsilon     string `json:"epsilon"`
	Budget      string `json:"budget"`
	// Output names the file published and OutputSHA256 its digest.
	Output       string `json:"output"`
	OutputSHA256 string `json:"output_sha256"`
	// Note says where an entry came from when not from a command
	// (imported from a study's ledger member).
	Note string `json:"note"`
	// Prev is the previous entry's Hash ("" for the first), Hash the
	// SHA-256 of Prev and this entry's facts.
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}

// facts is the canonical text an entry's hash covers: every member but
// Hash, one a line, in a fixed order.
func (e *Entry) facts() string {
	return strings.Join([]string{"privmap-ledger/1", strconv.FormatInt(e.Seq, 10), e.Dataset, e.Kind, e.Date, e.Who,
		e.DataSHA256, e.Study, e.Mechanism, strconv.Itoa(e.Sensitivity), e.Epsilon, e.Budget, e.Output, e.OutputSHA256, e.Note, e.Prev}, "\n")
}

// hash returns the SHA-256 of the entry's facts.
func (e *Entry) hash() string {
	h := sha256.Sum256([]byte(e.facts()))
	return hex.EncodeToString(h[:])
}

// A DB is an open ledger.
type DB struct {
	db *sql.DB
	// path is the file, absolute; name as it was given, for messages.
	path, name string
}

// DefaultPath is the ledger of the user's data folder:
// $XDG_DATA_HOME/privmap/ledger.sqlite, ~/.local/share/privmap on Linux
// without it, %AppData%\privmap on Windows, ~/Library/Application
// Support/privmap on macOS.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "privmap", "ledger.sqlite"), nil
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "privmap", "ledger.sqlite"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "privmap", "ledger.sqlite"), nil
}

// busyMillis is how long a command waits for another's transaction.
const busyMillis = 30000

// Open opens (creating it and its folder if need be) the ledger at
// path, and checks its chain: a broken chain is a *TamperError, and the
// DB is returned with it so that its entries can still be read.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("ledger: no path")
	}
	name := path
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "_pragma=busy_timeout(" + strconv.Itoa(busyMillis) + ")&_pragma=foreign_keys(1)&_txlock=immediate"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	d := &DB{db: db, path: path, name: name}
	if err := d.create(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	if _, err := d.Entries(ctx, ""); err != nil {
		return d, err
	}
	return d, nil
}

// Path returns the database's file.
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// schema is the ledger's table; imports remembers the study ledgers
// already imported, by their digest.
const schema = `
CREATE TABLE IF NOT EXISTS entries (
	seq INTEGER PRIMARY KEY,
	dataset TEXT NOT NULL, kind TEXT NOT NULL, date TEXT NOT NULL, who TEXT NOT NULL,
	data_sha256 TEXT NOT NULL, study TEXT NOT NULL, mechanism TEXT NOT NULL,
	sensitivity INTEGER NOT NULL, epsilon TEXT NOT NULL, budget TEXT NOT NULL,
	output TEXT NOT NULL, output_sha256 TEXT NOT NULL, note TEXT NOT NULL,
	prev TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS imports (sha256 TEXT PRIMARY KEY, dataset TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('schema', 'privmap-ledger/1');`

func (d *DB) create(ctx context.Context) error {
	_, err := d.db.ExecContext(ctx, schema)
	return err
}

// A TamperError says the chain is broken: an entry was edited, deleted
// or moved. Nothing may spend until the file is restored.
type TamperError struct {
	Path   string
	Seq    int64
	Reason string
}

func (e *TamperError) Error() string {
	return fmt.Sprintf("ledger %s: entry %d: %s — the ledger was changed outside privmap, and no publication may spend from it until it is restored from a copy whose chain head a filed report gives", e.Path, e.Seq, e.Reason)
}

// queryer is what reading entries needs: the database, or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// read returns every entry, in order, after checking the chain.
func (d *DB) read(ctx context.Context, q queryer) ([]Entry, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, dataset, kind, date, who, data_sha256, study, mechanism, sensitivity, epsilon, budget,
		output, output_sha256, note, prev, hash FROM entries ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("ledger %s: %w", d.path, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.Seq, &e.Dataset, &e.Kind, &e.Date, &e.Who, &e.DataSHA256, &e.Study, &e.Mechanism, &e.Sensitivity,
			&e.Epsilon, &e.Budget, &e.Output, &e.OutputSHA256, &e.Note, &e.Prev, &e.Hash); err != nil {
			return nil, fmt.Errorf("ledger %s: %w", d.path, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger %s: %w", d.path, err)
	}
	return out, d.check(out)
}

// check verifies the chain: entries numbered 1, 2, … each holding the
// previous one's hash and its own.
func (d *DB) check(es []Entry) error {
	prev := ""
	for i, e := range es {
		want := int64(i + 1)
		switch {
		case e.Seq != want:
			return &TamperError{d.name, want, fmt.Sprintf("missing (the next entry is number %d): deleted", e.Seq)}
		case e.Prev != prev:
			return &TamperError{d.name, e.Seq, "does not follow the entry before it: entries were deleted or reordered"}
		case e.hash() != e.Hash:
			return &TamperError{d.name, e.Seq, "its facts do not match its hash: edited"}
		}
		if _, err := parseEps(e.Epsilon); e.Kind == KindPublication && err != nil {
			return &TamperError{d.name, e.Seq, "its ε is not a number"}
		}
		prev = e.Hash
	}
	return nil
}

// Entries returns the entries of dataset (every entry for ""), after
// checking the whole chain; on a *TamperError they are returned too.
func (d *DB) Entries(ctx context.Context, dataset string) ([]Entry, error) {
	all, err := d.read(ctx, d.db)
	if dataset == "" {
		return all, err
	}
	var out []Entry
	for _, e := range all {
		if e.Dataset == dataset {
			out = append(out, e)
		}
	}
	return out, err
}

// Head returns the hash of the last entry, "" for an empty ledger.
func Head(es []Entry) string {
	if len(es) == 0 {
		return ""
	}
	return es[len(es)-1].Hash
}

// A Status is what a data set has spent and may spend.
type Status struct {
	Dataset string
	// Spent is the sum of its publications' ε, exact; Budget its
	// budget (nil: none set).
	Spent, Budget *big.Rat
	// Publications counts them; Head is the whole ledger's chain head.
	Publications int
	Head         string
	Entries      []Entry
}

// SpentFloat and BudgetFloat are Spent and Budget as numbers (0 for no
// budget).
func (s Status) SpentFloat() float64 { f, _ := s.Spent.Float64(); return f }

// BudgetFloat returns the budget, 0 for none.
func (s Status) BudgetFloat() float64 {
	if s.Budget == nil {
		return 0
	}
	f, _ := s.Budget.Float64()
	return f
}

// status sums a data set's entries.
func status(all []Entry, dataset string) Status {
	st := Status{Dataset: dataset, Spent: new(big.Rat), Head: Head(all)}
	for _, e := range all {
		if e.Dataset != dataset {
			continue
		}
		st.Entries = append(st.Entries, e)
		switch e.Kind {
		case KindPublication:
			eps, _ := parseEps(e.Epsilon)
			st.Spent.Add(st.Spent, eps)
			st.Publications++
		case KindBudget, KindRaise, KindLower:
			st.Budget, _ = parseEps(e.Budget)
		}
	}
	return st
}

// Status returns what dataset has spent and may spend.
func (d *DB) Status(ctx context.Context, dataset string) (Status, error) {
	all, err := d.read(ctx, d.db)
	return status(all, dataset), err
}

// parseEps reads an ε written by EpsString.
func parseEps(s string) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("ε %q is not a number ≥ 0", s)
	}
	return r, nil
}

// EpsString writes ε as its shortest decimal, which the ledger adds in
// exact arithmetic: 0.1 and 0.2 spent are 0.3, not 0.30000000000000004.
func EpsString(eps float64) string { return strconv.FormatFloat(eps, 'g', -1, 64) }

// RatString writes an exact sum as a decimal of at most 12 significant
// figures, whatever its size (a sum past float64's range too).
func RatString(r *big.Rat) string {
	return new(big.Float).SetRat(r).Text('g', 12)
}

// A BudgetError refuses a publication that would spend past the budget.
type BudgetError struct {
	Dataset            string
	Spent, Eps, Budget *big.Rat
}

func (e *BudgetError) Error() string {
	total := new(big.Rat).Add(e.Spent, e.Eps)
	return fmt.Sprintf("data set %q: this release would spend ε = %s more on these people, %s in all, beyond the budget of %s (%s spent by earlier publications)",
		e.Dataset, RatString(e.Eps), RatString(total), RatString(e.Budget), RatString(e.Spent))
}

// ErrRaise refuses a budget above the one set, unasked.
var ErrRaise = errors.New("the budget is set once: raising it needs -raise-budget, and is an entry of its own")

// Who names the account writing an entry: the environment's user, else
// the system's account of the process.
func Who() string {
	for _, k := range []string{"USER", "USERNAME", "LOGNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// tx runs fn in an immediate transaction on one connection: the
// database is locked for writing from its start, so that what fn reads
// is what it appends to.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx, []Entry) error) error {
	t, err := d.db.BeginTx(ctx, nil) // _txlock=immediate: BEGIN IMMEDIATE
	if err != nil {
		return fmt.Errorf("ledger %s: %w", d.path, err)
	}
	defer t.Rollback()
	all, err := d.read(ctx, t)
	if err != nil {
		return err
	}
	if err := fn(t, all); err != nil {
		return err
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("ledger %s: %w", d.path, err)
	}
	return nil
}

// appendEntry writes e after the entries all, setting its number, the
// previous hash and its own.
func appendEntry(ctx context.Context, t *sql.Tx, all []Entry, e *Entry) error {
	e.Seq, e.Prev = int64(len(all)+1), Head(all)
	if e.Date == "" {
		e.Date = time.Now().UTC().Format(time.RFC3339)
	}
	if e.Who == "" {
		e.Who = Who()
	}
	e.Hash = e.hash()
	_, err := t.ExecContext(ctx, `INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Seq, e.Dataset, e.Kind, e.Date, e.Who, e.DataSHA256, e.Study, e.Mechanism, e.Sensitivity, e.Epsilon, e.Budget,
		e.Output, e.OutputSHA256, e.Note, e.Prev, e.Hash)
	return err
}

// SetBudget sets dataset's budget to b (in ε): once, then a lower one
// freely and a higher one only with raise, each an entry; the same
// budget again is no entry.
func (d *DB) SetBudget(ctx context.Context, dataset string, b float64, raise bool, e Entry) error {
	nb, err := parseEps(EpsString(b))
	if err != nil || nb.Sign() <= 0 {
		return fmt.Errorf("budget %v: want a positive ε", b)
	}
	return d.tx(ctx, func(t *sql.Tx, all []Entry) error {
		st := status(all, dataset)
		e.Dataset, e.Budget = dataset, EpsString(b)
		switch {
		case st.Budget == nil:
			e.Kind = KindBudget
		case nb.Cmp(st.Budget) == 0:
			return nil
		case nb.Cmp(st.Budget) < 0:
			e.Kind = KindLower
		case !raise:
			return fmt.Errorf("data set %q has a budget of ε = %s: %w", dataset, RatString(st.Budget), ErrRaise)
		default:
			e.Kind = KindRaise
		}
		return appendEntry(ctx, t, all, &e)
	})
}

// Spend records the publication e (its Epsilon, Mechanism, Output…) of
// dataset: in one immediate transaction it checks the chain, sums what
// the data set has spent, refuses a total past its budget with a
// *BudgetError, and appends e. It returns the entry written.
func (d *DB) Spend(ctx context.Context, dataset string, eps float64, e Entry) (Entry, error) {
	ne, err := parseEps(EpsString(eps))
	if err != nil || ne.Sign() <= 0 {
		return e, fmt.Errorf("ε %v: want a positive number", eps)
	}
	err = d.tx(ctx, func(t *sql.Tx, all []Entry) error {
		st := status(all, dataset)
		total := new(big.Rat).Add(st.Spent, ne)
		if st.Budget != nil && total.Cmp(st.Budget) > 0 {
			return &BudgetError{Dataset: dataset, Spent: st.Spent, Eps: ne, Budget: st.Budget}
		}
		if f, _ := total.Float64(); math.IsInf(f, 0) {
			// The ledger's sum is exact, but what privmap prints of it
			// (the release's JSON line, the report) is a number.
			return fmt.Errorf("data set %q: this release would bring the ε spent to %s, beyond any number privmap can print (%s spent by earlier publications): no budget allows it", dataset, RatString(total), RatString(st.Spent))
		}
		e.Dataset, e.Kind, e.Epsilon = dataset, KindPublication, EpsString(eps)
		return appendEntry(ctx, t, all, &e)
	})
	return e, err
}

// Imported reports whether the study ledger of digest sum was imported.
func (d *DB) Imported(ctx context.Context, sum string) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM imports WHERE sha256 = ?`, sum).Scan(&n)
	return n > 0, err
}

// Import appends a study's ledger member, once: its budget (unless the
// data set has one) and its publications, each noted as imported, in
// one transaction; a ledger of digest sum already imported is skipped.
// It reports whether it imported.
func (d *DB) Import(ctx context.Context, dataset, sum string, budget float64, pubs []Entry) (bool, error) {
	done := false
	err := d.tx(ctx, func(t *sql.Tx, all []Entry) error {
		var n int
		if err := t.QueryRowContext(ctx, `SELECT count(*) FROM imports WHERE sha256 = ?`, sum).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if st := status(all, dataset); budget > 0 && st.Budget == nil {
			e := Entry{Dataset: dataset, Kind: KindBudget, Budget: EpsString(budget), Note: "imported from a study's ledger member"}
			if err := appendEntry(ctx, t, all, &e); err != nil {
				return err
			}
			all = append(all, e)
		}
		for _, p := range pubs {
			p.Dataset, p.Kind = dataset, KindPublication
			p.Note = "imported from a study's ledger member"
			if err := appendEntry(ctx, t, all, &p); err != nil {
				return err
			}
			all = append(all, p)
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO imports VALUES (?, ?, ?)`, sum, dataset, len(all)); err != nil {
			return err
		}
		done = true
		return nil
	})
	return done, err
}
