package reliability

import "fmt"

// Example_divergence shows how the suites report a cache or a handler view
// that differs from the server: keys missing, keys extra, and keys at the
// wrong resourceVersion, each with the version seen.
func Example_divergence() {
	server := state{"ns/a": "7", "ns/b": "9", "ns/c": "3"}
	handler := state{"ns/a": "7", "ns/b": "8", "ns/d": "5"}
	fmt.Println(diff(server, handler))
	fmt.Printf("%q\n", diff(server, server))
	// Output:
	// missing [ns/c@3] extra [ns/d@5] stale [ns/b@8(want 9)]
	// ""
}
