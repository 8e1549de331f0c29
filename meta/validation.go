package meta

import (
	"fmt"
	"strings"
)

// Limits Kubernetes puts on label keys and values.
const (
	// MaxLabelNameLength bounds a label value and the name part of a key.
	MaxLabelNameLength = 63
	// MaxLabelPrefixLength bounds the DNS-1123 subdomain prefix of a key.
	MaxLabelPrefixLength = 253
)

// ValidateLabelKey checks k the way kube-apiserver does: an optional prefix
// that is a DNS-1123 subdomain (at most 253 characters) and a "/", then a name
// of 1 to 63 characters made of alphanumerics, '-', '_' and '.', starting and
// ending with an alphanumeric.
func ValidateLabelKey(k string) error {
	prefix, name := "", k
	if i := strings.IndexByte(k, '/'); i >= 0 {
		prefix, name = k[:i], k[i+1:]
		if err := validateDNSSubdomain(prefix); err != nil {
			return fmt.Errorf("meta: label key %q: prefix: %w", k, err)
		}
	}
	if name == "" {
		return fmt.Errorf("meta: label key %q: the name part must not be empty", k)
	}
	if err := validateLabelName(name); err != nil {
		return fmt.Errorf("meta: label key %q: name part: %w", k, err)
	}
	return nil
}

// ValidateLabelValue checks v the way kube-apiserver does: empty, or 1 to 63
// characters made of alphanumerics, '-', '_' and '.', starting and ending with
// an alphanumeric.
func ValidateLabelValue(v string) error {
	if v == "" {
		return nil
	}
	if err := validateLabelName(v); err != nil {
		return fmt.Errorf("meta: label value %q: %w", v, err)
	}
	return nil
}

// validateLabelName checks the shared syntax of key names and values.
func validateLabelName(s string) error {
	if len(s) > MaxLabelNameLength {
		return fmt.Errorf("must be at most %d characters, has %d", MaxLabelNameLength, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c):
		case c == '-' || c == '_' || c == '.':
			if i == 0 || i == len(s)-1 {
				return fmt.Errorf("must start and end with an alphanumeric character")
			}
		default:
			return fmt.Errorf("character %q at %d is not allowed (alphanumerics, '-', '_', '.')", c, i)
		}
	}
	return nil
}

// validateDNSSubdomain checks a DNS-1123 subdomain: lower-case labels of
// alphanumerics and '-' joined by '.', at most 253 characters.
func validateDNSSubdomain(s string) error {
	if s == "" {
		return fmt.Errorf("must not be empty")
	}
	if len(s) > MaxLabelPrefixLength {
		return fmt.Errorf("must be at most %d characters, has %d", MaxLabelPrefixLength, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		lowerAlnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		switch {
		case lowerAlnum:
		case c == '-' || c == '.':
			if i == 0 || i == len(s)-1 {
				return fmt.Errorf("must start and end with a lower-case alphanumeric character")
			}
			if c == '.' && (s[i-1] == '.' || s[i-1] == '-' || s[i+1] == '-') {
				return fmt.Errorf("each dot-separated part must start and end with an alphanumeric character")
			}
		default:
			return fmt.Errorf("character %q at %d is not allowed (lower-case alphanumerics, '-', '.')", c, i)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
