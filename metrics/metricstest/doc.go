// Package metricstest runs the real Prometheus tools in tests: promtool's
// exposition linter ([CheckMetrics]) and a Prometheus server that scrapes
// a target and answers queries through its HTTP API ([Start]). Both come
// from Debian's prometheus package. When a binary is missing the test is
// skipped with the command that installs it, except under CI (the CI
// environment variable set), where .ci/run installs the package and a
// missing binary fails the test: these tests must run there.
//
// It sits beside the metrics exposition (package metrics and the prom
// module), outside the informer's data path; it is a test helper only.
package metricstest
