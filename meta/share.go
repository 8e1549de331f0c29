package meta

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Share says what a [Sharer] shares between the objects it decodes.
type Share uint8

// ShareMaps gives an object whose map is, byte for byte, the JSON of a map
// the Sharer decoded recently that same map instead of a copy. Pods of one
// ReplicaSet carry the same labels, and often the same annotations; a Go
// map of a few entries costs about 340 bytes before its strings (a header
// and one group of eight key/value slots).
//
// It is the only kind of sharing so far. Interning the maps' strings with
// the unique package was measured too (bench/README.md, the levers of
// issue #16) and saved nothing against kube-apiserver: the default decoder
// already reuses the strings of the last objects it read, and so does a
// Sharer.
const ShareMaps Share = 1

// A Sharer decodes the map[string]string values of objects (labels,
// annotations, and any other string map their type declares) so that the
// objects decoded through it share equal maps ([ShareMaps]). An informer
// made by informer.New decodes through one (informer.Options.Decode.Sharer).
//
// Shared maps must not be modified: they belong to every object that holds
// them. Objects in a cache are read-only anyway (cache/doc.go, invariant
// 4); an informer with a Transform, which may modify its argument, shares
// no maps.
//
// What a Sharer keeps is bounded: a table of [sharedMaps] slots, each
// holding the last map built whose hash falls in it (a later map with
// another hash in the same slot replaces it). A map it no longer holds
// lives only as long as objects hold it. It keeps no
// strings of its own: like the default decoder, it reuses the strings of
// recent objects, through a small cache that decoding goroutines borrow
// from a pool (which the garbage collector empties when idle).
//
// A Sharer is safe for concurrent use: an informer's LIST and WATCH decode
// through the same one, and informers may share one.
type Sharer struct {
	share Share
	seed  maphash.Seed
	unm   *json.Unmarshalers

	// maps are recent maps, direct-mapped by the hash of their encoding:
	// a lookup is one atomic load and a remember one atomic store, so the
	// LIST and WATCH decoders (and informers sharing a Sharer) never wait
	// on each other, where a mutex and a Go map cost every map decoded a
	// lock, a map lookup and, when full, a copy of the table.
	maps [sharedMaps]atomic.Pointer[sharedMap]
}

// sharedMap is one slot's map and the hash it was remembered by.
type sharedMap struct {
	hash uint64
	m    map[string]string
}

// sharedMaps bounds how many maps a Sharer remembers. Objects that share a
// map arrive close together (kube-apiserver lists by namespace and name,
// which puts the pods of one ReplicaSet side by side), so a table of a
// thousand slots (8 KB a Sharer) catches them: with 256, two of 50 label
// maps fell into one slot often enough that 2.5% of maps were built again
// (BenchmarkSharer), with 1,024 0.6%.
const sharedMaps = 1024

// maxRecent is the longest string a Sharer looks for among recent ones:
// longer values (annotations holding whole documents) are seldom equal
// between objects, and hashing them would cost more than it saves.
const maxRecent = 256

// NewSharer returns a Sharer that shares what share says. NewSharer(0)
// shares nothing: it decodes maps as the default decoder does.
func NewSharer(share Share) *Sharer {
	s := &Sharer{share: share, seed: maphash.MakeSeed()}
	s.unm = json.UnmarshalFromFunc(s.unmarshalMap)
	return s
}

// Shares reports what s shares.
func (s *Sharer) Shares() Share { return s.share }

// Unmarshalers returns the unmarshalers that decode map[string]string
// values through s: pass them to json.WithUnmarshalers, joined with others
// by json.JoinUnmarshalers.
func (s *Sharer) Unmarshalers() *json.Unmarshalers { return s.unm }

// unmarshalMap decodes a JSON object into a fresh map, or into a map s
// already holds. Anything else (null, a type error, a map the caller filled
// before, into which the default decoder merges) is left to the default
// decoder by returning errors.ErrUnsupported before reading anything.
func (s *Sharer) unmarshalMap(dec *jsontext.Decoder, m *map[string]string) error {
	if s.share == 0 || *m != nil || dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	v, err := dec.ReadValue() // validated under the decoder's options
	if err != nil {
		return err
	}
	h := maphash.Bytes(s.seed, v)
	if shared := s.recent(h); shared != nil && sameStringMap(v, shared) {
		*m = shared
		return nil
	}
	if *m, err = decodeStringMap(v); err != nil {
		return mapError(dec, v, err)
	}
	s.remember(h, *m)
	return nil
}

// recent is the map remembered for hash h, or nil.
func (s *Sharer) recent(h uint64) map[string]string {
	if e := s.maps[h%sharedMaps].Load(); e != nil && e.hash == h {
		return e.m
	}
	return nil
}

// remember keeps m as the map of hash h.
func (s *Sharer) remember(h uint64, m map[string]string) {
	s.maps[h%sharedMaps].Store(&sharedMap{hash: h, m: m})
}

// A MapSource is a map[string]string in some encoding other than JSON (a
// protobuf map field, say), for [Sharer.ShareMap].
type MapSource interface {
	// SameMap reports whether the map the source holds equals m.
	SameMap(m map[string]string) bool
	// BuildMap decodes the map the source holds into a new map.
	BuildMap() (map[string]string, error)
}

