package sim

import (
	"fmt"
	"testing"
)

// Every role has its own key, one word the page can put in an attribute,
// and exactly the four roles of a cached token are held.
func TestRoleKeys(t *testing.T) {
	seen := map[string]Role{}
	held := 0
	for r := Role(0); int(r) < NumRoles; r++ {
		k := r.Key()
		if k == "unknown" || k == "" {
			t.Errorf("role %d (%s) has no key", r, r)
		}
		for _, c := range k {
			if c < 'a' || c > 'z' {
				t.Errorf("role %s: key %q is not one lower-case word", r, k)
			}
		}
		if o, ok := seen[k]; ok {
			t.Errorf("roles %s and %s share the key %q", o, r, k)
		}
		seen[k] = r
		if r.Held() {
			held++
		}
	}
	if held != 4 || Evicted.Held() || Future.Held() || Windowed.Held() {
		t.Errorf("%d roles held; evicted %v, future %v, windowed %v", held, Evicted.Held(), Future.Held(), Windowed.Held())
	}
	if Role(NumRoles).Key() != "unknown" {
		t.Errorf("a role past the last has key %q", Role(NumRoles).Key())
	}
}

func ExampleRole_Key() {
	for _, r := range []Role{Sink, Heavy, Recent, Evicted} {
		fmt.Printf("%s: %s\n", r.Key(), r)
	}
	// Output:
	// sink: sink
	// heavy: heavy hitter
	// recent: recent
	// evicted: evicted
}
