package shard_test

import (
	"testing"

	"github.com/zerokube/zerokube/shard"
)

// FuzzParse: no input panics, and whatever parses prints back to a selector
// that parses to the same thing (invariant 4).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000') || shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000010')",
		"((shardRange(object.metadata.uid,\"0x0000000000000000\",'0x10000000000000000')))",
		"shardRange(object.metadata.uid, '0x0', '0x8')",
		"shardRange(", "||", "// comment\nshardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := shard.Parse(in)
		if err != nil {
			return
		}
		if s.IsEverything() {
			t.Fatalf("%q parsed to a selector with no ranges", in)
		}
		again, err := shard.Parse(s.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", in, s.String(), err)
		}
		if !again.Equal(s) {
			t.Fatalf("%q: %s parsed back as %s", in, s, again)
		}
	})
}
