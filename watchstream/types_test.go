package watchstream_test

import "github.com/zerokube/zerokube/meta"

// testPod is the slim user struct of the tests: the fields an informer user
// would declare.
type testPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status"`
}
