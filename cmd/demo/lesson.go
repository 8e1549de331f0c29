package main

import (
	"context"
	"sync"
	"time"
)

// The article's step 4 is a key function for deletes,
// DeletionHandlingMetaNamespaceKeyFunc, which exists because a delete the
// informer missed reaches the handler as a DeletedFinalStateUnknown. In a
// demo whose watch never breaks that never happens, so the default demo
// makes it happen once (--tombstone-after): a delete the watch misses,
// found by the relist.

// missedDelete deletes one of the churn's objects where the informer's
// watch cannot see it, and makes the informer relist: the open watch is
// stalled, the object deleted, the history compacted past the delete and
// every connection dropped. The reflector re-watches from the
// resourceVersion it had, gets 410 Gone and relists; the list lacks the
// object, so Replace queues a tombstone and the handler gets
// OnDelete(obj, finalStateUnknown=true).
func missedDelete(srv faultServer, ch *churner) (text, error) {
	name, rv, how, err := unseen(srv, func() (string, error) { return ch.pickCached(ch.delete) })
	if err != nil {
		return text{}, err
	}
	return say(msg{en: "deleted %s %s, compacted history to %d and cut every connection: the re-watch gets 410 Gone, the relist lacks %[1]s, and the handler gets a tombstone",
		zh: "删除了 %s（%s），把历史压缩到 %d，并断开所有连接。重新 watch 会得到 410 Gone；重新 list 的结果里没有 %[1]s，事件处理函数会收到一个墓碑"}, name, how, rv), nil
}

// scheduleTombstone runs missedDelete once, --tombstone-after after the
// first sync, on the embedded server, with its churn on or off (without
// it, one of the seeded objects goes); it says what it did on stderr. The
// stop waits for it.
func (d *demo) scheduleTombstone(ctx context.Context) {
	if d.fake == nil || d.churn == nil || d.cfg.tombstoneAfter <= 0 {
		return
	}
	d.tell(msg{en: "in %v the server deletes a %s the watch misses: watch for the tombstone (--tombstone-after=0: never)",
		zh: "%v 后 API Server 会删除一个 watch 看不到的 %s：留意墓碑（--tombstone-after=0 表示不做）"}, d.cfg.tombstoneAfter, d.cfg.resource.kind)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(d.cfg.tombstoneAfter)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.lessons.begin(tombstoneLesson)
		did, err := missedDelete(d.fake, d.churn)
		if err != nil {
			d.status.printf("demo: %s", oneLine(err))
			return
		}
		d.tell(msg{en: "%s", zh: "%s"}, did)
	}()
	d.onStop(func() text { return say(msg{en: "stopped the tombstone lesson", zh: "停止了墓碑演示"}) }, func() { cancel(); wg.Wait() })
}

// tombstoneLesson is the tombstone lesson's name, the same as the live
// page's button that gives it.
var tombstoneLesson = msg{en: "Missed delete (tombstone)", zh: "错过的删除（墓碑）"}

// tombstoneSaid is what the demo says on stderr when its handler gets a
// tombstone, so that the article's line "Delete:  default/x" above it is
// understood without --trace.
var tombstoneSaid = msg{en: "the Delete of %s above is a tombstone: finalStateUnknown=true, the delete was missed and found by the relist. " +
	"client-go hands a DeletedFinalStateUnknown here, hence the article's DeletionHandlingMetaNamespaceKeyFunc; here obj is still the handler's own type and meta.Key(obj) is its key",
	zh: "上面 %s 的 Delete 是一个墓碑：finalStateUnknown=true，说明这次删除被错过了，是重新 list 时发现的。" +
		"client-go 在这里传的是 DeletedFinalStateUnknown，所以文章要用 DeletionHandlingMetaNamespaceKeyFunc；这里 obj 仍是事件处理函数自己的类型，meta.Key(obj) 就是它的键"}
