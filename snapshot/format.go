package snapshot

import (
	"fmt"
	"hash/crc32"
	"log/slog"
	"strconv"
	"time"
)

// The file format, version 1. Integers are big-endian; every version keeps
// the first five fields, so a reader can verify the header before it knows
// whether it reads the version:
//
//	magic      8 bytes   "\x89ZKSNAP\n" (a high byte and a newline, as in PNG:
//	                     a transfer that mangles text or 8-bit bytes shows)
//	version    uint32    FormatVersion
//	headerLen  uint32    1 … MaxHeader
//	header     JSON      Header: identity, resourceVersion, count, time
//	headerCRC  uint32    CRC-32C of everything before it
//	records    count ×   { length uint32 (1 … ReadOptions.MaxRecord), JSON }
//	trailer    uint32    CRC-32C of everything before it, from the magic on
//
// and nothing after the trailer. The header has its own checksum so that an
// identity mismatch is known to be one (not a damaged byte) before the
// body is read; the trailer covers the whole file, so one pass detects any
// damage. CRC-32C (Castagnoli) is the checksum of iSCSI, ext4 and SCTP:
// computed in hardware on amd64 and arm64, it costs little next to JSON
// decoding, and it detects every burst error up to 32 bits.
const (
	Magic         = "\x89ZKSNAP\n"
	FormatVersion = 1
	// MaxHeader bounds the header: a reader never allocates more for it.
	MaxHeader = 64 << 10
	// DefaultMaxRecord bounds one record when ReadOptions.MaxRecord is 0:
	// past kube-apiserver's default 3 MiB request limit (etcd's 1.5 MiB
	// object limit, with room for a Transform that adds).
	DefaultMaxRecord = 16 << 20
)

// prefixLen is the size of magic, version and header length.
const prefixLen = 8 + 4 + 4 // len(Magic) + version + header length

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Identity is what a snapshot is a snapshot of. A snapshot is only loaded
// into an informer whose Identity is equal, field by field.
type Identity struct {
	// Server is the API server's base URL.
	Server string `json:"server"`
	// Cluster names the cluster behind Server, so that a cluster made anew
	// at the same address (its history started again, under the same
	// resourceVersion numbers) is not taken for the one the snapshot is
	// of. An informer sets it to the uid of the cluster's kube-system
	// namespace, the id tools commonly give a cluster; "" when it could
	// not read it (see informer.SnapshotOptions.Cluster).
	Cluster string `json:"cluster,omitempty"`
	// Group, Version and Resource name the resource ("", "v1", "pods").
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	// Namespace, "" for all namespaces.
	Namespace     string `json:"namespace"`
	LabelSelector string `json:"labelSelector"`
	FieldSelector string `json:"fieldSelector"`
	// Type is the Go type the objects decode into, with its package path,
	// e.g. "example.com/agent.Pod": another type may not read the JSON the
	// same way.
	Type string `json:"type"`
	// Shard is the shard selector the objects were listed with (its
	// ranges and the field it hashes), "" for all of them: a snapshot of
	// one shard lacks the others' objects.
	Shard string `json:"shard,omitempty"`
	// ManagedFields: the objects kept metadata.managedFields.
	ManagedFields bool `json:"managedFields,omitempty"`
	// Transform names the transform the objects went through before they
	// were cached: "" for none, else a version its author gives it (a
	// transform that changes must change it), or any fixed word.
	Transform string `json:"transform,omitempty"`
	// Request is the form the objects were asked for: "" for whole
	// objects, "PartialObjectMetadata" for their metadata only. A snapshot
	// of metadata lacks what a type of whole objects reads.
	Request string `json:"request,omitempty"`
}

// mismatch returns the first field in which got differs from id, with
// both values; "" when they are equal.
func (id Identity) mismatch(got Identity) (field, want, have string) {
	pairs := [...]struct{ name, want, got string }{
		{"server", id.Server, got.Server},
		{"cluster", id.Cluster, got.Cluster},
		{"group", id.Group, got.Group},
		{"version", id.Version, got.Version},
		{"resource", id.Resource, got.Resource},
		{"namespace", id.Namespace, got.Namespace},
		{"labelSelector", id.LabelSelector, got.LabelSelector},
		{"fieldSelector", id.FieldSelector, got.FieldSelector},
		{"type", id.Type, got.Type},
		{"shard", id.Shard, got.Shard},
		{"managedFields", strconv.FormatBool(id.ManagedFields), strconv.FormatBool(got.ManagedFields)},
		{"transform", id.Transform, got.Transform},
		{"request", id.Request, got.Request},
	}
	for _, p := range pairs {
		if p.want != p.got {
			return p.name, p.want, p.got
		}
	}
	return "", "", ""
}

// Header is the part of a snapshot before its objects.
type Header struct {
	Identity
	// ResourceVersion is the one the objects are in step with: a watch from
	// it misses nothing and repeats nothing.
	ResourceVersion string `json:"resourceVersion"`
	// Count is the number of records (objects) that follow.
	Count int64 `json:"count"`
	// Skipped counts the objects the writer's cache lacked because they
	// did not decode (an informer's SkipUndecodable): the snapshot is
	// incomplete, and a reader that resumes from it must list again to
	// get them.
	Skipped int `json:"skipped,omitzero"`
	// Saved is when the snapshot was taken; informational.
	Saved time.Time `json:"saved,omitzero"`
	// TLSSession is the TLS session the writer held with Server
	// (apiclient.Client.TLSSession), for the reader's client to resume:
	// it saves the server a full handshake, and a connection that resumed
	// it reached the server process the snapshot was taken from (the
	// informer then skips the requests that check the cluster and its
	// history). It is read only from a snapshot whose identity matched.
	// It is a secret: whoever holds it can resume the session and, where
	// the client authenticates with a certificate, be taken for the client
	// until the server's ticket expires; it needs the file's privacy (Dir:
	// 0600) and prints as "[redacted]".
	TLSSession Secret `json:"tlsSession,omitzero"`
}

// Secret is bytes that never print: every fmt verb and log/slog show
// "[redacted]" (or "" when empty), so a Header can be logged safely. JSON
// holds them whole (base64), as the snapshot file must.
type Secret []byte

// String is "[redacted]", or "" for none.
func (s Secret) String() string {
	if len(s) == 0 {
		return ""
	}
	return "[redacted]"
}

// GoString is String.
func (s Secret) GoString() string { return s.String() }

// Format makes every verb print String.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, s.String()) }

// LogValue is String: log/slog would print a []byte as text (and its
// JSON handler as base64) before looking for String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }
