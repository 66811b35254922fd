package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func open(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestBudget sets a budget once, spends up to it in exact arithmetic
// (0.1 + 0.2 is 0.3, not more), refuses a publication past it, refuses
// a raise unasked and records one asked, and keeps data sets apart.
func TestBudget(t *testing.T) {
	ctx := context.Background()
	d := open(t, filepath.Join(t.TempDir(), "l.sqlite"))
	if err := d.SetBudget(ctx, "nyc", 0.3, false, Entry{}); err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.1, 0.2} {
		if _, err := d.Spend(ctx, "nyc", eps, Entry{Mechanism: "geometric", Sensitivity: 1, Output: "r.csv"}); err != nil {
			t.Fatalf("ε %v: %v", eps, err)
		}
	}
	st, err := d.Status(ctx, "nyc")
	if err != nil {
		t.Fatal(err)
	}
	if RatString(st.Spent) != "0.3" || st.Publications != 2 || RatString(st.Budget) != "0.3" {
		t.Errorf("spent %s of %s in %d", RatString(st.Spent), RatString(st.Budget), st.Publications)
	}
	var be *BudgetError
	if _, err := d.Spend(ctx, "nyc", 1e-9, Entry{}); !errors.As(err, &be) {
		t.Errorf("past the budget: %v", err)
	}
	if err := d.SetBudget(ctx, "nyc", 1, false, Entry{}); !errors.Is(err, ErrRaise) {
		t.Errorf("raise unasked: %v", err)
	}
	if err := d.SetBudget(ctx, "nyc", 1, true, Entry{}); err != nil {
		t.Fatal(err)
	}
	if err := d.SetBudget(ctx, "nyc", 1, false, Entry{}); err != nil {
		t.Errorf("the same budget again: %v", err)
	}
	if _, err := d.Spend(ctx, "sf", 5, Entry{}); err != nil {
		t.Errorf("another data set, no budget: %v", err)
	}
	es, err := d.Entries(ctx, "nyc")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "budget,publication,publication,raise" {
		t.Errorf("entries %v", kinds)
	}
}

// TestTamper edits, deletes and reorders entries behind privmap's back:
// each is found on opening, naming the entry, and nothing may spend.
func TestTamper(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, sql string
		seq       int64
	}{
		{"edited ε", `UPDATE entries SET epsilon = '0.01' WHERE seq = 2`, 2},
		{"deleted", `DELETE FROM entries WHERE seq = 2`, 2},
		{"deleted last", `DELETE FROM entries WHERE seq = 3`, 0},
		{"reordered", `UPDATE entries SET seq = seq + 10; UPDATE entries SET seq = 1 WHERE seq = 12; UPDATE entries SET seq = 2 WHERE seq = 11; UPDATE entries SET seq = 3 WHERE seq = 13`, 1},
		{"budget edited", `UPDATE entries SET budget = '100' WHERE seq = 1`, 1},
	} {
		path := filepath.Join(t.TempDir(), "l.sqlite")
		d := open(t, path)
		if err := d.SetBudget(ctx, "nyc", 2, false, Entry{}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := d.Spend(ctx, "nyc", 0.5, Entry{}); err != nil {
				t.Fatal(err)
			}
		}
		head := Head(must(d.Entries(ctx, "")))
		raw, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(tc.sql); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		raw.Close()
		d2, err := Open(ctx, path)
		var te *TamperError
		if tc.seq == 0 {
			// The last entry deleted leaves a whole chain: only the head
			// a filed report printed tells it.
			if err != nil || Head(must(d2.Entries(ctx, ""))) == head {
				t.Errorf("%s: %v, head unchanged", tc.name, err)
			}
		} else if !errors.As(err, &te) || te.Seq != tc.seq {
			t.Errorf("%s: %v, want entry %d named", tc.name, err, tc.seq)
		} else if _, err := d2.Spend(ctx, "nyc", 0.1, Entry{}); !errors.As(err, &te) {
			t.Errorf("%s: a publication spent from a broken ledger: %v", tc.name, err)
		}
		if d2 != nil {
			d2.Close()
		}
	}
}

