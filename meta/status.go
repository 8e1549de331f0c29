package meta

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Status is the body kube-apiserver sends with every failed request and inside
// ERROR watch events.
type Status struct {
	TypeMeta
	Metadata ListMeta       `json:"metadata"`
	Status   string         `json:"status,omitempty"`
	Message  string         `json:"message,omitempty"`
	Reason   StatusReason   `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitzero"`
}

// StatusDetails carries what the server knows about the failed object.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitzero"`
}

// StatusCause is one reason behind a failure.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// StatusReason is the machine-readable reason of a Status.
type StatusReason string

// The reasons an informer acts on. See PROTOCOL.md for what each means.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"

	ReasonUnknown            StatusReason = ""
	ReasonBadRequest         StatusReason = "BadRequest"
	ReasonUnauthorized       StatusReason = "Unauthorized"
	ReasonForbidden          StatusReason = "Forbidden"
	ReasonNotFound           StatusReason = "NotFound"
	ReasonAlreadyExists      StatusReason = "AlreadyExists"
	ReasonConflict           StatusReason = "Conflict"
	ReasonGone               StatusReason = "Gone"
	ReasonExpired            StatusReason = "Expired"
	ReasonInvalid            StatusReason = "Invalid"
	ReasonTooManyRequests    StatusReason = "TooManyRequests"
	ReasonInternalError      StatusReason = "InternalError"
	ReasonServiceUnavailable StatusReason = "ServiceUnavailable"
	ReasonTimeout            StatusReason = "Timeout"
	ReasonServerTimeout      StatusReason = "ServerTimeout"
	ReasonMethodNotAllowed   StatusReason = "MethodNotAllowed"

	// CauseResourceVersionTooLarge is the cause type of a 504 for a read at a
	// resourceVersion the server has not reached yet.
	CauseResourceVersionTooLarge = "ResourceVersionTooLarge"
)

// StatusError is a failure the server reported with a Status body, whether as
// an HTTP reply or as an ERROR watch event.
type StatusError struct {
	Status Status
	// RetryAfter is the Retry-After header, when the reply had one; otherwise
	// the Status's details.retryAfterSeconds.
	RetryAfter time.Duration
}

// NewStatusError builds a StatusError for code, reason and message, the way
// a server would report it.
func NewStatusError(code int32, reason StatusReason, message string) *StatusError {
	return &StatusError{Status: Status{
		TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   StatusFailure, Code: code, Reason: reason, Message: message,
	}}
}

func (e *StatusError) Error() string {
	msg := e.Status.Message
	if msg == "" {
		msg = "the server reported a failure without a message"
	}
	if e.Status.Reason != "" {
		return fmt.Sprintf("%s (%d %s)", msg, e.Status.Code, e.Status.Reason)
	}
	return fmt.Sprintf("%s (%d)", msg, e.Status.Code)
}

// Code returns the HTTP status code of err's Status, or 0 when err carries no
// StatusError.
func Code(err error) int32 {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Code
	}
	return 0
}

// Reason returns the reason of err's Status, or ReasonUnknown.
func Reason(err error) StatusReason {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Reason
	}
	return ReasonUnknown
}

// is reports whether err carries a Status with the reason, or with no known
// reason and the code (older servers and proxies send bare codes).
func is(err error, reason StatusReason, code int32) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	if se.Status.Reason == reason {
		return true
	}
	return se.Status.Reason == ReasonUnknown && se.Status.Code == code
}

// IsNotFound reports a 404: the object, or the resource type itself, is missing.
func IsNotFound(err error) bool { return is(err, ReasonNotFound, 404) }

// IsAlreadyExists reports a create of a name that is taken.
func IsAlreadyExists(err error) bool { return is(err, ReasonAlreadyExists, 0) }

// IsConflict reports a write whose resourceVersion precondition failed.
func IsConflict(err error) bool { return is(err, ReasonConflict, 409) }

// IsFieldManagerConflict reports a server-side apply refused because
// another field manager owns fields it sets (409 with FieldManagerConflict
// causes): trying again changes nothing; apply with force to take them.
func IsFieldManagerConflict(err error) bool {
	var se *StatusError
	if !IsConflict(err) || !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == "FieldManagerConflict" {
			return true
		}
	}
	return false
}

// IsUnauthorized reports missing or rejected credentials (401).
func IsUnauthorized(err error) bool { return is(err, ReasonUnauthorized, 401) }

// IsForbidden reports credentials without the right to the request (403).
func IsForbidden(err error) bool { return is(err, ReasonForbidden, 403) }

// IsBadRequest reports invalid parameters (400).
func IsBadRequest(err error) bool { return is(err, ReasonBadRequest, 400) }

// IsInvalid reports a request the server found invalid (422).
func IsInvalid(err error) bool { return is(err, ReasonInvalid, 422) }

// IsGone reports a 410 with reason Gone or Expired, or a bare 410: the
// resourceVersion or continue token is older than the server's history.
func IsGone(err error) bool {
	return is(err, ReasonGone, 410) || is(err, ReasonExpired, 410)
}

// IsResourceExpired is IsGone under the name client-go users know.
func IsResourceExpired(err error) bool { return IsGone(err) }

// IsTooManyRequests reports a 429; RetryAfter tells how long to wait.
func IsTooManyRequests(err error) bool { return is(err, ReasonTooManyRequests, 429) }

// IsServerTimeout reports a request the server gave up on (504 Timeout or a
// ServerTimeout reason).
func IsServerTimeout(err error) bool {
	return is(err, ReasonServerTimeout, 0) || is(err, ReasonTimeout, 504)
}

// IsInternalError reports a 500.
func IsInternalError(err error) bool { return is(err, ReasonInternalError, 500) }

// IsServiceUnavailable reports a 503.
func IsServiceUnavailable(err error) bool { return is(err, ReasonServiceUnavailable, 503) }

// IsTooLargeResourceVersion reports a read at a resourceVersion newer than the
// server has seen: a 504 Timeout whose causes include ResourceVersionTooLarge.
func IsTooLargeResourceVersion(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) || se.Status.Code != 504 || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == CauseResourceVersionTooLarge {
			return true
		}
	}
	return false
}

// RetryAfter returns how long the server asked the client to wait before a
// retry, and whether it asked at all.
func RetryAfter(err error) (time.Duration, bool) {
	var se *StatusError
	if !errors.As(err, &se) {
		return 0, false
	}
	if se.RetryAfter > 0 {
		return se.RetryAfter, true
	}
	if d := se.Status.Details; d != nil && d.RetryAfterSeconds > 0 {
		return time.Duration(d.RetryAfterSeconds) * time.Second, true
	}
	return 0, false
}

// ParseRetryAfter reads a Retry-After header in its delay-seconds form; the
// HTTP-date form is not used by kube-apiserver and yields false.
func ParseRetryAfter(h string) (time.Duration, bool) {
	n, err := strconv.Atoi(h)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}
