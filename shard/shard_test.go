package shard_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/shard"
)

type obj struct{ ns, uid string }

func (o obj) GetNamespace() string { return o.ns }
func (o obj) GetUID() string       { return o.uid }

// randomUID is a uid as kube-apiserver makes them (a random UUID v4).
func randomUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func randomNamespace(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-"
	n := 1 + r.IntN(40)
	var b strings.Builder
	for range n {
		b.WriteByte(letters[r.IntN(len(letters))])
	}
	return b.String()
}

func refHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func TestHashIsFNV1a64OfTheFieldBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		for _, s := range []string{randomUID(r), randomNamespace(r)} {
			require.Equal(t, refHash(s), shard.Hash(s), "value %q", s)
		}
	}
	assert.Equal(t, uint64(0xcbf29ce484222325), shard.Hash(""), "the empty namespace of cluster-scoped objects hashes to the offset basis")
}

// Every object is in exactly one shard of a split, whatever N and the field,
// and the shard is the one a reference computation picks.
func TestSplitPutsEveryObjectInExactlyOneShard(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 4, 7, 16, 257} {
		sels := make([]shard.Selector, n)
		for i := range n {
			s, err := shard.Of(i, n)
			require.NoError(t, err)
			sels[i] = s
		}
		for range 2000 {
			o := obj{ns: randomNamespace(r), uid: randomUID(r)}
			for _, f := range []shard.Field{shard.UID, shard.Namespace} {
				v := o.uid
				if f == shard.Namespace {
					v = o.ns
				}
				// reference: the shard whose [start, end) holds the hash, in 65-bit arithmetic.
				h := refHash(v)
				in := 0
				for i, s := range sels {
					if s.On(f).Contains(o) {
						in++
						assert.GreaterOrEqual(t, h, s.Ranges[0].Start)
						assert.LessOrEqual(t, h, s.Ranges[0].Last)
						_ = i
					}
				}
				require.Equal(t, 1, in, "n=%d field=%s value=%q in %d shards", n, f, v, in)
			}
		}
	}
}

func TestSplitTilesTheSpace(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 64, 1 << 16} {
		var next uint64
		for i := range n {
			r, err := shard.Split(i, n)
			require.NoError(t, err)
			require.Equal(t, next, r.Start, "shard %d of %d starts where %d ended", i, n, i-1)
			require.LessOrEqual(t, r.Start, r.Last)
			next = r.Last + 1 // wraps to 0 after the top range
		}
		require.Zero(t, next, "the last of %d shards ends at 2^64", n)
	}
	_, err := shard.Split(2, 2)
	assert.Error(t, err)
	_, err = shard.Split(0, 0)
	assert.Error(t, err)
}

func TestStringIsTheDocumentedWireForm(t *testing.T) {
	want := []string{
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
		"shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
		"shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
	}
	for i, w := range want {
		s, err := shard.Of(i, 4)
		require.NoError(t, err)
		assert.Equal(t, w, s.String())
	}
	assert.Equal(t, "", shard.Selector{}.String())
	two := shard.Selector{Field: shard.Namespace, Ranges: []shard.Range{{Start: 0, Last: 0x3fffffffffffffff}, {Start: 0x8000000000000000, Last: 0xbfffffffffffffff}}}
	assert.Equal(t, "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000') || "+
		"shardRange(object.metadata.namespace, '0x8000000000000000', '0xc000000000000000')", two.String())
}

func TestParseRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var s shard.Selector
		s.Field = shard.UID
		if r.IntN(2) == 0 {
			s.Field = shard.Namespace
		}
		for range 1 + r.IntN(4) {
			a, b := r.Uint64(), r.Uint64()
			if a > b {
				a, b = b, a
			}
			if r.IntN(4) == 0 {
				b = math.MaxUint64
			}
			s.Ranges = append(s.Ranges, shard.Range{Start: a, Last: b})
		}
		got, err := shard.Parse(s.String())
		require.NoError(t, err, s.String())
		require.True(t, s.Equal(got), "%s parsed as %s", s, got)
		require.Equal(t, s.String(), got.String())
	}
}

// Inputs kube-apiserver v1.37's parser (a CEL expression walked for
// shardRange calls) accepts, and the canonical form it echoes.
func TestParseAcceptsWhatTheServerAccepts(t *testing.T) {
	for in, echo := range map[string]string{
		"shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')":                                                                                                   "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		"  shardRange( object . metadata . uid , \"0x8000000000000000\" , '0x10000000000000000' )\n":                                                                                  "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
		"(shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000001')) || (shardRange(object.metadata.namespace, '0xfffffffffffffffe', '0x10000000000000000'))": "shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000001') || shardRange(object.metadata.namespace, '0xfffffffffffffffe', '0x10000000000000000')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x4000000000000000', '0xc000000000000000')":                  "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x4000000000000000', '0xc000000000000000')",
	} {
		s, err := shard.Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, echo, s.String(), in)
	}
}

