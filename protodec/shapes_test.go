package protodec_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

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

// template is a Go type that contains itself, as its message does:
// scheduling.k8s.io/v1beta1 CompositePodGroupTemplate holds a list of
// CompositePodGroupTemplates (with its v1alpha3 twin, the only message of
// the table that contains itself, and so the only one that nests without
// bound).
type template struct {
	Name     string     `json:"name"`
	Priority *int32     `json:"priority"`
	Children []template `json:"compositePodGroupTemplates"`
}

func templateMessage(t testing.TB) kubeproto.Message {
	m, ok := kubeproto.MessageByName("k8s.io.api.scheduling.v1beta1.CompositePodGroupTemplate")
	require.True(t, ok)
	return m
}

// nested returns a CompositePodGroupTemplate nested levels deep (the
// outermost counts as one), each level named and, as bits says level by
// level, with a priority and a leaf sibling beside the deeper template.
func nested(t testing.TB, levels int, bits uint64) []byte {
	m := templateMessage(t)
	num := func(name string) int {
		f, ok := m.FieldByJSON(name)
		require.True(t, ok, name)
		return f.Number()
	}
	name, prio, children := num("name"), num("priority"), num("compositePodGroupTemplates")
	str := func(b []byte, n int, s string) []byte {
		b = pbwire.AppendVarint(pbwire.AppendTag(b, n, pbwire.Bytes), uint64(len(s)))
		return append(b, s...)
	}
	b := str(nil, name, "leaf")
	for i := levels - 1; i > 0; i-- {
		lvl := str(nil, name, "t"+strings.Repeat("x", i%3))
		if bits>>(i%64)&1 != 0 {
			lvl = pbwire.AppendVarint(pbwire.AppendTag(lvl, prio, pbwire.Varint), uint64(i))
			lvl = str(pbwire.AppendVarint(pbwire.AppendTag(lvl, children, pbwire.Bytes), 6), name, "leaf")
		}
		lvl = pbwire.AppendVarint(pbwire.AppendTag(lvl, children, pbwire.Bytes), uint64(len(b)))
		b = append(lvl, b...)
	}
	return b
}

// maxLevels is how deep messages may nest, the outermost counted: the
// decoder's limit and the transcoder's (maxDepth in each).
const maxLevels = 100

// FuzzNestedTemplatesDecodeToTheDepthLimit checks a message that contains
// itself at every depth to past the limit: it decodes, as its JSON form
// does, when nested at most maxLevels deep, and fails, as the transcoder
// does, when deeper.
func FuzzNestedTemplatesDecodeToTheDepthLimit(f *testing.F) {
	for _, levels := range []uint8{1, 2, maxLevels - 1, maxLevels, maxLevels + 1, 200} {
		f.Add(levels, uint64(0x5555), uint64(levels))
	}
	m := templateMessage(f)
	f.Fuzz(func(t *testing.T, levels uint8, bits, seed uint64) {
		checkNested(t, m, int(levels), bits, seed)
	})
}

func checkNested(t *testing.T, m kubeproto.Message, levels int, bits, seed uint64) {
	t.Helper()
	levels = max(levels, 1) // nested makes one level of 0
	in := nested(t, levels, bits)
	if seed%2 == 1 {
		in = reshape(rand.New(rand.NewPCG(seed, bits)), m, in)
	}
	var v template
	err := New(Options{}).Unmarshal(m, in, &v)
	var whole map[string]any // decoded by its JSON form: the transcoder's limit
	werr := New(Options{}).Unmarshal(m, in, &whole)
	if (err == nil) != (levels <= maxLevels) || (werr == nil) != (levels <= maxLevels) {
		t.Fatalf("%d levels: decoding gives %.300v, by its JSON form %.300v", levels, err, werr)
	}
	if err != nil {
		require.ErrorContains(t, err, "nested deeper than")
		return
	}
	j, err := kubeproto.AppendJSON(nil, m, in)
	require.NoError(t, err)
	same[template](t, m, in, j)
	depth, p := 1, &v
	for ; len(p.Children) > 0; depth++ {
		p = &p.Children[len(p.Children)-1] // the deeper one follows the leaf sibling
	}
	require.Equal(t, levels, depth, "the levels decoded")
	require.Equal(t, "leaf", p.Name)
}

// TestATemplateNestsToTheDepthLimitAndNoDeeper: at maxLevels it decodes,
// one deeper it fails, on every path.
func TestATemplateNestsToTheDepthLimitAndNoDeeper(t *testing.T) {
	m := templateMessage(t)
	for _, levels := range []int{1, 2, maxLevels - 1, maxLevels, maxLevels + 1, maxLevels + 2, 255} {
		checkNested(t, m, levels, 0x0f0f, 0)
		checkNested(t, m, levels, 0xf0f0, 1)
	}
}

