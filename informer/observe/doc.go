// Package observe is the vocabulary an informer reports itself in: what
// happened ([Event] and its [Stage]), what it did to an object ([Op]), why
// it listed again ([RelistCause]) and why it is failing ([FailureReason]),
// and the [Metrics] it counts.
//
// It is a package of its own, below informer, so that what watches an
// informer (a trace printer, a metrics adapter, a dashboard, a test) needs
// only the words, not the machine: package metrics' informer counters
// (metrics.Informer) implement [Metrics] from these words alone, and the
// demo's trace reads [Event]s.
//
// The names are stable: [Stage.String], [Op.String] and
// [RelistCause.String] are what --trace prints and what scripts match, so
// a renamed constant keeps its short name.
package observe
