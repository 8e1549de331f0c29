package meta

import "time"

// Condition is one entry of an object's status.conditions, as
// metav1.Condition: what is true of the object (Type, Status), why
// (Reason, Message), since when (LastTransitionTime: the last change of
// Status) and for which generation of its spec (ObservedGeneration).
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"` // ConditionTrue, ConditionFalse or ConditionUnknown
	ObservedGeneration int64     `json:"observedGeneration,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime"`
	Reason             string    `json:"reason"`
	Message            string    `json:"message"`
}

// The values of Condition.Status.
const (
	ConditionTrue    = "True"
	ConditionFalse   = "False"
	ConditionUnknown = "Unknown"
)
