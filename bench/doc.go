// Package bench holds zerokube's end-to-end benchmarks (in its _test files)
// and the few helpers they share: exact latency percentiles and heap
// measurements.
//
// It sits at both ends of the data path at once. Package workload generates
// the bytes kube-apiserver would send; the benchmarks serve them from memory
// (an http.RoundTripper, to measure the client alone) or from fakeapiserver
// over loopback HTTP, and read them through apiclient, watchstream, fifo,
// cache and the informer up to the handlers. Component benchmarks live
// beside their packages; run.sh runs them all and writes a RESULTS.md
// (the committed one, which published figures come from, only with -write).
//
// Every speed figure is reported as a ratio to a floor measured in the same
// benchmark run — the time jsontext needs just to validate the same bytes —
// because these machines are shared and noisy; absolute numbers are printed
// too, for orientation only.
//
// Invariants:
//  1. Benchmarks are deterministic in their input: the same seed, the same
//     bytes (package workload).
//  2. With -benchtime 1x every benchmark finishes its setup in a few
//     seconds; the 50,000-pod variants run only with ZEROKUBE_BENCH_FULL=1.
//  3. Memory figures come from HeapAfterGC differences, never from
//     allocation counters: retained bytes are what a cache costs.
//  4. No benchmark leaves a goroutine behind (goleak checks the package).
package bench
