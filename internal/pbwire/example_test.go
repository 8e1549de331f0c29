package pbwire_test

import (
	"fmt"

	"github.com/zerokube/zerokube/internal/pbwire"
)

// Walking a message field by field: a metav1.ObjectMeta with a name (field
// 1) and a generation (field 7), then a cut field.
func ExampleNext() {
	var b []byte
	b = pbwire.AppendTag(b, 1, pbwire.Bytes)
	b = pbwire.AppendVarint(b, 3)
	b = append(b, "web"...)
	b = pbwire.AppendVarint(pbwire.AppendTag(b, 7, pbwire.Varint), 42)
	b = append(pbwire.AppendTag(b, 3, pbwire.Bytes), 9, 'n') // claims 9 bytes, holds 1
	for len(b) > 0 {
		f, n := pbwire.Next(b)
		if n < 0 {
			fmt.Println("error:", pbwire.Err(n))
			return
		}
		if f.Type == pbwire.Bytes {
			fmt.Printf("field %d: %q\n", f.Num, f.Val)
		} else {
			fmt.Printf("field %d: %d\n", f.Num, f.X)
		}
		b = b[n:]
	}
	// Output:
	// field 1: "web"
	// field 7: 42
	// error: truncated
}
