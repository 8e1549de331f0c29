//go:build zerokube_stdgzip

package gunzip

import "compress/gzip"

// Reader is a gzip reader with compress/gzip's API (Reset, Multistream,
// Read, Close): the standard library's, under the tag zerokube_stdgzip.
type Reader = gzip.Reader

// Name names the inflater, for tests and benchmarks.
const Name = "compress/gzip"
