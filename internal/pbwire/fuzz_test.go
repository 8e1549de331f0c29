package pbwire_test

import (
	"bytes"
	"testing"

	"github.com/zerokube/zerokube/internal/pbwire"
)

// FuzzNext walks any bytes field by field: no panic, no read past the
// input (invariant 1), and the pieces agree with each other.
func FuzzNext(f *testing.F) {
	f.Add([]byte{0x0a, 0x03, 'w', 'e', 'b', 0x38, 0x2a})
	f.Add([]byte{0x09, 1, 2, 3, 4, 5, 6, 7, 8, 0x15, 1, 2, 3, 4})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		b = b[:len(b):len(b)] // no capacity past the input
		for len(b) > 0 {
			fld, n := pbwire.Next(b)
			if n < 0 {
				if pbwire.Err(n) == nil {
					t.Fatalf("failure %d without a cause", n)
				}
				return
			}
			if n > len(b) || n == 0 {
				t.Fatalf("consumed %d of %d bytes", n, len(b))
			}
			_, _, tn := pbwire.ConsumeTag(b)
			if got := pbwire.ConsumeValue(fld.Type, b[tn:]); tn+got != n || !bytes.Equal(b[tn:n], fld.Raw) {
				t.Fatalf("Next says %d bytes, ConsumeTag and ConsumeValue %d+%d", n, tn, got)
			}
			tag, rn, err := pbwire.ReadVarint(bytes.NewReader(b))
			if num, typ, e := pbwire.SplitTag(tag); err != nil || rn != tn || e < 0 || num != fld.Num || typ != fld.Type {
				t.Fatalf("ReadVarint and SplitTag read another tag: %d %d %v", num, typ, err)
			}
			b = b[n:]
		}
	})
}
