package snapshot_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

// FuzzDecode feeds the reader arbitrary files. It must never panic, never
// allocate from an unchecked length (the fuzzer's memory limit would
// trip), reject with a typed reason, and whatever it accepts must survive
// a round trip unchanged.
func FuzzDecode(f *testing.F) {
	good := encode(f, snapshot.Header{Identity: testID, ResourceVersion: "5"}, mkPods(3))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(encode(f, snapshot.Header{Identity: testID, ResourceVersion: "1"}, nil))
	f.Add(rewriteVersion(good, 7))
	f.Add([]byte(snapshot.Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []bool{false, true} {
			h, got, err := decode(data, size)
			if err != nil {
				_, ok := snapshot.ReasonOf(err)
				require.True(t, ok, "untyped error: %v", err)
				require.Nil(t, got)
				continue
			}
			again := encode(t, h, got)
			h2, got2, err := decode(again, true)
			require.NoError(t, err)
			require.Equal(t, h.ResourceVersion, h2.ResourceVersion)
			require.Equal(t, got, got2)
		}
	})
}
