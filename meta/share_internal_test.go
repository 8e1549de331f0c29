package meta

import (
	"fmt"
	"hash/maphash"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestSharerRemembersTheLastMapOfEachSlot: what a Sharer keeps is bounded
// by its table: an equal map decoded again is the one remembered, and a
// later map whose hash falls in the same slot replaces it (the slot never
// hands out a map of another hash).
func TestSharerRemembersTheLastMapOfEachSlot(t *testing.T) {
	s := NewSharer(ShareMaps)
	decode := func(doc string) map[string]string {
		t.Helper()
		var m map[string]string
		if err := json.Unmarshal([]byte(doc), &m, json.WithUnmarshalers(s.Unmarshalers())); err != nil {
			t.Fatal(err)
		}
		return m
	}
	same := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	first := `{"app":"web"}`
	a := decode(first)
	if !same(a, decode(first)) {
		t.Fatal("an equal map decoded again is not the one remembered")
	}
	// Another map whose hash falls in the same slot.
	h := maphash.Bytes(s.seed, []byte(first))
	var other string
	for i := 0; other == ""; i++ {
		doc := fmt.Sprintf(`{"app":"db-%d"}`, i)
		if hh := maphash.Bytes(s.seed, []byte(doc)); hh%sharedMaps == h%sharedMaps && hh != h {
			other = doc
		}
	}
	b := decode(other)
	if s.recent(h) != nil {
		t.Fatal("the slot still answers for the hash it no longer holds")
	}
	if !same(b, decode(other)) {
		t.Fatal("the later map is not remembered in its slot")
	}
	if again := decode(first); same(again, a) || again["app"] != "web" {
		t.Fatalf("the replaced map came back (%v), or the new one is wrong (%v)", same(again, a), again)
	}
}
