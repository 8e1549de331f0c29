package meta_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func TestParseFieldSelectorMatches(t *testing.T) {
	m := &meta.ObjectMeta{Name: "web-1", Namespace: "default"}
	for _, tc := range []struct {
		sel   string
		match bool
	}{
		{"", true},
		{"metadata.name=web-1", true},
		{"metadata.name==web-1", true},
		{"metadata.name!=web-1", false},
		{"metadata.namespace=default,metadata.name=web-1", true},
		{"metadata.namespace=kube-system", false},
		{"metadata.namespace!=kube-system", true},
		{"status.phase=Running", false},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			s, err := meta.ParseFieldSelector(tc.sel)
			require.NoError(t, err)
			require.Equal(t, tc.match, s.Matches(m))
		})
	}
}

func TestFieldSelectorRequirementsAndEscapes(t *testing.T) {
	s, err := meta.ParseFieldSelector(`spec.nodeName=node\,1,status.phase!=Failed,a==x\=y\\`)
	require.NoError(t, err)
	require.Equal(t, []meta.FieldRequirement{
		{Field: "spec.nodeName", Operator: "=", Value: "node,1"},
		{Field: "status.phase", Operator: "!=", Value: "Failed"},
		{Field: "a", Operator: "=", Value: `x=y\`},
	}, s.Requirements())
	require.Equal(t, `spec.nodeName=node\,1,status.phase!=Failed,a=x\=y\\`, s.String())
	require.True(t, s.MatchesFunc(func(f string) (string, bool) {
		return map[string]string{"spec.nodeName": "node,1", "status.phase": "Running", "a": `x=y\`}[f], true
	}))
}

func TestParseFieldSelectorErrors(t *testing.T) {
	for _, tc := range []struct {
		sel string
		pos int
	}{
		{"metadata.name", 0},
		{"=x", 0},
		{"metadata.name=a,", 16},
		{`metadata.name=a\x`, 14},
		{"a=b=c", 2},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			_, err := meta.ParseFieldSelector(tc.sel)
			var se *meta.SelectorError
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, tc.pos, se.Pos, "%v", err)
			require.Contains(t, err.Error(), "field selector")
		})
	}
}
