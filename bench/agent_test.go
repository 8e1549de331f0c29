package bench_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkAgentSync is the agent's own share of a sync as
// bench/clientgo measures it against kube-apiserver, without the server
// or the network: an informer with its defaults syncs 10,000 pods of the
// client-go workload (9 KiB, managedFields recording atomic lists whole)
// from one protobuf PodList reply, gzipped at level 1 as kube-apiserver
// gzips a large reply (compress/gzip, BestSpeed), in kube-apiserver's order. What is left is what the
// client pays: inflating, protobuf decoding, the delta queue, the cache.
// cpu-µs/pod is the process's CPU per pod, the figure the comparison's
// "client CPU / pod" column gives; profile it with -cpuprofile.
func BenchmarkAgentSync(b *testing.B) {
	const n = 10000
	f := apiserverOrder(b, configFixture(b, n, clientGoConfig))
	body := protobufList(b, f.items)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	if _, err := zw.Write(body); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d pods: %d bytes of protobuf (%.1f KB a pod), %d gzipped", n, len(body), float64(len(body))/n/1000, gz.Len())
	// gzip=false is the same reply uncompressed, as a client that does
	// not ask for gzip (apiclient.Config.DisableCompression) gets it: what
	// inflating costs the client.
	for _, zipped := range []bool{true, false} {
		c, err := apiclient.NewWithOptions(&apiclient.Config{Host: "http://127.0.0.1:1", QPS: -1, DisableCompression: !zipped},
			apiclient.Options{Transport: listTransport{body: body, gzipped: gz.Bytes()}})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("gzip=%v/type=slim", zipped), func(b *testing.B) { agentSync[workload.SlimPod](b, c, n) })
		b.Run(fmt.Sprintf("gzip=%v/type=raw", zipped), func(b *testing.B) { agentSync[meta.Raw](b, c, n) })
	}
}

func agentSync[T any, P meta.PtrObject[T]](b *testing.B, c *apiclient.Client, n int) {
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		start := bench.ProcessCPU()
		r, err := startInformer[T, P](c, informer.Options[P]{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = r.inf.WaitForSync(ctx)
		cancel()
		cpu += bench.ProcessCPU() - start
		if err != nil {
			b.Fatal(err)
		}
		if got := r.inf.Store().Len(); got != n {
			b.Fatalf("synced %d objects, want %d", got, n)
		}
		b.StopTimer()
		if err := r.stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(n), "cpu-µs/pod")
}

// protobufList is items (JSON pods) as kube-apiserver's protobuf PodList.
func protobufList(tb testing.TB, items [][]byte) []byte {
	tb.Helper()
	pod, ok := kubeproto.MessageFor("v1", "Pod")
	if !ok {
		tb.Fatal("no v1 Pod in kubeproto's table")
	}
	raw := kubeproto.AppendListMeta(nil, kubeproto.ListMeta{ResourceVersion: "100000"})
	for _, it := range items {
		msg, err := kubeproto.AppendProto(nil, pod, it)
		if err != nil {
			tb.Fatal(err)
		}
		raw = kubeproto.AppendListItem(raw, msg)
	}
	return kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodList", Raw: raw})
}

// listTransport answers every LIST with one protobuf reply, gzipped when
// the request accepts gzip, and every WATCH with a stream that stays
// silent until it is closed.
type listTransport struct{ body, gzipped []byte }

func (t listTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp := &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, ContentLength: -1, Request: r}
	if r.URL.Query().Get("watch") != "" {
		resp.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
		resp.Body = &idleBody{ctx: r.Context(), closed: make(chan struct{})}
		return resp, nil
	}
	resp.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
	body := t.body
	if r.Header.Get("Accept-Encoding") == "gzip" {
		resp.Header.Set("Content-Encoding", "gzip")
		body = t.gzipped
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
