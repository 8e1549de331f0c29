package watchstream_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// skipAll declares no JSON field at all: decoding into it measures the
// stream's own cost (envelope, limits, one allocation per event) over the
// floor, since every object is skipped.
type skipAll struct {
	meta.ObjectMeta `json:"-"`
}

// podJSON returns a pod-like object of about size bytes: realistic
// metadata (labels, owner, managedFields), padded with container env vars.
func podJSON(i, size int) string {
	var env strings.Builder
	for n := 0; ; n++ {
		if n > 0 {
			env.WriteByte(',')
		}
		fmt.Fprintf(&env, `{"name":"SETTING_%03d","value":"value-%d-of-a-typical-configuration-entry"}`, n, n)
		if env.Len() > size-1500 {
			break
		}
	}
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-%[1]d","generateName":"web-",`+
		`"namespace":"team-%[2]d","uid":"5f0c8a2e-%08[1]d-4e7b-9a1c-2b6d3f4e5a6b","resourceVersion":"%[3]d",`+
		`"creationTimestamp":"2024-05-06T07:08:09Z","labels":{"app":"web","pod-template-hash":"7d4b9c8f6d","tier":"frontend"},`+
		`"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-06T07:00:00Z"},`+
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c8f6d","uid":"0a1b2c3d-0000-4000-8000-000000000001","controller":true,"blockOwnerDeletion":true}],`+
		`"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-05-06T07:08:09Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{}}}}}]},`+
		`"spec":{"containers":[{"name":"app","image":"registry.example.com/web:1.2.3","env":[%[4]s],`+
		`"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"imagePullPolicy":"IfNotPresent"}],`+
		`"nodeName":"node-%[5]d","restartPolicy":"Always","serviceAccountName":"default"},`+
		`"status":{"phase":"Running","podIP":"10.1.%[5]d.%[6]d","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-06T07:08:19Z"}]}}`,
		i, i%7, 1000+i, env.String(), i%50, i%250)
}

// watchBody builds a chunked watch body of n events of about size bytes.
func watchBody(size, n int) []byte {
	var b []byte
	for i := range n {
		b = watchstream.AppendFrame(b, meta.Modified, []byte(podJSON(i, size)))
	}
	return b
}

var benchSizes = []struct {
	name         string
	size, events int
}{
	{"1KB", 1 << 10, 4000},
	{"5KB", 5 << 10, 1000},
	{"50KB", 50 << 10, 100},
}

func BenchmarkDecode(b *testing.B) {
	for _, sz := range benchSizes {
		body := watchBody(sz.size, sz.events)
		b.Run(sz.name+"/floor", func(b *testing.B) {
			run(b, body, sz.events, func(r io.Reader) (int, error) {
				dec := jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true)) // the stream's own options
				n := 0
				for {
					if err := dec.SkipValue(); err != nil {
						if err == io.EOF {
							return n, nil
						}
						return n, err
					}
					n++
				}
			})
		})
		b.Run(sz.name+"/envelope", func(b *testing.B) {
			run(b, body, sz.events, decodeAll[skipAll])
		})
		b.Run(sz.name+"/raw", func(b *testing.B) {
			run(b, body, sz.events, decodeAll[meta.Raw])
		})
		b.Run(sz.name+"/slim", func(b *testing.B) {
			run(b, body, sz.events, decodeAll[workload.SlimPod])
		})
	}
}

// BenchmarkDecodeGzip decodes 5 KB events sent one gzip member per event,
// as kube-apiserver compresses watch-list streams. MB/s counts the
// uncompressed JSON, so it compares with BenchmarkDecode/5KB/slim.
func BenchmarkDecodeGzip(b *testing.B) {
	const size, events = 5 << 10, 1000
	plain := watchBody(size, events)
	var zipped bytes.Buffer
	enc := watchstream.NewEncoder(&zipped, watchstream.EncoderOptions{Gzip: true})
	for i := range events {
		if err := enc.WriteFrame(watchstream.AppendFrame(nil, meta.Modified, []byte(podJSON(i, size)))); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := watchstream.New[workload.SlimPod](context.Background(), io.NopCloser(bytes.NewReader(zipped.Bytes())),
			watchstream.Options{ContentEncoding: "gzip"})
		n := 0
		for _, err := range s.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != events {
			b.Fatalf("decoded %d of %d events", n, events)
		}
	}
	b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(zipped.Len())/float64(len(plain)), "gzip-ratio")
}

func decodeAll[T any, P meta.PtrObject[T]](r io.Reader) (int, error) {
	s := watchstream.New[T, P](context.Background(), io.NopCloser(r), watchstream.Options{})
	n := 0
	for _, err := range s.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// run decodes body b.N times and reports events/s; MB/s comes from SetBytes.
func run(b *testing.B, body []byte, events int, decode func(io.Reader) (int, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n, err := decode(bytes.NewReader(body))
		if err != nil || n != events {
			b.Fatalf("decoded %d of %d events: %v", n, events, err)
		}
	}
	b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
}
