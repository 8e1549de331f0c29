package kubeproto

import (
	"bytes"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// benchList builds a PodList of n copies of the real server's pod
// (testdata/real/pod.json, about 4.6 KB of indented JSON) in both forms.
func benchList(b *testing.B, n int) (js, pb []byte) {
	b.Helper()
	pod, err := os.ReadFile("testdata/real/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var w bytes.Buffer
	w.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(pod)
	}
	w.WriteString("]}")
	pb, err = AppendObjectProto(nil, w.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	js, err = AppendObjectJSON(nil, pb) // compact
	if err != nil {
		b.Fatal(err)
	}
	return js, pb
}

func BenchmarkAppendObjectJSON(b *testing.B) {
	_, pb := benchList(b, 500)
	b.SetBytes(int64(len(pb)))
	var out []byte
	for b.Loop() {
		var err error
		if out, err = AppendObjectJSON(out[:0], pb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/pod")
}

func BenchmarkAppendObjectProto(b *testing.B) {
	js, _ := benchList(b, 500)
	b.SetBytes(int64(len(js)))
	var out []byte
	for b.Loop() {
		var err error
		if out, err = AppendObjectProto(out[:0], js); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/pod")
}

// BenchmarkWalk compares the field reader of this package with
// google.golang.org/protobuf/encoding/protowire on the same job: visit
// every field of a PodList, descending into message fields by the schema.
func BenchmarkWalk(b *testing.B) {
	_, pb := benchList(b, 500)
	env, err := DecodeEnvelope(pb)
	if err != nil {
		b.Fatal(err)
	}
	list, _ := MessageFor("v1", "PodList")
	for _, c := range []struct {
		name string
		walk func([]byte, int32) int
	}{{"own", walkOwn}, {"protowire", walkProtowire}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(env.Raw)))
			n := 0
			for b.Loop() {
				n = c.walk(env.Raw, list.i-1)
			}
			b.ReportMetric(float64(n), "fields")
		})
	}
}

func childMessage(mi int32, num int) (int32, bool) {
	m := &messages[mi]
	if num > int(m.maxNum) {
		return 0, false
	}
	pos := byNum[int(m.byNum)+num-1]
	if pos == 0 {
		return 0, false
	}
	f := &fields[int(m.fields)+int(pos)-1]
	return int32(f.typ), f.kind == kMessage
}

func walkOwn(b []byte, mi int32) int {
	n := 0
	for off := 0; off < len(b); {
		num, typ, val, _, k, err := next(b[off:])
		if err != nil {
			return n
		}
		n++
		if typ == wireBytes {
			if c, ok := childMessage(mi, num); ok {
				n += walkOwn(val, c)
			}
		}
		off += k
	}
	return n
}

func walkProtowire(b []byte, mi int32) int {
	n := 0
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return n
		}
		b = b[k:]
		n++
		if typ == protowire.BytesType {
			val, k := protowire.ConsumeBytes(b)
			if k < 0 {
				return n
			}
			if c, ok := childMessage(mi, int(num)); ok {
				n += walkProtowire(val, c)
			}
			b = b[k:]
			continue
		}
		k = protowire.ConsumeFieldValue(num, typ, b)
		if k < 0 {
			return n
		}
		b = b[k:]
	}
	return n
}
