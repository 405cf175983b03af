package synth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"testing"
)

// TestDefaultConfigMatchesSim checks that every field of Config has the
// same default as core/sim.DefaultConfig, read from its source so that this
// package's tests do not depend on the simulator building.
func TestDefaultConfigMatchesSim(t *testing.T) {
	const path = "../sim/config.go"
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Skipf("sim's configuration is not readable: %v", err)
	}
	simDefaults := map[string]string{}
	ast.Inspect(file, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "DefaultConfig" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok {
					if lit, ok := kv.Value.(*ast.BasicLit); ok {
						simDefaults[key.Name] = lit.Value
					}
				}
			}
			return true
		})
		return false
	})
	if len(simDefaults) == 0 {
		t.Fatalf("found no DefaultConfig literal in %s", path)
	}
	ours := reflect.ValueOf(DefaultConfig())
	for i := range ours.NumField() {
		name := ours.Type().Field(i).Name
		lit, ok := simDefaults[name]
		if !ok {
			t.Errorf("sim.DefaultConfig sets no literal %s", name)
			continue
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			t.Errorf("sim's default %s = %s is not a number", name, lit)
			continue
		}
		var got float64
		switch f := ours.Field(i); f.Kind() {
		case reflect.Int:
			got = float64(f.Int())
		case reflect.Uint64:
			got = float64(f.Uint())
		case reflect.Float64:
			got = f.Float()
		}
		if got != want {
			t.Errorf("default %s is %v here, %s in sim", name, got, lit)
		}
	}
}
