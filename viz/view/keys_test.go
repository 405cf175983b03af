package view

import "testing"

func TestShortcutApplies(t *testing.T) {
	tests := []struct {
		tag, typ, key string
		editable      bool
		want          bool
	}{
		{"body", "", " ", false, true},
		{"button", "", " ", false, true}, // a clicked button keeps the focus
		{"button", "", "ArrowRight", false, true},
		{"summary", "", "r", false, true},
		{"input", "checkbox", " ", false, true},
		{"input", "radio", "ArrowLeft", false, true},
		{"input", "range", " ", false, true},
		{"input", "range", "ArrowLeft", false, false},
		{"input", "range", "r", false, true},
		{"input", "number", "ArrowRight", false, false},
		{"input", "number", "r", false, false},
		{"input", "text", " ", false, false},
		{"input", "", " ", false, false}, // no type attribute: a text field
		{"select", "", "ArrowRight", false, false},
		{"textarea", "", "r", false, false},
		{"div", "", " ", true, false},
	}
	for _, tt := range tests {
		if got := ShortcutApplies(tt.tag, tt.typ, tt.key, tt.editable); got != tt.want {
			t.Errorf("ShortcutApplies(%q, %q, %q, %v) = %v, want %v", tt.tag, tt.typ, tt.key, tt.editable, got, tt.want)
		}
	}
}
