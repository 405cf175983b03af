package store

import (
	"fmt"
	"slices"
	"strings"
)

// Granularity, Rotation and Quantizer are small enumerations named by a
// table in value order (an empty entry: a value without a name). String
// and Parse of each are nameOf and parseName over its table.

// nameOf returns names[v], or "typ(v)" for a value the table does not name.
func nameOf[E ~uint8](names []string, v E, typ string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// parseName returns the value named s (its index in names), or an error
// calling s an unknown what and listing the names. The empty name is never
// found: a gap in the table names nothing.
func parseName[E ~uint8](names []string, s, what string) (E, error) {
	if i := slices.Index(names, s); i >= 0 && s != "" {
		return E(i), nil
	}
	return 0, fmt.Errorf("store: unknown %s %q (want %s)", what, s, orList(names))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
