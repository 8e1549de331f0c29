package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/shard"
)

func TestShardFlagNamesOneShardOfN(t *testing.T) {
	c, err := parseFlags([]string{"--shard", "1/2"}, io.Discard)
	require.NoError(t, err)
	sel, err := c.shardSelector()
	require.NoError(t, err)
	want, _ := shard.Of(1, 2)
	require.True(t, want.Equal(sel), "%s", sel)

	c, err = parseFlags([]string{"--shard", "0/3", "--shard-by", "namespace"}, io.Discard)
	require.NoError(t, err)
	sel, _ = c.shardSelector()
	require.Equal(t, shard.Namespace, sel.Field)

	for _, bad := range []struct {
		args []string
		says string
	}{
		{[]string{"--shard", "2/2"}, "--shard 2/2: i must be between 0 and n-1 = 1"},
		{[]string{"--shard", "x"}, `--shard wants i/n, e.g. 0/2, got "x"`},
		{[]string{"--shard", "0/2", "--shard-by", "name"}, "--shard-by must be uid or namespace"},
		{[]string{"--shard", "0/0"}, "--shard 0/0: n must be at least 1"},
	} {
		_, err := parseFlags(bad.args, io.Discard)
		require.ErrorContains(t, err, bad.says, "%v", bad.args)
	}
}
