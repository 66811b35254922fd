// Package attack measures what an adversary who sees the reports learns
// about a person, on the officer's own data: the risk of each mechanism
// in the terms a re-identification review uses, beside the odds (×e^ε)
// that package guarantee states.
//
// # The adversary
//
// She knows each mechanism's channel and a prior: the data's own map,
// a uniform one, or a map the user gives. She is Bayes-optimal.
//
//   - One report (Expose, exact, core.Expose): the probability that her
//     best guess names the person's cell or category (the Bayes
//     vulnerability), beside her best guess without the report (the
//     prior's largest cell); on a grid or a line, the expected distance
//     between the guess that minimises it and the person's place
//     (Shokri et al.'s privacy measure), and the shares of people
//     located within 0.5, 1 and 2 km.
//   - All of one person's reports (AttackPeople, simulated, seeded): the
//     reports of every person of the study's data drawn as a run draws
//     them, with her mechanism and under the study's per-person rule;
//     the adversary names the cell of largest posterior as if every
//     report sanitised one home (core.HomeAttack), and her guess is
//     scored against the person's most frequent cell. Shares are given
//     for everyone and by the number of reports sent (Bins).
//   - The trade-off (MakeSweep): for one kind alone, at each ε, the
//     success from one report against the median error of simulated
//     deployments' estimates (plan.Curve).
//
// Sentence and PeopleSentence say the figures in plain words; WriteCSV
// and WriteSweepCSV write them (docs/FILES.md).
package attack
