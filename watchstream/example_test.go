package watchstream_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// Pod is the slim user type of the example: only the fields it prints.
type Pod struct {
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func Example() {
	body := io.NopCloser(strings.NewReader(`
{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default","resourceVersion":"10"},"status":{"phase":"Pending"}}}
{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default","resourceVersion":"11"},"status":{"phase":"Running"}}}
{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (12)","reason":"Expired","code":410}}
`))
	s := watchstream.New[Pod](context.Background(), body, watchstream.Options{})
	defer s.Stop()
	for ev, err := range s.All() {
		if err != nil {
			fmt.Println("error:", err, "- relist:", meta.IsGone(err))
			break
		}
		if ev.Type == meta.Bookmark {
			fmt.Println(ev.Type, ev.ResourceVersion, "initial events done:", ev.InitialEventsEnd)
			continue
		}
		fmt.Println(ev.Type, meta.Key(ev.Object), ev.Object.Status.Phase, ev.ResourceVersion)
	}
	// Output:
	// ADDED default/web-1 Pending 10
	// MODIFIED default/web-1 Running 11
	// BOOKMARK 12 initial events done: true
	// error: watchstream: watch ended by ERROR event 4: too old resource version: 5 (12) (410 Expired) - relist: true
}
