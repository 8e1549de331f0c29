// Package watchstream reads every reply body the informer reads: LIST
// pages item by item and WATCH events (chunked HTTP and websocket, plain
// or gzipped), JSON and protobuf, and writes events in the same framing
// for servers.
//
// It sits between the connection and the reflector:
//
//	apiclient ──body / websocket──▶ watchstream ──items, Event[P]──▶ informer.Reflector
//
// apiclient sends requests and hands over bodies; this package only frames
// and decodes. It never retries or relists: what to do after an error is
// the informer's policy, and every error says enough to choose. It is the
// one room for reply bodies so that the same fault reads the same on every
// wire and verb: one error type, [*DecodeError], whose [Problem] (Malformed,
// Truncated, Undecodable, UnknownKind, TooLarge) the reflector classifies
// by ([ProblemOf]) without naming a decoder. A failure of the transport
// itself (a reset, a cancelled request) is not a DecodeError: the server's
// bytes were not at fault.
//
// [DecodeList] reads one LIST page, calling back with each item as it is
// decoded, so a page is never held whole; [DecodeObject] reads one object.
// Two framings are read. [New] reads the chunked HTTP body: a sequence of
// `{"type":…,"object":…}` values separated by newlines, with no relation
// between HTTP chunks and events, optionally gzipped one member per flush.
// [NewWebsocket] reads one event per message of a [MessageConn] (a
// websocket, which package apiclient/websocket dials). Both give a
// [Stream], whose [Stream.Next] (or [Stream.All]) yields an [Event] per frame
// with the object decoded straight into the caller's type: a slim struct of
// the fields it needs, or [meta.Raw] for everything.
//
// A protobuf watch (Options.ContentType kubeproto.ContentType, with an
// Options.Protobuf decoder) is read as length-prefixed frames of
// metav1.WatchEvent, each object decoded by protodec into the same P; over
// a websocket each binary message is one WatchEvent without the length
// (kube-apiserver's framing, checked in conformance). Events, errors and
// their numbering are the same in both encodings.
//
// Server side, [Encoder] and [AppendFrame] write the chunked framing,
// flushing per event and optionally gzipping one member per event; over a
// websocket a frame is one text message.
//
// Invariants:
//  1. Each object is decoded once, from the stream's buffer into a fresh P:
//     no intermediate map, no second pass over its bytes (unless "object"
//     precedes "type" in the envelope, when its bytes are kept until the
//     type says how to decode them). The Stream keeps no reference to a
//     delivered object.
//  2. Every way a stream ends is one of: io.EOF (clean end, a websocket
//     normal closure, or Stop); a wrapped *meta.StatusError (an ERROR event);
//     a *DecodeError naming the event number, byte offset and Problem (bad
//     input); the transport's own error; a stall (Problem Stalled); the context's
//     cause. No event is dropped silently, and after the first error every
//     Next returns it again. A protobuf object of a kind kubeproto's table
//     lacks ends the stream (UnknownKind): never decoded by its metadata
//     alone, which would hand over an object with its spec silently empty.
//  3. No event makes the decoder hold much more than Options.MaxEventSize
//     bytes: the reader under the JSON decoder refuses to go further.
//  4. Stop and context cancellation close the connection, which unblocks a
//     Next waiting on a silent peer; the stream starts no goroutine of its
//     own (only timer and context callbacks, which are released at the end).
//  5. Gzip members are inflated as they arrive: an event flushed in its own
//     member is delivered before the next member is written.
//  6. Each reply has one progress watchdog (Options.StallTimeout), which
//     counts objects, not bytes: a LIST's items (stepped-over ones too), a
//     watch's events and bookmarks. It runs on Options.Clock (the
//     project's one clock, package clock), and only while the reader
//     waits on the server: a slow consumer is not a silent peer. A stall
//     is a *DecodeError of Problem Stalled whichever verb it ends.
//     [TestStallTimeoutIgnoresASlowConsumer, TestStallTimeoutCountsEventsNotBytes,
//     TestAListStallsOnItemsNotBytes]
package watchstream