// ShareMap returns the map src holds: one s built before from an equal
// key, when src says it is the same map, or a new one src builds, which s
// then remembers. key is the source's encoding of the map (the same map
// should give the same key); src's SameMap guards against keys that
// collide, from any encoding. A Sharer that shares nothing only builds.
func (s *Sharer) ShareMap(key []byte, src MapSource) (map[string]string, error) {
	if s.share == 0 {
		return src.BuildMap()
	}
	h := maphash.Bytes(s.seed, key)
	if shared := s.recent(h); shared != nil && src.SameMap(shared) {
		return shared, nil
	}
	m, err := src.BuildMap()
	if err != nil {
		return nil, err
	}
	s.remember(h, m)
	return m, nil
}

// mapError returns the error the default decoder reports for v, the map
// just read from dec, with its position made whole ("within
// /items/1/data/v"): a Sharer fails as the default decoder would, and
// callers that report where an object went wrong (watchstream.DecodeError)
// keep working. err is returned if the default decoder finds no fault.
func mapError(dec *jsontext.Decoder, v jsontext.Value, err error) error {
	var m map[string]string
	var serr *json.SemanticError
	if !errors.As(json.Unmarshal(v, &m, jsontext.AllowDuplicateNames(true)), &serr) {
		return err
	}
	serr.JSONPointer = dec.StackPointer() + serr.JSONPointer
	serr.ByteOffset += dec.InputOffset() - int64(len(v))
	return serr
}

// decodeStringMap decodes v, a valid JSON object, into a new map. A null value decodes to "", as
// the default decoder does; a later duplicate name wins (v was validated
// under the decoder's rule for duplicate names).
func decodeStringMap(v []byte) (map[string]string, error) {
	m := make(map[string]string)
	rs := recentPool.Get().(*recentStrings)
	defer recentPool.Put(rs)
	var err error
	_, scanErr := eachMember(v, 0, func(_ int, name []byte, at int) (int, bool) {
		var key, val string
		var end int
		if key, err = rs.unquote(name); err != nil {
			return -1, false
		}
		if val, end, err = rs.stringMember(v, at); err != nil {
			err = fmt.Errorf("meta: the value of %q: %w", key, err)
			return -1, false
		}
		m[key] = val
		return end, true
	})
	if err == nil {
		err = scanErr
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// stringMember reads the value at v[at], a string or null, and returns it
// and the index just past it.
func (rs *recentStrings) stringMember(v []byte, at int) (string, int, error) {
	end, ok := valueEnd(v, at)
	if !ok {
		return "", -1, errScan
	}
	switch v[at] {
	case '"':
		s, err := rs.unquote(v[at:end])
		return s, end, err
	case 'n':
		return "", end, nil
	}
	return "", -1, fmt.Errorf("want a JSON string, got %v", jsontext.Value(v[at:end]).Kind())
}

// recentStrings remembers strings decoded recently, as the JSON decoder's
// own cache does for the objects one decoder reads: a map the Sharer builds
// would otherwise copy every key and value, where the default decoder
// reuses the strings of the last objects (measured against kube-apiserver:
// 120 bytes more per pod without it). It is direct-mapped, so a lookup is
// one hash and one comparison, and a hit allocates nothing.
type recentStrings struct {
	seed  maphash.Seed
	slots [512]string
}

// recentPool lends recentStrings to the maps being decoded: a cache per
// Sharer would cost every informer 8 KB, one per map would remember
// nothing, and a pooled one is dropped by the garbage collector when idle.
// What it holds are immutable strings, equal wherever they came from.
var recentPool = sync.Pool{New: func() any { return &recentStrings{seed: maphash.MakeSeed()} }}

// unquote returns the content of a valid quoted JSON string: a recent equal
// string when there is one, else a copy.
func (rs *recentStrings) unquote(q []byte) (string, error) {
	c := q[1 : len(q)-1]
	if bytes.IndexByte(c, '\\') >= 0 {
		u, err := jsontext.AppendUnquote(nil, q)
		if err != nil {
			return "", err
		}
		c = u
	}
	if len(c) == 0 || len(c) > maxRecent {
		return string(c), nil
	}
	slot := &rs.slots[maphash.Bytes(rs.seed, c)%uint64(len(rs.slots))]
	if *slot == string(c) {
		return *slot, nil
	}
	*slot = string(c)
	return *slot, nil
}

// sameStringMap reports whether v, a valid JSON object, decodes to a map
// equal to m. A duplicate name makes it report false (the member count no
// longer matches), which costs only a fresh map.
func sameStringMap(v []byte, m map[string]string) bool {
	n := 0
	same := true
	var buf []byte
	_, err := eachMember(v, 0, func(_ int, name []byte, at int) (int, bool) {
		end, ok := valueEnd(v, at)
		if !ok {
			return -1, false
		}
		k, ok := unescaped(name, &buf)
		have, found := m[string(k)]
		switch {
		case !ok || !found:
			same = false
		case v[at] == '"':
			val, ok := unescaped(v[at:end], &buf)
			same = ok && string(val) == have
		case v[at] == 'n':
			same = have == ""
		default:
			same = false
		}
		n++
		return end, same
	})
	return err == nil && same && n == len(m)
}

// unescaped returns the content of a valid quoted JSON string, unescaped
// into *buf when it has escapes.
func unescaped(q []byte, buf *[]byte) ([]byte, bool) {
	c := q[1 : len(q)-1]
	if bytes.IndexByte(c, '\\') < 0 {
		return c, true
	}
	u, err := jsontext.AppendUnquote((*buf)[:0], q)
	*buf = u
	return u, err == nil
}
