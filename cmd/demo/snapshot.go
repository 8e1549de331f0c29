package main

import (
	"time"

	"github.com/zerokube/zerokube/informer/observe"
)

// describeSnapshot says what a warm-restart stage (--snapshot) did.
func (t *tracer) describeSnapshot(ev observe.Event) (text, bool) {
	switch ev.Stage {
	case observe.StageSnapshotLoaded:
		t.mu.Lock()
		t.fromSnapshot = true // the next cache-replaced is the snapshot's, not a relist's
		t.mu.Unlock()
		return say(msg{en: "resumed from snapshot at RV %s, watching: %d objects loaded into the cache, no LIST; " +
			"the WATCH from %[1]s brings only what changed while the demo was stopped",
			zh: "从快照恢复（资源版本 %s），直接 watch：%d 个对象装入本地缓存，不发 LIST；" +
				"从 %[1]s 开始的 WATCH 只带来 demo 停止期间发生的变化"}, ev.ResourceVersion, ev.Items), true
	case observe.StageSnapshotRejected:
		return say(msg{en: "snapshot not used, listing instead: %s", zh: "快照没有用上，改为全量 list：%s"}, errSaid(ev.Err)), true
	case observe.StageSnapshotMissing:
		return say(msg{en: "no snapshot saved yet: listing", zh: "还没有保存过快照：改为全量 list"}), true
	case observe.StageSnapshotSkipped:
		return say(msg{en: "no snapshot at stop: %s", zh: "停止时没有保存快照：%s"}, errSaid(ev.Err)), true
	case observe.StageSnapshotSaved:
		if ev.Err != nil {
			return say(msg{en: "saving the snapshot failed: %s", zh: "快照保存失败：%s"}, errSaid(ev.Err)), true
		}
		return say(msg{en: "snapshot saved: %d objects at resourceVersion %s (took %v)", zh: "快照已保存：%d 个对象，资源版本 %s（耗时 %v）"},
			ev.Items, ev.ResourceVersion, ev.Duration.Round(time.Microsecond)), true
	}
	return text{}, false
}

// snapshotReport says on stderr, in one line and without -v, why a saved
// snapshot was not used: the informer logs it as a warning, which the demo
// shows only after the first sync or with -v, and a learner who asked for
// --snapshot should not see a silent full list.
type snapshotReport struct {
	observe.NopMetrics
	d *demo
}

func (s snapshotReport) SnapshotLoaded(result string) {
	var why msg
	switch result {
	case "resumed":
		s.d.resumed.Store(true)
		return
	case "none":
		return
	case "corrupt":
		why = msg{en: "it is corrupt (its checksum does not match, or it has no resourceVersion)", zh: "文件已损坏（校验和不符，或者没有资源版本）"}
	case "truncated":
		why = msg{en: "it is truncated (a write was cut off)", zh: "文件不完整（写入被中断）"}
	case "version":
		why = msg{en: "it was written in another format version", zh: "它是用另一个格式版本写的"}
	case "identity":
		why = msg{en: "it was saved for another server, resource or selector", zh: "它是为另一个 API Server、资源或选择器保存的"}
	case "decode":
		why = msg{en: "its objects do not decode into the demo's type", zh: "里面的对象无法解码成 demo 的类型"}
	default:
		why = msg{en: "it could not be read", zh: "无法读取"}
	}
	s.d.tell(msg{en: "the snapshot in %s was not used: %s; listing instead (-v says more)",
		zh: "%s 里的快照没有用上：%s；改为全量 list（加 -v 可以看到详情）"}, s.d.cfg.snapshot, say(why))
}
