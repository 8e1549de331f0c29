package reliability

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The option matrix (issue #25, step 4): the informer's options proven
// together, each combination run against the fake server under the same
// script of writes and faults and checked by one oracle (matrix_case_test.go).
//
// How to run it:
//
//	go test ./reliability -run 'TestOptionMatrix$'          # pairwise: every pair of values (wire included), about 20 combinations
//	ZEROKUBE_MATRIX=full go test ./reliability -run TestOptionMatrixFull -timeout 30m   # the whole product
//	ZEROKUBE_MATRIX=2m go test ./reliability -run TestOptionMatrixFull                  # as many as fit in 2 minutes
//	ZEROKUBE_MATRIX_CASE=deltafifo/list/snap=expired/shard=set/skip/transform/late/json go test ./reliability -run 'TestOptionMatrix(Full)?$'
//
// TestOptionMatrixFull runs by default too, with a short budget, drawing
// combinations at random (its seed is logged: ZEROKUBE_MATRIX_SEED replays
// the order).

// The dimensions, each a closed set of values.
type (
	snapMode    uint8
	shardMode   uint8
	handlerMode uint8
)

const (
	snapOff     snapMode = iota
	snapResumed          // a snapshot of the same informer, resumed: the watch replays the downtime
	snapExpired          // the snapshot's resourceVersion compacted away: a reconciling relist
	snapCorrupt          // a damaged snapshot: ignored, the informer lists
)

const (
	shardNone     shardMode = iota
	shardServer             // the server filters (ShardedListAndWatch)
	shardInformer           // the server ignores the selector; the informer filters
	shardSet                // Shard.Set to another shard mid-run (the server filters)
)

const (
	handlerAsync handlerMode = iota // a goroutine and queue of its own
	handlerSync                     // HandlerOptions.Synchronous
	handlerLate                     // added after the sync and the first faults
)

var (
	snapNames    = []string{"snap=off", "snap=resumed", "snap=expired", "snap=corrupt"}
	shardNames   = []string{"shard=none", "shard=server", "shard=informer", "shard=set"}
	handlerNames = []string{"async", "sync", "late"}
)

// combo is one combination of the matrix.
type combo struct {
	deltaFIFO bool
	streaming bool
	snap      snapMode
	shard     shardMode
	skip      bool // SkipUndecodable, with an undecodable object on the server
	transform bool
	handler   handlerMode
	// json asks for JSON (Transport.JSON); otherwise protobuf, the default
	// for the built-in kind the matrix watches (configmaps): the wire is a
	// dimension so that a drift between the two decoders shows here.
	json bool
}

// dims is how many values each dimension has, in combo's field order.
var dims = []int{2, 2, 4, 4, 2, 2, 3, 2}

func comboOf(v []int) combo {
	return combo{deltaFIFO: v[0] == 1, streaming: v[1] == 1, snap: snapMode(v[2]), shard: shardMode(v[3]),
		skip: v[4] == 1, transform: v[5] == 1, handler: handlerMode(v[6]), json: v[7] == 1}
}

func (c combo) String() string {
	q, s := "inorder", "list"
	if c.deltaFIFO {
		q = "deltafifo"
	}
	if c.streaming {
		s = "stream"
	}
	parts := []string{q, s, snapNames[c.snap], shardNames[c.shard]}
	if c.skip {
		parts = append(parts, "skip")
	}
	if c.transform {
		parts = append(parts, "transform")
	}
	parts = append(parts, handlerNames[c.handler])
	if c.json {
		return strings.Join(append(parts, "json"), "/")
	}
	return strings.Join(append(parts, "protobuf"), "/")
}

// product is every combination, in a fixed order.
func product() []combo {
	var out []combo
	v := make([]int, len(dims))
	for {
		out = append(out, comboOf(v))
		i := len(v) - 1
		for ; i >= 0; i-- {
			if v[i]++; v[i] < dims[i] {
				break
			}
			v[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// pair is one value of dimension d1 with one of dimension d2 > d1.
type pair struct{ d1, v1, d2, v2 int }

// firstPair is the smallest open pair, so that the rows do not depend on
// map order.
func firstPair(open map[pair]bool) pair {
	first := pair{d1: len(dims)}
	less := func(a, b pair) bool {
		return a.d1 < b.d1 || a.d1 == b.d1 && (a.d2 < b.d2 || a.d2 == b.d2 && (a.v1 < b.v1 || a.v1 == b.v1 && a.v2 < b.v2))
	}
	for p := range open {
		if less(p, first) {
			first = p
		}
	}
	return first
}

// pairwise is a covering array of strength 2: every value of every
// dimension meets every value of every other dimension in at least one
// combination. Built greedily (each row takes, dimension by dimension, the
// value that covers the most pairs still uncovered), so it is deterministic.
func pairwise() []combo {
	open := map[pair]bool{}
	for d1 := range dims {
		for d2 := d1 + 1; d2 < len(dims); d2++ {
			for v1 := range dims[d1] {
				for v2 := range dims[d2] {
					open[pair{d1, v1, d2, v2}] = true
				}
			}
		}
	}
	var out []combo
	for len(open) > 0 {
		// Seed the row with an uncovered pair of the first two dimensions
		// that still have one, so that every row makes progress.
		row := make([]int, len(dims))
		for i := range row {
			row[i] = -1
		}
		seed := firstPair(open)
		row[seed.d1], row[seed.d2] = seed.v1, seed.v2
		for d := range dims {
			if row[d] != -1 {
				continue
			}
			best, bestN := 0, -1
			for v := range dims[d] {
				n := 0
				for e, w := range row {
					if w == -1 || e == d {
						continue
					}
					lo, hi := pair{e, w, d, v}, pair{d, v, e, w}
					if open[lo] || open[hi] {
						n++
					}
				}
				if n > bestN {
					best, bestN = v, n
				}
			}
			row[d] = best
		}
		for d1 := range dims {
			for d2 := d1 + 1; d2 < len(dims); d2++ {
				delete(open, pair{d1, row[d1], d2, row[d2]})
			}
		}
		out = append(out, comboOf(row))
	}
	return out
}

func TestPairwiseCoversEveryPair(t *testing.T) {
	rows := pairwise()
	seen := map[[4]int]bool{}
	for _, c := range rows {
		v := []int{b2i(c.deltaFIFO), b2i(c.streaming), int(c.snap), int(c.shard), b2i(c.skip), b2i(c.transform), int(c.handler), b2i(c.json)}
		for d1 := range dims {
			for d2 := d1 + 1; d2 < len(dims); d2++ {
				seen[[4]int{d1, v[d1], d2, v[d2]}] = true
			}
		}
	}
	want := 0
	for d1 := range dims {
		for d2 := d1 + 1; d2 < len(dims); d2++ {
			want += dims[d1] * dims[d2]
		}
	}
	require.Len(t, seen, want, "pairs covered by %d rows", len(rows))
	require.Less(t, len(rows), 30, "the covering array stays small")
	require.Len(t, product(), 1536)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matrixTotals add up what the cases did, for the closing log line.
type matrixTotals struct {
	cases, skipped, faults atomic.Int64
}

// TestOptionMatrix runs the pairwise combinations: every pair of option
// values together at least once.
func TestOptionMatrix(t *testing.T) {
	runMatrix(t, selected(t, pairwise()), 0)
}

// TestOptionMatrixFull runs combinations of the whole product in a random
// order until its budget is spent: a short one by default, all of them
// with ZEROKUBE_MATRIX=full, or a duration (ZEROKUBE_MATRIX=5m).
func TestOptionMatrixFull(t *testing.T) {
	budget := 2 * time.Second
	switch s := os.Getenv("ZEROKUBE_MATRIX"); s {
	case "":
	case "full":
		budget = 0
	default:
		d, err := time.ParseDuration(s)
		require.NoError(t, err, "ZEROKUBE_MATRIX: \"full\" or a duration")
		budget = d
	}
	all := product()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ZEROKUBE_MATRIX_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "ZEROKUBE_MATRIX_SEED")
		seed = n
	}
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	t.Logf("matrix: order from seed %d (replay: ZEROKUBE_MATRIX_SEED=%d), budget %v (0: all)", seed, seed, budget)
	runMatrix(t, selected(t, all), budget)
}

// selected narrows the cases to ZEROKUBE_MATRIX_CASE, when set.
func selected(t *testing.T, cs []combo) []combo {
	name := os.Getenv("ZEROKUBE_MATRIX_CASE")
	if name == "" {
		return cs
	}
	for _, c := range product() {
		if c.String() == name {
			return []combo{c}
		}
	}
	t.Fatalf("ZEROKUBE_MATRIX_CASE=%q names no combination (e.g. %s)", name, product()[0])
	return nil
}

// matrixParallel is how many cases run at once: each spends most of its
// time waiting for the informer, not on a CPU.
const matrixParallel = 4

func runMatrix(t *testing.T, cs []combo, budget time.Duration) {
	start := time.Now()
	var tot matrixTotals
	next := make(chan int)
	var wg sync.WaitGroup
	for range matrixParallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t.Run(cs[i].String(), func(t *testing.T) {
					tot.cases.Add(1)
					runCase(t, cs[i], uint64(i), &tot)
				})
			}
		}()
	}
	for i := range cs {
		if budget > 0 && time.Since(start) > budget {
			t.Logf("budget of %v spent after %d of %d combinations", budget, i, len(cs))
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("matrix: %d combinations (%d skipped as known bugs), %d faults injected, %.1f s wall",
		tot.cases.Load(), tot.skipped.Load(), tot.faults.Load(), time.Since(start).Seconds())
}