// Go types for an intstr.IntOrString (HTTPGetAction's port): a number, a
// string, either, a pointer, a narrower number.
type (
	portInt32 struct {
		Port int32 `json:"port"`
	}
	portInt64 struct {
		Port int64 `json:"port"`
	}
	portString struct {
		Port string `json:"port"`
	}
	portAny struct {
		Port any `json:"port"`
	}
	portPtr struct {
		Port *int64 `json:"port"`
	}
	portUint8 struct {
		Port uint8 `json:"port"`
	}
)

// intOrString returns an HTTPGetAction whose port is an IntOrString
// {1 type, 2 intVal, 3 strVal}, with each of the three fields present as
// present's bits 0 to 2 say.
func intOrString(t testing.TB, typ, intVal uint64, strVal []byte, present uint8) (kubeproto.Message, []byte) {
	m, ok := kubeproto.MessageByName("k8s.io.api.core.v1.HTTPGetAction")
	require.True(t, ok)
	f, ok := m.FieldByJSON("port")
	require.True(t, ok)
	var ios []byte
	if present&1 != 0 {
		ios = pbwire.AppendVarint(pbwire.AppendTag(ios, 1, pbwire.Varint), typ)
	}
	if present&2 != 0 {
		ios = pbwire.AppendVarint(pbwire.AppendTag(ios, 2, pbwire.Varint), intVal)
	}
	if present&4 != 0 {
		ios = append(pbwire.AppendVarint(pbwire.AppendTag(ios, 3, pbwire.Bytes), uint64(len(strVal))), strVal...)
	}
	b := pbwire.AppendVarint(pbwire.AppendTag(nil, f.Number(), pbwire.Bytes), uint64(len(ios)))
	return m, append(b, ios...)
}

// checkIntOrString checks that an IntOrString decodes into every Go type
// as its JSON form does, and that the form is the one client-go's
// IntValue reads: a string for type 1 (String), for any other type the
// 32-bit intVal. kube-apiserver writes only types 0 and 1; for another,
// its JSON encoder fails ("impossible IntOrString.Type"), while a protobuf
// client reads it as a number, so the decoder does too.
func checkIntOrString(t *testing.T, typ, intVal uint64, strVal []byte, present uint8) {
	t.Helper()
	m, in := intOrString(t, typ, intVal, strVal, present)
	j, err := kubeproto.AppendJSON(nil, m, in)
	require.NoError(t, err)
	var want any // as JSON decodes it into an any
	switch {
	case present&1 != 0 && typ == 1:
		want = ""
		if present&4 != 0 {
			want = string(bytes.ToValidUTF8(strVal, []byte("\uFFFD")))
		}
	case present&2 != 0:
		want = float64(int32(intVal))
	default:
		want = float64(0)
	}
	var p portAny
	require.NoError(t, New(Options{}).Unmarshal(m, in, &p), "%s", j)
	if utf8.Valid(strVal) { // else U+FFFD byte by byte: TestInvalidUTF8DecodesAsTheJSONPath
		require.Equal(t, want, p.Port, "type %d: %s", typ, j)
	}
	same[portInt32](t, m, in, j)
	same[portInt64](t, m, in, j)
	same[portString](t, m, in, j)
	same[portAny](t, m, in, j)
	same[portPtr](t, m, in, j)
	same[portUint8](t, m, in, j)
}

// FuzzIntOrStringDecodesAsTheJSONPath reaches every type of IntOrString,
// not only the 0 and 1 that the transcoder writes from JSON.
func FuzzIntOrStringDecodesAsTheJSONPath(f *testing.F) {
	for typ := range uint64(4) {
		f.Add(typ, uint64(8080), []byte("http"), uint8(7))
	}
	f.Add(uint64(1<<40|1), uint64(1<<63), []byte("\xff"), uint8(5))
	f.Fuzz(checkIntOrString)
}

// TestAnIntOrStringOfEveryTypeDecodesAsTheJSONPath: type 1 is a string,
// 0, 2 and every other type a number, with fields present or not.
func TestAnIntOrStringOfEveryTypeDecodesAsTheJSONPath(t *testing.T) {
	for _, typ := range []uint64{0, 1, 2, 3, 1 << 32, 1<<32 | 1, 1<<64 - 1} {
		for present := range uint8(8) {
			checkIntOrString(t, typ, 8080, []byte("http"), present)
			checkIntOrString(t, typ, 1<<64-1, []byte("80"), present)
			checkIntOrString(t, typ, 300, []byte(""), present)
		}
	}
}
