package ring_test

import (
	"fmt"

	"github.com/zerokube/zerokube/internal/ring"
)

// A Ring is a FIFO: Push at the tail, Pop at the head, PushFront to put
// something back first. An emptied ring that a burst grew past KeepEmpty
// holds no buffer.
func ExampleRing() {
	var r ring.Ring[string]
	r.Push("b")
	r.Push("c")
	r.PushFront("a")
	for r.Len() > 0 {
		fmt.Print(r.Pop())
	}
	fmt.Println()
	for i := range 2 * ring.KeepEmpty {
		r.Push(fmt.Sprint(i))
	}
	for r.Len() > 0 {
		r.Pop()
	}
	fmt.Println("buffer after a burst:", r.Cap())
	// Output:
	// abc
	// buffer after a burst: 0
}
