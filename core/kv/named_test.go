package kv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository's top directory, from this package's.
const repoRoot = "../.."

// builtinNames are the built-in policies' names, and their constants'
// as policy.go declares them.
func builtinNames(t *testing.T) (names map[string]bool, consts map[string]bool) {
	names, consts = map[string]bool{}, map[string]bool{}
	for p := Policy(0); p < numPolicies; p++ {
		names[p.String()] = true
	}
	f, err := parser.ParseFile(token.NewFileSet(), "policy.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if n.IsExported() && n.Obj != nil {
					if v, ok := n.Obj.Decl.(*ast.ValueSpec); ok && (v.Type == nil || v.Type.(*ast.Ident).Name == "Policy") && len(consts) < int(numPolicies) {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	if len(consts) != int(numPolicies) {
		t.Fatalf("found %d policy constants in policy.go, want %d", len(consts), numPolicies)
	}
	return names, consts
}

// namesPolicy reports whether e's source mentions a policy: an identifier
// or field whose name holds "policy".
func namesPolicy(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "policy") {
			found = true
		}
		return !found
	})
	return found
}

// No Go code outside core/kv switches on a policy's name or keeps its own
// table of policies: each policy describes itself once, in its own file in
// core/kv, and everything else asks the description. Flagged in non-test
// Go files:
//   - a switch case or a comparison with a policy's name where the other
//     side names a policy (policy == "quest", case "duo" in switch
//     c.Policy), or a switch listing two or more policies' names;
//   - a comparison or case with kv's policy constants (p == kv.Quest);
//   - a map literal keyed by two or more policies' names or constants;
//   - a slice or array literal listing three or more policies' names.
//
// A lesson's or a preset's setting that names a policy is data: an
// assignment or a call's argument is not flagged.
func TestNoPolicyTablesOutsideKV(t *testing.T) {
	names, consts := builtinNames(t)
	isName := func(e ast.Expr) bool {
		l, ok := e.(*ast.BasicLit)
		if !ok || l.Kind != token.STRING {
			return false
		}
		v, err := strconv.Unquote(l.Value)
		return err == nil && names[v]
	}
	isConst := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := s.X.(*ast.Ident)
		return ok && x.Name == "kv" && consts[s.Sel.Name]
	}
	checked := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if d.IsDir() {
			if rel == filepath.Join("core", "kv") || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		flag := func(n ast.Node, what string) {
			t.Errorf("%s: %s (ask the policy's kv.Description instead)", fset.Position(n.Pos()), what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SwitchStmt:
				var hits int
				for _, s := range n.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if isConst(e) {
							flag(e, "a case on a kv policy constant")
						}
						if isName(e) {
							hits++
						}
					}
				}
				if hits > 0 && (hits >= 2 || n.Tag != nil && namesPolicy(n.Tag)) {
					flag(n, "a switch on policies' names")
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					break
				}
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if isConst(pair[0]) || isName(pair[0]) && namesPolicy(pair[1]) {
						flag(n, "a comparison with a policy")
					}
				}
			case *ast.CompositeLit:
				keys, elems := 0, 0
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if isName(kv.Key) || isConst(kv.Key) {
							keys++
						}
					} else if isName(e) {
						elems++
					}
				}
				if keys >= 2 {
					flag(n, "a table keyed by policies")
				}
				if elems >= 3 {
					flag(n, "a list of policies")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: is %s the repository?", checked, repoRoot)
	}
}

// No JavaScript of the page names a policy: the chart and the panels get
// the policies' labels, colours and settings from the Go descriptions
// (window.kvscope.catalog()), and the page's HTML has no per-policy text.
func TestNoPolicyNamesInThePagesScripts(t *testing.T) {
	names, _ := builtinNames(t)
	lit := regexp.MustCompile(`'([^'\\\n]*)'|"([^"\\\n]*)"`)
	scripts, err := filepath.Glob(filepath.Join(repoRoot, "static", "*.js"))
	if err != nil || len(scripts) < 3 {
		t.Fatalf("scripts %v, %v", scripts, err)
	}
	for _, path := range scripts {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code := line
			if j := strings.Index(code, "//"); j >= 0 && !strings.Contains(code[:j], "'") && !strings.Contains(code[:j], `"`) {
				code = code[:j] // a comment
			}
			for _, m := range lit.FindAllStringSubmatch(code, -1) {
				if v := m[1] + m[2]; names[v] {
					t.Errorf("%s:%d: the policy name %q", path, i+1, v)
				}
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(repoRoot, "static", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range names {
		for _, s := range []string{`id="learn-` + name + `"`, `value="` + name + `"`} {
			if strings.Contains(string(page), s) {
				t.Errorf("index.html holds %s", s)
			}
		}
	}
}
