// Package snapshot saves an informer's cache to disk and reads it back, so
// that an agent restarting can resume watching from where it stopped
// instead of listing everything again (a warm restart).
//
// It sits beside the cache, outside the network path:
//
//	apiclient ─▶ watchstream ─▶ reflector ─▶ fifo ─▶ processing loop ─▶ cache
//	                                ▲                                    │
//	                 resume: WATCH from the saved rv        every period and at a
//	                                │                        clean stop: a consistent
//	                 snapshot (this package) ◀── Load ──── copy of the cache + its rv
//
// A snapshot holds the cached objects as the informer stored them (after
// Transform), as JSON, with the resourceVersion they are in step with and
// the [Identity] of what was watched and how the objects were shaped:
// server and cluster, group/version/resource, namespace, selectors, Go
// type, shard, request shape (whole objects or their metadata),
// managed-fields choice and transform. The package knows nothing of informers
// or Kubernetes objects: it is generic over the object type and encodes it
// with encoding/json's v2 API.
//
// The format (see [FormatVersion]) is a checksummed header, length-prefixed
// records and a checksum trailer. [Dir] is a [Store] of files written
// atomically; any other Store (a database, an object store) plugs in.
//
// # Invariants
//
// Each has at least one test (named in brackets).
//
//  1. Decoding is all or nothing: a snapshot that is truncated, damaged, of
//     another format version, of something else, or whose records no longer
//     decode into the type yields an *Error with its [Reason] and no object.
//     [TestATruncatedSnapshotIsRejectedAtEveryOffset,
//     TestACorruptByteIsRejectedAtEveryOffset,
//     TestAnotherFormatVersionIsRejectedAsSuch,
//     TestAnIdentityMismatchNamesTheField,
//     TestARecordThatNoLongerDecodesIsADecodeError]
//  2. Bad input never panics and never makes the reader allocate from a
//     length it has not checked: the header is bounded by MaxHeader, a
//     record by ReadOptions.MaxRecord and by the file's size when known,
//     and a record's buffer grows with the bytes actually read. [FuzzDecode,
//     TestARecordOverTheLimitIsRejectedBeforeItIsRead]
//  3. Reading streams: its memory is the objects it returns plus a 64 KiB
//     read buffer and one reused record buffer, never the whole file.
//     [BenchmarkDecode, whose bytes/op stay near the objects' size]
//  4. An identity mismatch is reported only for a header whose checksum is
//     good, naming the first field that differs, before the body is read.
//     [TestAnIdentityMismatchNamesTheField]
//  5. Dir.Save is atomic: it writes a temporary file in the same directory,
//     fsyncs it, renames it over the old one and fsyncs the directory. A
//     save that fails or is killed at any point leaves the previous
//     snapshot usable; its leftovers are removed by the next Save.
//     [TestAFailedSaveLeavesThePreviousSnapshot,
//     TestAKilledSaveLeavesThePreviousSnapshotUsable,
//     TestADamagedFileIsRejectedAndReplacedByTheNextSave]
//  6. Snapshots are private to their user: Dir creates its directory 0700
//     and its files 0600, since cached objects may be Secrets.
//     [TestDirKeepsSnapshotsPrivate]
//  7. The TLS session a header carries (Header.TLSSession, for the next
//     process to resume) comes back whole and never prints: fmt and
//     log/slog show "[redacted]". [TestATLSSessionComesBackWholeAndNeverPrints]
//
// # What a snapshot cannot know
//
// A URL does not name a cluster: a cluster made anew at the same address
// (recreated, restored from a backup, a fake server restarted) has another
// history under the same resourceVersion numbers. The identity therefore
// carries the cluster's id (Identity.Cluster; an informer reads the uid of
// the kube-system namespace), and a snapshot of another cluster is
// rejected before it is read. An agent not allowed to read that id names
// the cluster by its URL alone; for it, the server's answer to the resume
// is the check: a resourceVersion the server's history has not reached
// (the snapshot's, on a new history) is answered as kube-apiserver
// answers it, and a relist follows. Only a new history that has already
// grown past the saved number, on a cluster whose id cannot be read, can
// go unnoticed, exactly as it can for any informer that re-watches after
// a disconnection.
package snapshot
