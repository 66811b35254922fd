// Package pipeline runs the one simulate → estimate → metrics pipeline
// that the window, the command line and the experiments share: the
// mechanisms built (BuildMechanisms), the users drawn and sanitised from
// seeded streams (Sanitise), every estimator run with its progress and
// cancellation (Run), and the cost model that says before a run what
// it will take (EstimateCost, MethodCosts). ReadReportsFile reads the
// reports people sent, as CSV or Parquet.
//
// # Reports from a cluster
//
// ReadReportsFile reads reports from CSV (a file or a pipe), Parquet, or
// a Spark directory of Parquet parts (links followed, never skipped). All
// become the same groups. A Parquet file's footer and page headers are
// first walked by privmap's own allocation-free check
// (`internal/parquetcheck`). It checks every declared list, size and
// offset against the bytes there are, the schema's nesting and the values
// per page. Each compressed page is inflated, its output bounded, to
// exactly the size it declares: parquet-go's decoders allocate what a
// ZSTD frame declares and grow a GZIP page's output while it lasts. Rows
// are counted against what each row group declares. DECIMAL and unsigned
// columns are read by their logical type; core's `ReportTable` does the
// counting for every form.
//
// # The cost model
//
// EstimateCost is a rough model of a run's time on the project's machine,
// from K, the mechanisms and n. The window warns with it before a run
// over a minute, and offers cells twice as wide (Coarser). MethodCosts
// gives each estimator's time, its largest memory (`core.Method.Memory`)
// and its refusal on this machine (`core.Study.Fits`). The Run screen
// shows them under the estimators before a run, disabling a refused one
// with its reason; `privmap estimate` prints them first. Run weights its
// progress bar by the same model.
//
// The model follows the estimators' choices. EM steps run over dense
// likelihood columns where core's column budget (`core.ColumnBudget`)
// allows them: small grids, categorical tables, and for a planar
// mechanism where they cost less than its two transforms. Elsewhere it
// counts the structured products: a planar mechanism's transforms, shared
// by GIBU, four each for [IBU]_R and [IBU]_M. It counts the planar
// lattice tables an average channel builds again, and fixed costs below
// a second. `TestMethodCostsMeasured` holds it within 2× of the times
// measured on San Francisco, UCI Adult and New York.
//
// A request whose CI asks for intervals (the Run screen's Intervals
// ticked, `estimate -ci`) counts them too, by the method
// `interval.CI.MethodFor` chooses:
//
//   - the bootstrap's replicates, at about half an estimate each;
//   - the profile's few dozen model steps a symbol (some hundreds where
//     Newton's steps are conjugate gradients);
//   - the windowed profile's dense solves over `core.LocalRows` rows, at
//     the cells the estimate supports;
//   - Fisher's K × K matrix.
//
// `TestIntervalCostsMeasured` checks them, so the long run's warning says
// them.
//
// # Randomness
//
// Simulations use seeded `math/rand/v2` (PCG, stream `pipeline.NewRand`), so
// that every run repeats exactly and the window and `privmap simulate`
// draw the same users from the same seed. That is right for research and
// wrong for collecting real data, which needs a cryptographic source and
// floating-point-safe noise: privmap is not a collection client.
package pipeline
