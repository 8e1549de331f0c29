package protodec_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	. "github.com/zerokube/zerokube/protodec"
)

// The fuzz targets of fuzz_test.go feed the decoder what kubeproto's
// transcoder writes from JSON: kube-apiserver's shapes only, each field's
// occurrences together, in field order, every varint in its fewest bytes,
// only pods, int-or-strings of types 0 and 1. The targets here reach the
// shapes a conforming encoder may also write: fields in any order (a map
// or list split by other fields), lengths and numbers in more bytes than
// needed, a message nested in itself to the depth limit and past it, an
// int-or-string of any type.

// reshape returns message b of m written as another conforming encoder
// might write it, which every protobuf parser reads as the same message:
// the occurrences of each field keep their order (a list's elements, a
// map's entries, the last of a scalar winning) while the runs of different
// fields are interleaved at random, every message field is reshaped in
// turn, and lengths and varint values take extra bytes at random. b must
// be well-formed (the transcoder's output).
func reshape(r *rand.Rand, m kubeproto.Message, b []byte) []byte {
	type occ struct {
		num int
		wt  pbwire.Type
		val []byte // as it follows the tag
	}
	var queues [][]occ // by field, in order of first occurrence
	at := map[int]int{}
	for len(b) > 0 {
		num, wt, n := pbwire.ConsumeTag(b)
		k := pbwire.ConsumeValue(wt, b[n:])
		if n < 0 || k < 0 {
			panic("reshape: malformed input")
		}
		i, ok := at[num]
		if !ok {
			i = len(queues)
			at[num] = i
			queues = append(queues, nil)
		}
		queues[i] = append(queues[i], occ{num, wt, b[n : n+k]})
		b = b[n+k:]
	}
	var out []byte
	for len(queues) > 0 {
		i := r.IntN(len(queues))
		o := queues[i][0]
		if queues[i] = queues[i][1:]; len(queues[i]) == 0 {
			queues = append(queues[:i], queues[i+1:]...)
		}
		out = pbwire.AppendTag(out, o.num, o.wt)
		switch o.wt {
		case pbwire.Varint:
			x, _ := pbwire.ConsumeVarint(o.val)
			out = appendPadded(out, x, r.IntN(3))
		case pbwire.Bytes:
			v, _ := pbwire.ConsumeBytes(o.val)
			if f, ok := m.FieldByNumber(o.num); ok && f.Message().Valid() {
				v = reshape(r, f.Message(), v)
			}
			out = appendPadded(out, uint64(len(v)), r.IntN(3))
			out = append(out, v...)
		default:
			out = append(out, o.val...)
		}
	}
	return out
}

