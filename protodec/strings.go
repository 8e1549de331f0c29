package protodec

import (
	"hash/maphash"
	"unicode/utf8"
	"unsafe"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/meta"
)

// maxMemo is the longest string a stringMemo looks for among recent ones:
// names, label keys and values, phases, images. Longer ones (annotations
// holding documents) are seldom equal between objects.
const maxMemo = 64

// stringMemo remembers strings decoded recently, direct-mapped: a lookup is
// one hash and one comparison, a hit allocates nothing. Objects decoded
// one after another (the pods of one ReplicaSet, their namespace, their
// node) then share equal strings instead of holding copies, as they do
// when the JSON decoder reads them.
type stringMemo struct {
	seed  maphash.Seed
	slots *[512]string
}

func (m *stringMemo) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if !utf8.Valid(b) {
		return replaceInvalid(b)
	}
	if len(b) > maxMemo {
		return string(b)
	}
	if m.slots == nil {
		m.seed, m.slots = maphash.MakeSeed(), new([512]string)
	}
	slot := &m.slots[maphash.Bytes(m.seed, b)%uint64(len(m.slots))]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// replaceInvalid returns b with each byte that is not part of valid UTF-8
// replaced by U+FFFD. kube-apiserver's JSON for the same object says that
// (encoding/json writes a Go string so), while its protobuf carries the
// bytes as stored: a protobuf informer and a JSON one then hold the same
// string. client-go's protobuf decoding keeps the raw bytes instead.
func replaceInvalid(b []byte) string {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out = utf8.AppendRune(out, r) // RuneError for an invalid byte, n == 1
		b = b[n:]
	}
	return string(out)
}

// mapSource is a collected map<string,string> field, for meta.Sharer.
type mapSource struct {
	s   *state
	occ []occurrence
}

var _ meta.MapSource = (*mapSource)(nil)

// SameMap implements meta.MapSource.
func (ms *mapSource) SameMap(m map[string]string) bool {
	if len(ms.occ) != len(m) {
		return false
	}
	for _, o := range ms.occ {
		k, v, ok, err := entry(o.val)
		if err != nil {
			return false
		}
		val, err := entryString(v, ok)
		if err != nil {
			return false
		}
		if have, found := m[string(k)]; !found || have != string(val) {
			return false
		}
	}
	return true
}

// BuildMap implements meta.MapSource.
func (ms *mapSource) BuildMap() (map[string]string, error) {
	m := make(map[string]string, len(ms.occ))
	for _, o := range ms.occ {
		k, v, ok, err := entry(o.val)
		if err != nil {
			return nil, err
		}
		val, err := entryString(v, ok)
		if err != nil {
			return nil, err
		}
		m[ms.s.strs.get(k)] = ms.s.strs.get(val)
	}
	return m, nil
}

func entryString(v occurrence, ok bool) ([]byte, error) {
	if !ok {
		return nil, nil
	}
	if v.wt != pbwire.Bytes {
		return nil, errWireType(v.wt, pbwire.Bytes)
	}
	b, n := pbwire.ConsumeBytes(v.val)
	if n < 0 {
		return nil, errWire
	}
	return b, nil
}

// mapString decodes a map<string,string> field, through the Sharer if any.
func (s *state) mapString(loc unsafe.Pointer, occ []occurrence, key []byte) error {
	s.ms = mapSource{s: s, occ: occ}
	defer func() { s.ms = mapSource{} }()
	var m map[string]string
	var err error
	if sh := s.d.opts.Sharer; sh != nil {
		m, err = sh.ShareMap(key, &s.ms)
	} else {
		m, err = s.ms.BuildMap()
	}
	if err != nil {
		return err
	}
	*(*map[string]string)(loc) = m
	return nil
}
