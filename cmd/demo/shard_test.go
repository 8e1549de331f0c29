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

	for _, bad := range [][]string{{"--shard", "2/2"}, {"--shard", "x"}, {"--shard", "0/2", "--shard-by", "name"}, {"--shard", "0/0"}} {
		_, err := parseFlags(bad, io.Discard)
		require.Error(t, err, "%v", bad)
	}
}
