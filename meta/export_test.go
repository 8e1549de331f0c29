package meta

import "hash/maphash"

// SlotOf is the slot of s's table that a map whose JSON is v falls in: a
// test whose maps must not replace each other there picks maps that fall
// in different slots, whatever the Sharer's random seed.
func SlotOf(s *Sharer, v string) uint64 { return maphash.Bytes(s.seed, []byte(v)) % sharedMaps }
