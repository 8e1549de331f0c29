package shard_test

import (
	"fmt"

	"github.com/zerokube/zerokube/shard"
)

// Two replicas split pods by uid: each sends its selector as the
// shardSelector parameter and checks objects with Contains when the server
// does not filter for it.
func Example() {
	for i := range 2 {
		s, _ := shard.Of(i, 2)
		fmt.Println(s)
	}
	pod := obj{ns: "default", uid: "6b0c3e0e-7d3b-4a8e-9c1f-2f0e5b7a9d11"}
	first, _ := shard.Of(0, 2)
	fmt.Printf("hash %#016x, in shard 0: %v\n", shard.Hash(pod.uid), first.Contains(pod))
	// Output:
	// shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
	// shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
	// hash 0x858c127c4ca4b57b, in shard 0: false
}

// Parse reads a selector as a server does, and its String is the canonical
// form the server echoes in metadata.shardInfo.selector.
func ExampleParse() {
	s, err := shard.Parse("shardRange(object.metadata.namespace,'0x0000000000000000','0x4000000000000000')")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Field, s.Ranges[0])
	fmt.Println(s)
	_, err = shard.Parse("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')")
	fmt.Println(err)
	// Output:
	// object.metadata.namespace [0x0000000000000000, 0x4000000000000000)
	// shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000')
	// shard: invalid selector at byte 32: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)
}
