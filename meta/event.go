package meta

// EventType is the "type" of a watch event on the wire.
type EventType string

// The five watch event types kube-apiserver sends.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// InitialEventsEndAnnotation marks the BOOKMARK that ends the initial events
// of a streaming list (sendInitialEvents=true); its value is "true".
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Valid reports whether t is one of the five types.
func (t EventType) Valid() bool {
	switch t {
	case Added, Modified, Deleted, Bookmark, Error:
		return true
	}
	return false
}
