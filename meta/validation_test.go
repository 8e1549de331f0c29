package meta_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func TestValidateLabelKey(t *testing.T) {
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"app", true},
		{"app.kubernetes.io/name", true},
		{"a-b_c.d", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{strings.Repeat("a", 253) + "/x", true},
		{strings.Repeat("a", 254) + "/x", false},
		{"", false},
		{"/x", false},
		{"a/", false},
		{"Example.com/x", false},
		{"ex..com/x", false},
		{"-ex.com/x", false},
		{"a/b/c", false},
		{"-a", false},
		{"a-", false},
		{"a b", false},
	} {
		err := meta.ValidateLabelKey(tc.key)
		require.Equal(t, tc.ok, err == nil, "key %q: %v", tc.key, err)
	}
}

func TestValidateLabelValue(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"", true},
		{"v1.2-rc_3", true},
		{strings.Repeat("x", 63), true},
		{strings.Repeat("x", 64), false},
		{"_x", false},
		{"x/y", false},
	} {
		err := meta.ValidateLabelValue(tc.v)
		require.Equal(t, tc.ok, err == nil, "value %q: %v", tc.v, err)
	}
}
