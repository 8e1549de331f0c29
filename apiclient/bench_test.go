package apiclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// podListJSON builds a PodList page of n realistic pods (about 4 KB each:
// labels, annotations, managedFields, two containers, conditions).
func podListJSON(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"123456","continue":"abc"},"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"web-%[1]d-7f9c8d6b5-x%[1]d","generateName":"web-%[1]d-7f9c8d6b5-","namespace":"team-%[2]d",`+
			`"uid":"5c1b2a3d-0000-4000-8000-%012[1]d","resourceVersion":"%[3]d","creationTimestamp":"2026-01-02T03:04:05Z",`+
			`"labels":{"app":"web","pod-template-hash":"7f9c8d6b5","tier":"frontend","release":"r%[2]d"},`+
			`"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z","prometheus.io/scrape":"true","prometheus.io/port":"9090"},`+
			`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-%[1]d-7f9c8d6b5","uid":"aaaa-%[1]d","controller":true,"blockOwnerDeletion":true}],`+
			`"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1",`+
			`"fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"aaaa\"}":{}}},`+
			`"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{}}}}}}]},`+
			`"spec":{"volumes":[{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},`+
			`{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],`+
			`"containers":[{"name":"app","image":"registry.example.com/team/web:v1.2.%[1]d","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],`+
			`"env":[{"name":"MODE","value":"production"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],`+
			`"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},`+
			`"volumeMounts":[{"name":"kube-api-access","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],`+
			`"livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":10,"periodSeconds":10},`+
			`"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"},`+
			`{"name":"sidecar","image":"registry.example.com/proxy:v3","resources":{},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],`+
			`"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-%[2]d",`+
			`"securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],`+
			`"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},`+
			`"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z"},`+
			`{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:09Z"},`+
			`{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:09Z"},`+
			`{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z"}],`+
			`"hostIP":"10.0.%[4]d.%[5]d","podIP":"10.244.%[4]d.%[5]d","podIPs":[{"ip":"10.244.%[4]d.%[5]d"}],"startTime":"2026-01-02T03:04:05Z",`+
			`"containerStatuses":[{"name":"app","state":{"running":{"startedAt":"2026-01-02T03:04:07Z"}},"lastState":{},"ready":true,"restartCount":0,`+
			`"image":"registry.example.com/team/web:v1.2.%[1]d","imageID":"registry.example.com/team/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",`+
			`"containerID":"containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","started":true}],"qosClass":"Burstable"}}`,
			i, i%50, 1000+i, i/250%250, i%250)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkListDecode measures decoding one LIST page of 2,000 pods
// (ZEROKUBE_BENCH_FULL is not needed: the page takes well under a second to
// build), straight from a reader as List does, into meta.Raw and into a slim
// struct, against a floor that skips the same page from a reader with the
// same decoder options.
func BenchmarkListDecode(b *testing.B) {
	const n = 2000
	page := podListJSON(n)
	// The floor walks the page from a reader, as watchstream.DecodeList does, with its
	// options (duplicate names allowed); SkipValue goes token by token, so
	// this is a floor for a streaming decoder, not the cheapest reading of
	// the bytes (ReadValue or jsontext.Value.IsValid over a whole page).
	b.Run("floor=skipvalue-reader", func(b *testing.B) {
		benchPage(b, page, n, func(r io.Reader) error {
			return jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true)).SkipValue()
		})
	})
	b.Run("into=Raw", func(b *testing.B) {
		benchPage(b, page, n, func(r io.Reader) error {
			_, err := watchstream.DecodeList(r, watchstream.Options{}, func(*meta.Raw) error { return nil })
			return err
		})
	})
	b.Run("into=slim", func(b *testing.B) {
		benchPage(b, page, n, func(r io.Reader) error {
			_, err := watchstream.DecodeList(r, watchstream.Options{}, func(*workload.SlimPod) error { return nil })
			return err
		})
	})
	b.Run("into=slim-skip-managedFields", func(b *testing.B) {
		benchPage(b, page, n, func(r io.Reader) error {
			_, err := watchstream.DecodeList(r, watchstream.Options{Unmarshal: meta.SkipManagedFields()}, func(*workload.SlimPod) error { return nil })
			return err
		})
	})
}

func benchPage(b *testing.B, page []byte, items int, decode func(io.Reader) error) {
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := decode(bytes.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(len(page))/float64(items), "B/item")
}

// BenchmarkListHTTP measures List end to end over loopback HTTP: the
// request, the chunked body, and decoding 2,000 pods into a slim struct.
func BenchmarkListHTTP(b *testing.B) {
	const n = 2000
	page := podListJSON(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	c, err := New(&Config{Host: srv.URL, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseIdleConnections()
	ref := Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		got := 0
		if _, err := List(context.Background(), c, ref, ListOptions{}, func(*workload.SlimPod) error { got++; return nil }); err != nil || got != n {
			b.Fatal(err, got)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkListGzip is List of one 2,000-pod page over loopback HTTP from a
// server that gzips it at level 1, as kube-apiserver does, three ways:
// the client's own inflater (klauspost/compress through 64 KiB reads, the
// default), the transport's transparent compress/gzip (the client before
// it inflated itself), and DisableCompression (the page sent as is).
// cpu-ms/op is the process's CPU time per list, the server's writes
// included (they are the same bytes in the first two).
func BenchmarkListGzip(b *testing.B) {
	const n = 2000
	page := podListJSON(n)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, 1)
	_, _ = zw.Write(page)
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz.Bytes())
			return
		}
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	for _, mode := range []string{"inflater=own", "inflater=transport-compress-gzip", "compression=off"} {
		b.Run(mode, func(b *testing.B) {
			c, err := New(&Config{Host: srv.URL, QPS: -1, DisableCompression: mode != "inflater=own"})
			if err != nil {
				b.Fatal(err)
			}
			defer c.CloseIdleConnections()
			if mode == "inflater=transport-compress-gzip" {
				// The transport asks for gzip and inflates with compress/gzip.
				c.http.Transport.(*http.Transport).DisableCompression = false
			}
			ref := Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			cpu0 := bench.ProcessCPU()
			iters := 0
			for b.Loop() {
				got := 0
				if _, err := List(context.Background(), c, ref, ListOptions{}, func(*workload.SlimPod) error { got++; return nil }); err != nil || got != n {
					b.Fatal(err, got)
				}
				iters++
			}
			b.ReportMetric(float64((bench.ProcessCPU()-cpu0).Milliseconds())/float64(max(iters, 1)), "cpu-ms/op")
		})
	}
}
