package fifo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/fifo"
)

// pod is the example's object: a name and a phase.
type pod struct{ Name, Phase string }

// mapStore is the smallest consumer store: it satisfies fifo.KnownObjects.
type mapStore map[string]pod

func (s mapStore) GetByKey(k string) (pod, bool) { p, ok := s[k]; return p, ok }
func (s mapStore) ListKeys() []string {
	var keys []string
	for k := range s {
		keys = append(keys, k)
	}
	return keys
}

// apply is what an informer's processing loop does with each delta.
func (s mapStore) apply(d fifo.Delta[pod]) {
	if d.Type == fifo.Deleted {
		delete(s, d.Object.Name)
		return
	}
	s[d.Object.Name] = d.Object
}

// A DeltaFIFO groups deltas by key: three events for "web" are popped
// together, once, behind "db" only because "db" arrived first. A relist
// that lacks "db" produces a tombstone carrying its last known state.
func ExampleDeltaFIFO() {
	store := mapStore{}
	q := fifo.NewDelta(fifo.DeltaOptions[pod]{
		Key:          func(p pod) string { return p.Name },
		KnownObjects: store,
	})
	defer q.Close()

	q.Add(pod{"db", "Pending"})
	q.Add(pod{"web", "Pending"})
	q.Update(pod{"web", "Running"})
	q.Update(pod{"web", "Succeeded"})

	process := func(deltas []fifo.Delta[pod], isInInitialList bool) error {
		var line []string
		for _, d := range deltas {
			s := fmt.Sprintf("%s %s=%s", d.Type, d.Object.Name, d.Object.Phase)
			if d.FinalStateUnknown {
				s += " (final state unknown)"
			}
			line = append(line, s)
			store.apply(d)
		}
		fmt.Println(strings.Join(line, "; "))
		return nil
	}
	for q.Len() > 0 {
		q.Pop(context.Background(), process)
	}

	// The watch broke; the relist no longer has "db".
	q.Replace([]pod{{"web", "Succeeded"}}, "42")
	for q.Len() > 0 {
		q.Pop(context.Background(), process)
	}
	fmt.Println(len(store), "object(s) left")
	// Output:
	// Added db=Pending
	// Added web=Pending; Updated web=Running; Updated web=Succeeded
	// Replaced web=Succeeded
	// Deleted db=Pending (final state unknown)
	// 1 object(s) left
}

// An InOrder queue keeps every event in arrival order and pops batches.
// The first Replace is the initial list: its deltas come in batches of
// their own, flagged isInInitialList, and HasSynced turns true once they
// are processed.
func ExampleInOrder() {
	store := mapStore{}
	q := fifo.NewInOrder(fifo.InOrderOptions[pod]{
		Key:          func(p pod) string { return p.Name },
		KnownObjects: store,
		BatchSize:    3,
	})
	defer q.Close()

	q.Replace([]pod{{"a", "Running"}, {"b", "Running"}}, "7")
	q.Update(pod{"a", "Failed"})
	q.Delete(pod{"b", "Running"})
	q.Add(pod{"c", "Pending"})
	q.Update(pod{"a", "Running"})

	for q.Len() > 0 {
		q.Pop(context.Background(), func(deltas []fifo.Delta[pod], isInInitialList bool) error {
			fmt.Printf("initial=%v:", isInInitialList)
			for _, d := range deltas {
				fmt.Printf(" %s %s=%s;", d.Type, d.Object.Name, d.Object.Phase)
				store.apply(d)
			}
			fmt.Println(" synced:", q.HasSynced())
			return nil
		})
	}
	// Output:
	// initial=true: Replaced a=Running; Replaced b=Running; synced: false
	// initial=false: Updated a=Failed; Deleted b=Running; Added c=Pending; synced: true
	// initial=false: Updated a=Running; synced: true
}
