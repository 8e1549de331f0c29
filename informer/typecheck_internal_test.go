package informer

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

type (
	slimOnly struct {
		meta.SlimMeta `json:"metadata"`
	}
	fullMetaWithKind struct {
		meta.TypeMeta
		meta.ObjectMeta `json:"metadata"`
	}
	withSpec struct {
		meta.SlimMeta `json:"metadata"`
		Spec          struct{ NodeName string } `json:"spec"`
	}
	withUntaggedField struct {
		meta.SlimMeta `json:"metadata"`
		Phase         string // encoded as "Phase": not metadata
	}
	withIgnoredField struct {
		meta.SlimMeta `json:"metadata"`
		Cache         string    `json:"-"`
		_             [0]func() // not comparable; holds nothing
	}
	withPrivateField struct {
		meta.SlimMeta `json:"metadata"`
		private       int
	}
	hidden              struct{ count int }
	withPrivateEmbedded struct {
		meta.SlimMeta `json:"metadata"`
		hidden
	}
	noMetadata struct {
		meta.TypeMeta
	}
	selfDecoding struct {
		meta.SlimMeta `json:"metadata"`
	}
	selfDecodingFrom struct {
		meta.SlimMeta `json:"metadata"`
	}
	selfDecodingText struct {
		meta.SlimMeta `json:"metadata"`
	}
	inlinedDecoder    struct{ selfDecodingFrom }
	valueReceiverJSON struct {
		meta.SlimMeta `json:"metadata"`
	}
)

func (*selfDecoding) UnmarshalJSON([]byte) error                        { return nil }
func (*selfDecodingFrom) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return dec.SkipValue() }
func (*selfDecodingText) UnmarshalText([]byte) error                    { return nil }
func (valueReceiverJSON) UnmarshalJSON([]byte) error                    { return nil }

// TestMetadataOnlyIsDecidedFromTheType: the rule that chooses
// PartialObjectMetadata, type by type.
func TestMetadataOnlyIsDecidedFromTheType(t *testing.T) {
	require.True(t, metadataOnly[slimOnly]())
	require.True(t, metadataOnly[fullMetaWithKind]())
	require.True(t, metadataOnly[withIgnoredField](), "a field JSON never reads is not a member")
	require.False(t, metadataOnly[withSpec](), "spec is more than metadata")
	require.False(t, metadataOnly[withUntaggedField](), "an untagged exported field is a member by its name")
	require.False(t, metadataOnly[noMetadata](), "no metadata member at all")
	require.False(t, metadataOnly[selfDecoding](), "a type that decodes itself may read anything")
	require.False(t, metadataOnly[meta.Raw](), "Raw keeps every byte")
}

// Issue #38: a type with a decoder of its own, in any form the JSON
// decoders call, or with state JSON does not fill, was fed metadata only.
func TestATypeThatDecodesItselfOrHidesStateIsNotMetadataOnly(t *testing.T) {
	for name, got := range map[string]bool{
		"UnmarshalJSONFrom":              metadataOnly[selfDecodingFrom](),
		"UnmarshalJSON":                  metadataOnly[selfDecoding](),
		"UnmarshalJSON on the value":     metadataOnly[valueReceiverJSON](),
		"UnmarshalText":                  metadataOnly[selfDecodingText](),
		"a decoder in an inlined struct": metadataOnly[inlinedDecoder](),
		"an unexported field":            metadataOnly[withPrivateField](),
		"an unexported embedded struct":  metadataOnly[withPrivateEmbedded](),
	} {
		assert.False(t, got, name)
	}
	o := Options[*selfDecodingFrom]{}
	require.False(t, asksMetadata[selfDecodingFrom](o), "the informer asks for whole objects")
}

// TestASnapshotOfMetadataIsNotOneOfWholeObjects: the snapshot identity
// covers the request shape, so a snapshot of metadata is not resumed by an
// informer that asks for whole objects.
func TestASnapshotOfMetadataIsNotOneOfWholeObjects(t *testing.T) {
	id := func(full bool) string {
		o := Options[*fullMetaWithKind]{Snapshot: SnapshotOptions{Dir: t.TempDir()}}
		o.Transport.FullObjects = full
		o = o.withDefaults()
		s := newSnapshotter[fullMetaWithKind](o, nil)
		return s.opts.Identity.Request
	}
	require.Equal(t, "PartialObjectMetadata", id(false))
	require.Equal(t, "", id(true))
}

// untagged forgets the json:"metadata" tag on its embedded SlimMeta.
type untagged struct {
	meta.SlimMeta
	Data map[string]string `json:"data,omitempty"`
}

func TestCheckTypeRefusesOnlyATypeThatLosesTheMetadata(t *testing.T) {
	require.ErrorContains(t, checkType[untagged](), "untagged does not decode an object's metadata")
	require.NoError(t, checkType[pod]())
	require.NoError(t, checkType[meta.Raw]())
}