func must(es []Entry, err error) []Entry {
	if err != nil {
		panic(err)
	}
	return es
}

// TestRaceProcesses starts publications at once in separate processes
// (this test binary again) on one ledger file with a budget for one of
// them: exactly one spends, the others are refused, and the chain is
// whole. Without the immediate transaction both could read "0 spent".
func TestRaceProcesses(t *testing.T) {
	if os.Getenv("PRIVMAP_LEDGER_SPEND") != "" {
		return // the helper, run by TestHelperSpend
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared", "l.sqlite")
	d := open(t, path)
	if err := d.SetBudget(ctx, "nyc", 1, false, Entry{}); err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	outs := make([]string, n)
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSpend$")
			cmd.Env = append(os.Environ(), "PRIVMAP_LEDGER_SPEND="+path)
			b, _ := cmd.CombinedOutput()
			outs[i] = string(b)
		})
	}
	wg.Wait()
	spent, refused := 0, 0
	for _, o := range outs {
		switch {
		case strings.Contains(o, "spent entry"):
			spent++
		case strings.Contains(o, "beyond the budget"):
			refused++
		default:
			t.Errorf("helper: %s", o)
		}
	}
	st, err := d.Status(ctx, "nyc")
	if err != nil {
		t.Fatal(err)
	}
	if spent != 1 || refused != n-1 || st.Publications != 1 || RatString(st.Spent) != "0.75" {
		t.Errorf("%d spent, %d refused; the ledger has %d publications, %s spent", spent, refused, st.Publications, RatString(st.Spent))
	}
}

// TestHelperSpend spends ε 0.75 from the ledger PRIVMAP_LEDGER_SPEND
// names, when run by TestRaceProcesses.
func TestHelperSpend(t *testing.T) {
	path := os.Getenv("PRIVMAP_LEDGER_SPEND")
	if path == "" {
		t.Skip("run by TestRaceProcesses")
	}
	d, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e, err := d.Spend(context.Background(), "nyc", 0.75, Entry{Output: "r" + strconv.Itoa(os.Getpid())})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("spent entry", e.Seq)
}

// TestImport imports a study's ledger member once: a second import of
// the same member adds nothing.
func TestImport(t *testing.T) {
	ctx := context.Background()
	d := open(t, filepath.Join(t.TempDir(), "l.sqlite"))
	pubs := []Entry{{Mechanism: "geometric", Epsilon: "1", Sensitivity: 3, Output: "r.csv", OutputSHA256: "00"}}
	for i, want := range []bool{true, false} {
		done, err := d.Import(ctx, "s.json", "abc", 1.5, pubs)
		if err != nil || done != want {
			t.Fatalf("import %d: %v, %v", i+1, done, err)
		}
	}
	st, err := d.Status(ctx, "s.json")
	if err != nil || RatString(st.Spent) != "1" || RatString(st.Budget) != "1.5" || len(st.Entries) != 2 {
		t.Errorf("%+v %v", st, err)
	}
}

// TestSpendBeyondNumbers refuses a publication whose total ε would pass
// float64's range, naming both sums (the release then failed after
// spending, saying only "json: unsupported value: +Inf").
func TestSpendBeyondNumbers(t *testing.T) {
	ctx := context.Background()
	d := open(t, filepath.Join(t.TempDir(), "l.sqlite"))
	if _, err := d.Spend(ctx, "nyc", 1e308, Entry{Mechanism: "geometric", Sensitivity: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := d.Spend(ctx, "nyc", 1e308, Entry{Mechanism: "geometric", Sensitivity: 1})
	if err == nil || err.Error() != `data set "nyc": this release would bring the ε spent to 2e+308, beyond any number privmap can print (1e+308 spent by earlier publications): no budget allows it` {
		t.Errorf("a total past float64: %v", err)
	}
	if st, err := d.Status(ctx, "nyc"); err != nil || st.Publications != 1 {
		t.Errorf("%d publications, %v; want the first only", st.Publications, err)
	}
}
