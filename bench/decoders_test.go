package bench_test

import (
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/internal/workload"
)

// plainSlimPod is a slim pod both decoders can read (no v2-only methods):
// what the README's decoder figures compare.
type plainSlimPod struct {
	Metadata struct {
		Name            string            `json:"name"`
		Namespace       string            `json:"namespace"`
		UID             string            `json:"uid"`
		ResourceVersion string            `json:"resourceVersion"`
		Labels          map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
		PodIP string `json:"podIP"`
	} `json:"status"`
}

type plainSlimList struct {
	Items []plainSlimPod `json:"items"`
}

// BenchmarkDecoders compares the two JSON decoders on one PodList of 2,000
// pods of the client-go workload (about 9.5 KB each): validating it and
// decoding it into a slim struct, with encoding/json (client-go decodes
// JSON with a fork of it) and go-json-experiment/json, the latter with the
// default options and with the ones zerokube's decoders use. MB/cpu-s (MB
// per second of process CPU time) is the figure the README quotes; the
// benchmark's own goroutine is the only busy one, so on a shared machine it
// is the wall-clock MB/s without the waits for a CPU.
func BenchmarkDecoders(b *testing.B) {
	items := clientGoConfig.Pods(2000)
	list := workload.Pages("PodList", "v1", "1", items, 0)[0]
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(list)))
			b.ReportAllocs()
			iters := 0
			cpu0 := bench.ProcessCPU()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
				iters++
			}
			// MB per second of CPU time: on a shared machine the wall-clock
			// MB/s counts the waits for a CPU too.
			if cpu := bench.ProcessCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(iters)*float64(len(list))/1e6/cpu.Seconds(), "MB/cpu-s")
			}
		})
	}
	run("lib=encoding-json/op=valid", func() error {
		if !stdjson.Valid(list) {
			b.Fatal("invalid")
		}
		return nil
	})
	run("lib=json-v2/op=valid-default-options", func() error {
		if !jsontext.Value(list).IsValid() {
			b.Fatal("invalid")
		}
		return nil
	})
	run("lib=json-v2/op=valid", func() error {
		if !jsontext.Value(list).IsValid(floorOptions) {
			b.Fatal("invalid")
		}
		return nil
	})
	run("lib=encoding-json/op=slim", func() error {
		var l plainSlimList
		return stdjson.Unmarshal(list, &l)
	})
	run("lib=json-v2/op=slim", func() error {
		var l plainSlimList
		return json.Unmarshal(list, &l, floorOptions)
	})
}
