package observe

import (
	"strconv"
	"strings"
)

// Verb is what kind of request a Request was.
type Verb uint8

// The verbs an informer sends to read a resource.
const (
	VerbList          Verb = iota + 1 // a LIST (its first page: the relist event)
	VerbStreamingList                 // a WATCH with sendInitialEvents=true
	VerbWatch                         // a WATCH from a resourceVersion
)

var verbNames = [...]string{VerbList: "list", VerbStreamingList: "streaming-list", VerbWatch: "watch"}

// String returns the verb's short name, e.g. "streaming-list".
func (v Verb) String() string {
	if int(v) < len(verbNames) && verbNames[v] != "" {
		return verbNames[v]
	}
	return "verb(?)"
}

// MarshalText writes the short name, so that a Request in JSON reads as
// the trace prints it.
func (v Verb) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Request is the shape of a request the informer sent to read its
// resource, and why each part of it was chosen: a relist event carries
// the LIST's or streaming list's, a watch-opened event the WATCH's. What
// a shape costs the API server per object is docs/agents.md's table ("The
// cheapest request"); the trace says which shape each request had.
type Request struct {
	Verb Verb
	// ResourceVersion and ResourceVersionMatch as sent: "" a consistent
	// read, "0" any state (kube-apiserver's watch cache answers), N with
	// NotOlderThan at least N.
	ResourceVersion, ResourceVersionMatch string
	// Limit is a LIST's page size (0: one reply).
	Limit int64
	// Protobuf: the request asked for protobuf (JSON as the fallback);
	// otherwise JSON only.
	Protobuf bool
	// Gzip: the request accepted a gzipped reply.
	Gzip bool
	// Metadata: the request asked for PartialObjectMetadata.
	Metadata                     bool
	LabelSelector, FieldSelector string
	// ShardSelector is the shard's selector as sent (Options.Shard: the
	// shardSelector parameter, KEP-5866); "" without a shard.
	ShardSelector string
	// Why says why, one reason per choice: "metadata-only: the type reads
	// only metadata", "rv=0: any state, served from the watch cache", ….
	Why []string
}

// String renders the shape on one line, e.g. "list rv=0 limit=500
// protobuf gzip metadata fieldSelector=spec.nodeName=n1"; a shard's
// selector comes last.
func (r Request) String() string {
	rv := r.ResourceVersion
	if rv == "" {
		rv = `""` // a consistent read, said so
	}
	parts := []string{r.Verb.String(), "rv=" + rv}
	if r.ResourceVersionMatch != "" {
		parts = append(parts, "match="+r.ResourceVersionMatch)
	}
	if r.Limit > 0 {
		parts = append(parts, "limit="+strconv.FormatInt(r.Limit, 10))
	}
	if r.Protobuf {
		parts = append(parts, "protobuf")
	} else {
		parts = append(parts, "json")
	}
	if r.Gzip {
		parts = append(parts, "gzip")
	}
	if r.Metadata {
		parts = append(parts, "metadata")
	} else {
		parts = append(parts, "whole")
	}
	if r.LabelSelector != "" {
		parts = append(parts, "labelSelector="+r.LabelSelector)
	}
	if r.FieldSelector != "" {
		parts = append(parts, "fieldSelector="+r.FieldSelector)
	}
	if r.ShardSelector != "" {
		// Last: the selector has spaces ("shardRange(object.metadata.uid,
		// '0x…', '0x…')"), and after it nothing else needs telling apart.
		parts = append(parts, "shardSelector="+r.ShardSelector)
	}
	return strings.Join(parts, " ")
}
