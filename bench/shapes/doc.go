// Package shapes measures what each request shape the library can make
// costs the API server, per object: the whole object or its metadata
// (PartialObjectMetadata), a LIST at resourceVersion 0 (served whole from
// the watch cache), a consistent LIST in pages of 500 or a streaming list
// (a watch with sendInitialEvents), protobuf or JSON, gzip or not, and
// cluster-wide or one request per node (fieldSelector spec.nodeName=…,
// a per-node agent's). docs/agents.md publishes the table and the choice
// of the informer's defaults it supports.
//
// Each shape's requests are sent with apiclient and decoded as the
// informer decodes them (into a slim pod or a metadata-only type,
// managedFields skipped, protobuf straight into the type), over one
// HTTP/2 connection per gzip setting, so what a sample counts is the
// request and its reply, not a connection's handshake (the same for
// every shape). A sample reads the CPU the API server's process (and
// etcd's) used over the shape's requests from /proc/PID/task/*/schedstat
// (nanoseconds, where /proc/PID/stat counts 10 ms ticks), less its idle
// rate, and this process's own CPU (getrusage) for the client's share.
// Rounds run every shape once, in an order shuffled each round, so a
// change in the machine's load (and the server's garbage collection,
// which one shape's garbage can start in the next one's window) spreads
// over every shape alike; the command holds the machine-wide measure lock
// (Lock) for a few rounds at a time, so other measurements can run in
// between.
//
// It sits beside the data path, as bench/fleet does: it reuses that
// package's server (kube-apiserver v1.37.2 and etcd from
// conformance/kube/build.sh's binaries) and its cluster loader.
//
// Linux only: the CPU it reads comes from /proc.
package shapes
