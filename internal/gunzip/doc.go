// Package gunzip chooses the gzip reader of apiclient (LIST replies) and
// watchstream (watch streams, one member per event): klauspost/compress's
// by default, the standard library's compress/gzip when the program is
// built with the tag zerokube_stdgzip.
//
// klauspost's inflater takes about half the CPU of compress/gzip and
// allocates its tables once (bench/clientgo/inflate: BenchmarkInflate;
// watchstream's BenchmarkDecodeGzip), which matters to an informer whose
// LISTs kube-apiserver gzips (every reply over 128 KiB that accepts gzip).
// It also costs about 0.1 MB of binary, and net/http links compress/gzip
// anyway. An agent whose replies stay small, such as one watching its
// node's pods, gets none gzipped and can build with -tags zerokube_stdgzip
// to link one inflater instead of two (bench/README.md, "The agent's
// footprint"). A build tag, as net/http's nethttpomithttp2, because the
// choice changes no behaviour but speed and size.
package gunzip
