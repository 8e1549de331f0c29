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
// server, group/version/resource, namespace, selectors, Go type, shard,
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
//
// # What a snapshot cannot know
//
// The identity names a server by its URL. A server whose storage was
// restored from a backup, or a fake server restarted on the same address,
// has another history under the same URL: a watch from the saved
// resourceVersion then fails (410 Gone, or 504 when the number is in the
// new history's future) and the informer relists, which reconciles the
// cache. Only a new history that has already grown past the saved number
// can go unnoticed, exactly as it can for any informer that re-watches
// after a disconnection.
package snapshot
