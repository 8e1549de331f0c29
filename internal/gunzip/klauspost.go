//go:build !zerokube_stdgzip

package gunzip

import "github.com/klauspost/compress/gzip"

// Reader is a gzip reader with compress/gzip's API (Reset, Multistream,
// Read, Close): klauspost/compress's.
type Reader = gzip.Reader

// Name names the inflater, for tests and benchmarks.
const Name = "klauspost/compress"
