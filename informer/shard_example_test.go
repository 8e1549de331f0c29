package informer_test

import (
	"fmt"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/shard"
)

// Replica 1 of 3 caches a third of the pods. With a server that has the
// ShardedListAndWatch gate the server filters; without it the informer
// does, and caches exactly the same third. Set moves a running informer to
// another shard.
func ExampleNewShard() {
	sel, err := shard.Of(1, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	sh, err := informer.NewShard(sel)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := informer.Options[*Pod]{Shard: sh} // then informer.New[Pod](client, ref, opts)
	fmt.Println(opts.Shard.Selector())

	two, _ := shard.Of(1, 2)
	_ = sh.Set(two) // one replica left: take half
	fmt.Println(sh.Selector())
	// Output:
	// shardRange(object.metadata.uid, '0x5555555555555555', '0xaaaaaaaaaaaaaaaa')
	// shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
}
