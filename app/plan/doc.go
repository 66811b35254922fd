// Package plan answers the planning question of a local-privacy
// deployment: how many users, or which ε, keep the estimate's error
// below a target with a stated probability. Make simulates Runs
// deployments at each point of the axis and finds where the bound
// meets the target; Cost says beforehand what that takes. The central
// release's plan is release.PlanFor.
package plan
