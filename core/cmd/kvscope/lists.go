package main

import (
	"fmt"
	"strings"
)

// The list flags (-sweep-budgets, -depths, -policies…) are comma-separated:
// fields splits them; split and parseList read them, as names or as values.

// fields returns the comma-separated fields of s, trimmed of spaces (one
// empty field for an empty s).
func fields(s string) []string {
	fs := strings.Split(s, ",")
	for i, f := range fs {
		fs[i] = strings.TrimSpace(f)
	}
	return fs
}

// split returns the non-empty fields of s: empty ones are skipped.
func split(s string) []string {
	var out []string
	for _, f := range fields(s) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseList parses every field of s with parse (an empty field is parse's
// to refuse), so the list has at least one element; an error names flag
// and the field.
func parseList[T any](s, flag string, parse func(string) (T, error)) ([]T, error) {
	var xs []T
	for _, f := range fields(s) {
		x, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %v", flag, f, err)
		}
		xs = append(xs, x)
	}
	return xs, nil
}