func TestParseRejectsWhatTheServerRejects(t *testing.T) {
	for in, msg := range map[string]string{
		"":    "empty shard selector",
		"   ": "empty shard selector",
		"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')":                                                                                      `unsupported field path "object.metadata.name"`,
		"shardRange(metadata.uid, '0x0000000000000000', '0x8000000000000000')":                                                                                              `unsupported field path "metadata.uid"`,
		"shardRange(object.metadata.uid, '0x0', '0x8000000000000000')":                                                                                                      `hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000', '0x1')":                                                                                "requires exactly 3 arguments, got 4",
		"shardRange(object.metadata.uid, '0x0000000000000000')":                                                                                                             "requires exactly 3 arguments, got 2",
		"shardRange(object.metadata.uid, '0X0000000000000000', '0x8000000000000000')":                                                                                       "hexStart must have '0x' prefix",
		"shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')":                                                                                       `invalid hex character "A"`,
		"shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')":                                                                                       "must be less than end",
		"shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')":                                                                                     "must be less than end",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')":                                                                                      "17-digit hex value must be '0x10000000000000000'",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x100000000000000000')":                                                                                     "hex value too long",
		"shardRange(object.metadata.uid, '0x', '0x8000000000000000')":                                                                                                       "hex value is required after '0x'",
		"shardRange(object.metadata.uid, 0, '0x8000000000000000')":                                                                                                          `unexpected "0`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && true":                                                                               "unexpected",
		"other(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')":                                                                                            `unsupported function "other"`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')": "all shard ranges must use the same field",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'":                                                                                        "expected ',' or ')'",
		"shardRange(object.metadata.uid, '0x0000000000000000, '0x8000000000000000')":                                                                                        "",
		strings.Repeat("(", 100) + "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" + strings.Repeat(")", 100):                                 "nested too deep",
	} {
		_, err := shard.Parse(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), msg, in)
		var pe *shard.ParseError
		assert.ErrorAs(t, err, &pe)
	}
}

func TestZeroSelectorSelectsEverything(t *testing.T) {
	var s shard.Selector
	assert.True(t, s.IsEverything())
	assert.True(t, s.Contains(obj{uid: "x"}))
	assert.NoError(t, s.Validate())
	assert.Error(t, shard.Selector{Field: "metadata.uid"}.Validate())
}

func TestNewRange(t *testing.T) {
	r, err := shard.NewRange(0, 0x8000000000000000)
	require.NoError(t, err)
	assert.Equal(t, "[0x0000000000000000, 0x8000000000000000)", r.String())
	assert.Equal(t, "[0x0000000000000000, 0x10000000000000000)", shard.Full.String())
	_, err = shard.NewRange(5, 5)
	assert.Error(t, err)
}

// TestRangeContainsBothOfItsEnds: a Range keeps its inclusive last hash, so
// Contains holds at Start and at Last and nowhere outside; at the seam of a
// split the last hash of shard i belongs to i and the next one to i+1, and
// 2^64-1 belongs to the last shard. (A Contains that treats Last as
// exclusive would drop one hash per shard, and an object whose hash is
// exactly that would be cached by nobody.)
func TestRangeContainsBothOfItsEnds(t *testing.T) {
	r, err := shard.NewRange(5, 11)
	require.NoError(t, err)
	for h, want := range map[uint64]bool{4: false, 5: true, 10: true, 11: false} {
		assert.Equal(t, want, r.Contains(h), "[5, 11) contains %d", h)
	}
	assert.True(t, shard.Full.Contains(0))
	assert.True(t, shard.Full.Contains(math.MaxUint64), "the last hash of the space")
	for _, n := range []int{2, 3, 7} {
		for i := range n - 1 {
			a, err := shard.Split(i, n)
			require.NoError(t, err)
			b, err := shard.Split(i+1, n)
			require.NoError(t, err)
			assert.True(t, a.Contains(a.Last) && !b.Contains(a.Last), "shard %d of %d owns its last hash %#x", i, n, a.Last)
			assert.True(t, b.Contains(a.Last+1) && !a.Contains(a.Last+1), "shard %d of %d owns %#x", i+1, n, a.Last+1)
		}
		last, err := shard.Split(n-1, n)
		require.NoError(t, err)
		assert.True(t, last.Contains(math.MaxUint64), "shard %d of %d owns 2^64-1", n-1, n)
	}
}
