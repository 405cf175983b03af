package view

// ShortcutApplies reports whether a key pressed while the element with
// tag (lower case) and input type typ has the focus is one of the page's
// shortcuts (Space, ←, →, R) rather than the element's own: text and
// number fields and menus keep every key, a slider keeps its arrows, and
// everything else (buttons, checkboxes, radio buttons, the page itself)
// lets the shortcuts through.
func ShortcutApplies(tag, typ, key string, editable bool) bool {
	if editable {
		return false
	}
	switch tag {
	case "textarea", "select":
		return false
	case "input":
		switch typ {
		case "checkbox", "radio", "button", "submit", "reset", "color", "file":
			return true
		case "range":
			return key != "ArrowLeft" && key != "ArrowRight" && key != "ArrowUp" && key != "ArrowDown"
		}
		return false // text, number, search and the other typing fields
	}
	return true
}
