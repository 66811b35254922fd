// Package pipeline runs the one simulate → estimate → metrics pipeline
// that the window, the command line and the experiments share: the
// mechanisms built (BuildMechanisms), the users drawn and sanitised from
// seeded streams (Sanitise), every estimator run with its progress and
// cancellation (Run), and the cost model that says before a run what
// it will take (EstimateCost, MethodCosts). ReadReportsFile reads the
// reports people sent, as CSV or Parquet.
package pipeline
