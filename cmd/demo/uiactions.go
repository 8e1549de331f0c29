package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver"
)

// action is one button of the live page. run does it and says what it
// did in a sentence the page shows next to the buttons.
type action struct {
	name, label, help string
	fault             bool // provokes a failure path (drawn in red), not a write
	run               func(ctx context.Context) (string, error)
}

// faultServer is what the buttons need of the embedded fake server: its
// fault injection, the same Go API the reliability tests use.
type faultServer interface {
	CutWatches() int
	DropWatches() int
	StallWatches() int
	Compact(rv int64)
	Restart()
	FailNext(f fakeapiserver.Failure)
	ResourceVersion() int64
}

// fakeActions are the buttons against the embedded server. Each one
// provokes a path of the reflector's state machine that docs/internals.md
// describes; the help text names it.
func fakeActions(srv faultServer, ch *churner) []action {
	faults := faultActions(srv, ch)
	for i := range faults {
		faults[i].fault = true
	}
	return append(writeActions(ch), faults...)
}

// writeActions write to the server as kubectl would, or pause the churn.
func writeActions(ch *churner) []action {
	return []action{
		{name: "create", label: "Create a pod", help: "a write the watch delivers as ADDED",
			run: func(context.Context) (string, error) {
				ch.mu.Lock()
				defer ch.mu.Unlock()
				name, err := ch.create()
				return "created " + name, err
			}},
		{name: "label", label: "Label a pod", help: "a write the watch delivers as MODIFIED",
			run: func(context.Context) (string, error) {
				name, err := ch.pick(ch.relabel)
				return "relabelled " + name, err
			}},
		{name: "delete", label: "Delete a pod", help: "a write the watch delivers as DELETED",
			run: func(context.Context) (string, error) {
				name, err := ch.pick(ch.delete)
				return "deleted " + name, err
			}},
		{name: "pause-churn", label: "Pause churn", help: "stop the background writes",
			run: func(context.Context) (string, error) { ch.paused.Store(true); return "churn paused", nil }},
		{name: "resume-churn", label: "Resume churn", help: "restart the background writes",
			run: func(context.Context) (string, error) { ch.paused.Store(false); return "churn resumed", nil }},
	}
}

// faultActions provoke the reflector's failure paths.
func faultActions(srv faultServer, ch *churner) []action {
	return []action{
		{name: "cut-watch", label: "Cut the watch", help: "the stream breaks mid-event: the reflector re-watches from its last resourceVersion, nothing is relisted",
			run: func(context.Context) (string, error) {
				return fmt.Sprintf("armed %d watch(es) to break in their next frame", srv.CutWatches()), nil
			}},
		{name: "drop-watches", label: "Drop all watches", help: "the server ends every watch cleanly, as on shutdown: the reflector re-watches",
			run: func(context.Context) (string, error) {
				return fmt.Sprintf("ended %d watch(es)", srv.DropWatches()), nil
			}},
		{name: "compact", label: "Compact history", help: "the server forgets old events: a watch or continue token from before now gets 410 Gone",
			run: func(context.Context) (string, error) {
				srv.Compact(0)
				return fmt.Sprintf("history compacted up to resourceVersion %d", srv.ResourceVersion()), nil
			}},
		{name: "compact-cut", label: "Compact + cut watch (410)", help: "a write the watch misses, then compaction past it, then a broken stream: the re-watch gets 410 Gone, the reflector relists and Replace reconciles",
			run: func(context.Context) (string, error) { return provokeGone(srv, ch) }},
		{name: "fail-lists-503", label: "Next lists: 503", help: "the next 3 LISTs answer 503, then a 410 forces a relist: watch the backoff",
			run: func(context.Context) (string, error) {
				srv.FailNext(fakeapiserver.Failure{Count: 3, Code: 503, Verb: "list"})
				msg, err := provokeGone(srv, ch)
				return "the next 3 LISTs answer 503; " + msg, err
			}},
		{name: "fail-lists-429", label: "Next lists: 429", help: "the next 2 LISTs answer 429 with Retry-After 2s, then a 410 forces a relist",
			run: func(context.Context) (string, error) {
				srv.FailNext(fakeapiserver.Failure{Count: 2, Code: 429, Verb: "list", RetryAfter: 2 * time.Second})
				msg, err := provokeGone(srv, ch)
				return "the next 2 LISTs answer 429 (Retry-After: 2); " + msg, err
			}},
		{name: "stall", label: "Stall the watch", help: "the stream goes silent but stays open (a half-open connection): only the reflector's idle timeout ends it",
			run: func(context.Context) (string, error) {
				return fmt.Sprintf("stalled %d watch(es); writes now reach the informer only after the idle timeout ends the watch", srv.StallWatches()), nil
			}},
		{name: "restart", label: "Restart the server", help: "every connection drops, the objects stay: the reflector re-watches from its resourceVersion",
			run: func(context.Context) (string, error) {
				srv.Restart()
				return "dropped every connection; objects and history kept", nil
			}},
	}
}

// provokeGone makes the informer's next watch start from a compacted
// resourceVersion: the open watch is stalled so it misses one write, the
// history is compacted past that write, and every connection is dropped.
// The reflector re-watches from the resourceVersion it had, the server
// answers 410 Gone, and the reflector relists.
func provokeGone(srv faultServer, ch *churner) (string, error) {
	srv.StallWatches()
	ch.mu.Lock()
	name, err := ch.create()
	ch.mu.Unlock()
	if err != nil {
		srv.Restart() // do not leave the watch stalled
		return "", err
	}
	srv.Compact(0)
	rv := srv.ResourceVersion()
	srv.Restart()
	return fmt.Sprintf("created %s unseen by the stalled watch, compacted history to %d and cut every connection: the re-watch gets 410 Gone", name, rv), nil
}
