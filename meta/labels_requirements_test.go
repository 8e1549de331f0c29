package meta_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

// Requirements returns what was parsed, in the canonical order, and a copy:
// comparing two parses of the same text (labels_test.go) cannot tell a
// right answer from none.
func TestLabelSelectorRequirementsAreWhatWasParsed(t *testing.T) {
	s, err := meta.ParseLabelSelector("tier in (front,back),!gone,app=web,n>3")
	require.NoError(t, err)
	want := []meta.LabelRequirement{
		{Key: "app", Operator: meta.LabelEquals, Values: []string{"web"}},
		{Key: "gone", Operator: meta.LabelDoesNotExist},
		{Key: "n", Operator: meta.LabelGreaterThan, Values: []string{"3"}},
		{Key: "tier", Operator: meta.LabelIn, Values: []string{"back", "front"}},
	}
	require.Equal(t, want, s.Requirements())
	s.Requirements()[3].Values[0] = "changed"
	require.Equal(t, want, s.Requirements(), "a copy: changing it changes nothing")
	empty, err := meta.ParseLabelSelector("")
	require.NoError(t, err)
	require.Empty(t, empty.Requirements())
}
