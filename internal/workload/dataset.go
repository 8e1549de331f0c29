package workload

import (
	"runtime"
	"strconv"
	"sync"
)

// Dataset is a generated workload, encoded once: list items without kind
// or apiVersion, ready to be framed into list replies or watch events.
type Dataset struct {
	Config      Config
	Pods        [][]byte
	Deployments [][]byte
	ReplicaSets [][]byte
}

// Generate encodes pods pods and Config.ReplicaSets deployments and replica
// sets, in parallel on every CPU (each object depends only on the seed and
// its index, so the result does not depend on scheduling).
func (c Config) Generate(pods int) *Dataset {
	c = c.withDefaults()
	d := &Dataset{Config: c}
	d.Pods = c.Pods(pods)
	d.Deployments = parallel(c.ReplicaSets, func(i int) []byte { return mustMarshal(c.Deployment(i)) })
	d.ReplicaSets = parallel(c.ReplicaSets, func(i int) []byte { return mustMarshal(c.ReplicaSet(i)) })
	return d
}

// Pods encodes pods 0 to n-1 as list items, in parallel on every CPU: the
// Pods of Generate(n) without its deployments and replica sets, for a caller
// that needs pods only.
func (c Config) Pods(n int) [][]byte {
	c = c.withDefaults()
	return parallel(n, c.PodJSON)
}

// PodBytes is the total JSON size of the pods.
func (d *Dataset) PodBytes() int64 { return totalSize(d.Pods) }

func totalSize(items [][]byte) int64 {
	var n int64
	for _, it := range items {
		n += int64(len(it))
	}
	return n
}

// PodEvents generates n watch-event objects (with kind and apiVersion): a
// new state of pod i mod pods for event i, at resourceVersion firstRV+i, so
// a stream of them reads like a busy cluster's pod updates.
func (c Config) PodEvents(n, pods int, firstRV int64) [][]byte {
	c = c.withDefaults()
	return parallel(n, func(i int) []byte {
		p := c.Pod(i % pods)
		p.Kind, p.APIVersion = "Pod", "v1"
		p.ResourceVersion = strconv.FormatInt(firstRV+int64(i), 10)
		for k := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[k].RestartCount = int32(i / pods)
		}
		return mustMarshal(p)
	})
}

func parallel(n int, gen func(i int) []byte) [][]byte {
	out := make([][]byte, n)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				out[i] = gen(i)
			}
		}()
	}
	wg.Wait()
	return out
}
