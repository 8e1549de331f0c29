package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
)

// auditCounts is a Metrics that counts the cache audits.
type auditCounts struct {
	observe.NopMetrics
	got *[]string
}

func (a auditCounts) Audit(result string, _, _, stale int) {
	*a.got = append(*a.got, result)
}

// The fan-out of the demo's Metrics hands the cache audit's counts to
// each of them that counts audits, and skips one that does not: the
// informer finds the audit's counts only on a Metrics that implements
// observe.AuditMetrics. Regression: multiMetrics lacked Audit, so with
// --ui and --serve-health both on /metrics never counted an audit.
func TestTheMetricsFanOutCountsAudits(t *testing.T) {
	var first, second []string
	plain := struct{ observe.Metrics }{observe.NopMetrics{}} // Metrics only, no Audit
	m := fanOutMetrics([]observe.Metrics{auditCounts{got: &first}, plain, auditCounts{got: &second}})
	a, ok := m.(observe.AuditMetrics)
	require.True(t, ok, "the fan-out counts no audit")
	a.Audit("differ", 0, 0, 1)
	require.Equal(t, []string{"differ"}, first)
	require.Equal(t, []string{"differ"}, second)
}
