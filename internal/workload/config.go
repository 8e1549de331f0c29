package workload

import (
	"fmt"
	"math/rand/v2"
)

// Config describes a workload. The zero value is the article's: pods of
// about 5 KiB, 1,000 replica sets (and as many deployments) over 20
// namespaces and 100 nodes, seed 1.
type Config struct {
	// Seed makes a different but equally deterministic workload; default 1.
	Seed uint64
	// PodSize is the target JSON size of one pod as a list item, in bytes;
	// default 5 KiB. Below about 3 KB pods are generated lean (one
	// container, no probes, no managedFields), the shape of a 1 KB pod;
	// from 9,000 bytes rich (a sidecar, volumes, tolerations). Pods only
	// grow toward the target, so a target under a shape's bare size gives
	// that size: 9 KiB pods come out at about 10.6 KB, 5.4 KB of it
	// managedFields (9.5 KB with AtomicLists).
	PodSize int
	// ReplicaSets is the number of replica sets (and deployments); pod i
	// belongs to replica set i mod ReplicaSets. Default 1,000.
	ReplicaSets int
	// Namespaces is the number of namespaces; default 20.
	Namespaces int
	// Nodes is the number of node names pods are spread over; default 100.
	Nodes int
	// AtomicLists records the lists core/v1 declares atomic
	// (containerStatuses, tolerations, projected volume sources) in
	// managedFields whole, as kube-apiserver does, instead of item by item.
	// Off by default, which keeps the bytes of the workload earlier results
	// were measured on; it takes 9 KiB pods from 10.6 KB (5.4 KB of
	// managedFields) to 9.5 KB (4.3 KB), near the 9.2 KB (4 KB) pods of
	// issue #8's client-go comparison.
	AtomicLists bool
}

// Typical pod sizes.
const (
	ArticlePodSize = 5 << 10 // the article's pods
	SmallPodSize   = 1 << 10 // for watch throughput
)

func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.PodSize <= 0 {
		c.PodSize = ArticlePodSize
	}
	if c.ReplicaSets <= 0 {
		c.ReplicaSets = 1000
	}
	if c.Namespaces <= 0 {
		c.Namespaces = 20
	}
	if c.Nodes <= 0 {
		c.Nodes = 100
	}
	return c
}

// NamespaceNames lists the namespaces the workload's objects live in.
func (c Config) NamespaceNames() []string {
	c = c.withDefaults()
	out := make([]string, c.Namespaces)
	for i := range out {
		out[i] = fmt.Sprintf("team-%02d", i)
	}
	return out
}

func (c Config) namespace(rs int) string { return fmt.Sprintf("team-%02d", rs%c.Namespaces) }

func (c Config) appName(d int) string {
	return fmt.Sprintf("%s-%03d", apps[d%len(apps)], d)
}

func (c Config) templateHash(rs int) string {
	return suffix(rand.New(rand.NewPCG(c.Seed^0x9e3779b97f4a7c15, uint64(rs))), 10)
}

func (c Config) replicaSetName(rs int) string { return c.appName(rs) + "-" + c.templateHash(rs) }

func (c Config) replicaSetUID(rs int) string {
	return uuid(rand.New(rand.NewPCG(c.Seed^0x5bd1e995, uint64(rs))))
}

func (c Config) deploymentUID(d int) string {
	return uuid(rand.New(rand.NewPCG(c.Seed^0x27d4eb2f, uint64(d))))
}

var (
	apps   = []string{"checkout", "payments", "catalog", "search", "frontend", "auth", "orders", "inventory", "shipping", "reviews", "ads", "mailer"}
	teams  = []string{"storefront", "platform", "data", "growth", "core"}
	tiers  = []string{"frontend", "backend", "worker"}
	levels = []string{"debug", "info", "warn", "error"}
	flags  = []string{"CACHE", "RETRY", "TRACE", "BATCH", "SHARD", "QUOTA", "LIMIT", "ASYNC"}
	values = []string{"enabled", "disabled", "canary", "shadow", "legacy"}
)

const alphabet = "bcdfghjklmnpqrstvwxz2456789"

// suffix is a kube-style random name suffix.
func suffix(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func hex(rng *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}

func uuid(rng *rand.Rand) string {
	h := hex(rng, 32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func empty() map[string]any { return map[string]any{} }

// keysOf is the managedFields set of a string map: ".": {} and one "f:key".
func keysOf(m map[string]string) map[string]any {
	out := map[string]any{".": empty()}
	for k := range m {
		out["f:"+k] = empty()
	}
	return out
}
