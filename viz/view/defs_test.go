package view

import (
	"reflect"
	"strings"
	"testing"
)

// Terms in prose are marked where they stand, whatever their case, and
// each one's definition exists.
func TestMarkTerms(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []Span
	}{
		{"", nil},
		{"no term here", []Span{{Text: "no term here"}}},
		{"Seed 000 makes one decision.", []Span{{Text: "Seed 000", Def: "seed000"}, {Text: " makes one decision."}}},
		{"as in seed 000", []Span{{Text: "as in "}, {Text: "seed 000", Def: "seed000"}}},
		{"seed 000 and SEED 000", []Span{{Text: "seed 000", Def: "seed000"}, {Text: " and "}, {Text: "SEED 000", Def: "seed000"}}},
	} {
		if got := MarkTerms(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MarkTerms(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
	for term, key := range Terms {
		if d, ok := Definitions()[key]; !ok || !strings.EqualFold(d.Name, term) {
			t.Errorf("term %q: definition %q is %+v", term, key, d)
		}
	}
}