// appendPadded appends x as a varint of extra bytes more than it needs (at
// most 10 in all): 0 as 0x80 0x00, say. Protobuf parsers read it as x.
func appendPadded(b []byte, x uint64, extra int) []byte {
	n := len(pbwire.AppendVarint(nil, x))
	n = min(n+extra, pbwire.MaxVarintLen)
	for range n - 1 {
		b = append(b, byte(x&0x7f)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// ptrs declares as pointers fields that JSON leaves out when empty (a
// pointer then stays nil): the decoder must leave them nil for an empty
// value however many bytes encode it.
type ptrs struct {
	Metadata struct {
		Namespace  *string `json:"namespace"`
		Generation *int64  `json:"generation"`
	} `json:"metadata"`
	Spec struct {
		NodeName    *string `json:"nodeName"`
		HostNetwork *bool   `json:"hostNetwork"`
		Containers  []struct {
			Ports []struct {
				HostPort *int32 `json:"hostPort"`
			} `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase *string `json:"phase"`
	} `json:"status"`
}

// FuzzReshapedPodsDecodeAsTheJSONPath checks that a pod reshaped as
// another encoder might write it (split maps and lists, fields in any
// order, long varints; reshape) transcodes to the same JSON as the pod
// did, and decodes into every kind of Go type (meta.Raw under
// SkipManagedFields, whose metadata holds managedFields, included) as
// that JSON does.
func FuzzReshapedPodsDecodeAsTheJSONPath(f *testing.F) {
	for i, j := range (workload.Config{PodSize: 9 << 10}).Pods(3) {
		f.Add(j, uint64(i))
	}
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"","generation":0,"labels":{"x":"1","y":"2","z":"3"},`+
		`"finalizers":["a","b"],"managedFields":[{"manager":"m"}]},"spec":{"hostNetwork":false,`+
		`"containers":[{"name":"c","ports":[{"containerPort":1,"hostPort":0}]}]},"status":{"phase":""}}`), uint64(7))
	m, _ := kubeproto.MessageFor("v1", "Pod")
	f.Fuzz(func(t *testing.T, js []byte, seed uint64) {
		pb, err := kubeproto.AppendProto(nil, m, js)
		if err != nil {
			return // not a pod the transcoder encodes
		}
		j2, err := kubeproto.AppendJSON(nil, m, pb)
		if err != nil {
			t.Fatalf("the transcoder cannot read back what it wrote: %v", err)
		}
		re := reshape(rand.New(rand.NewPCG(seed, seed)), m, pb)
		j3, err := kubeproto.AppendJSON(nil, m, re)
		if err != nil || !bytes.Equal(j2, j3) {
			t.Fatalf("the reshaped pod transcodes otherwise (%v):\n%s\n%s", err, j2, j3)
		}
		checkReshaped(t, m, re, j2)
	})
}

// checkReshaped checks that pb decodes into each kind of Go type as its
// JSON form j does.
func checkReshaped(t *testing.T, m kubeproto.Message, pb, j []byte) {
	t.Helper()
	same[workload.Pod](t, m, pb, j)
	same[workload.SlimPod](t, m, pb, j)
	same[meta.Raw](t, m, pb, j)
	same[odd](t, m, pb, j) // not the path: each path names the first fault it meets, in its own order
	same[ptrs](t, m, pb, j)
}

// TestReshapedPodsDecodeAsTheJSONPath is the fuzz target's seeds with a
// few seeds of reshape each: it fails in a second where the target would
// need fuzzing, on a Raw whose split labels sit beside managedFields and
// on a zero written in two bytes among them.
func TestReshapedPodsDecodeAsTheJSONPath(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	for i, js := range (workload.Config{PodSize: 9 << 10}).Pods(4) {
		pb, err := kubeproto.AppendProto(nil, m, js)
		require.NoError(t, err)
		j, err := kubeproto.AppendJSON(nil, m, pb)
		require.NoError(t, err)
		for seed := range uint64(8) {
			re := reshape(rand.New(rand.NewPCG(seed, uint64(i))), m, pb)
			j3, err := kubeproto.AppendJSON(nil, m, re)
			require.NoError(t, err)
			require.Equal(t, string(j), string(j3))
			checkReshaped(t, m, re, j)
		}
	}
}

// TestAZeroInMoreBytesThanNeededIsEmpty: an empty string whose length is
// written 0x80 0x00, and a zero number so written, are empty as their
// one-byte forms are: JSON leaves them out, so a pointer stays nil.
func TestAZeroInMoreBytesThanNeededIsEmpty(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	f := func(path string) int {
		msg, num := m, 0
		for _, name := range strings.Split(path, ".") {
			fd, ok := msg.FieldByJSON(name)
			require.True(t, ok, name)
			msg, num = fd.Message(), fd.Number()
		}
		return num
	}
	var meta, spec []byte
	meta = appendPadded(pbwire.AppendTag(meta, f("metadata.namespace"), pbwire.Bytes), 0, 1)
	meta = appendPadded(pbwire.AppendTag(meta, f("metadata.generation"), pbwire.Varint), 0, 2)
	spec = appendPadded(pbwire.AppendTag(spec, f("spec.nodeName"), pbwire.Bytes), 0, 1)
	spec = appendPadded(pbwire.AppendTag(spec, f("spec.hostNetwork"), pbwire.Varint), 0, 1)
	var in []byte
	in = pbwire.AppendVarint(pbwire.AppendTag(in, f("metadata"), pbwire.Bytes), uint64(len(meta)))
	in = append(in, meta...)
	in = pbwire.AppendVarint(pbwire.AppendTag(in, f("spec"), pbwire.Bytes), uint64(len(spec)))
	in = append(in, spec...)
	j, err := kubeproto.AppendJSON(nil, m, in)
	require.NoError(t, err)
	var p ptrs
	require.NoError(t, New(Options{}).Unmarshal(m, in, &p))
	require.Nil(t, p.Metadata.Namespace, "%s", j)
	require.Nil(t, p.Metadata.Generation)
	require.Nil(t, p.Spec.NodeName)
	require.Nil(t, p.Spec.HostNetwork)
	same[ptrs](t, m, in, j)
}
