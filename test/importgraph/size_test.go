package importgraph

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The size limits of production code (CLAUDE.md, Rules): a file past
// maxFileLines holds more than one subject, a function past maxFuncLines
// (from its func line to its closing brace) more than one step. Test files
// are exempt.
const (
	maxFileLines = 400
	maxFuncLines = 80
)

// sizeRoots are the trees of production code the limits hold for.
var sizeRoots = []string{"internal/", "cmd/", "pkg/"}

func TestSizes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range productionFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name, err := filepath.Rel(root, path)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("%s: %d lines, over %d: split it by subject", name, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			from, to := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := to.Line - from.Line + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, over %d: split it into steps", name, from.Line, funcName(fd), n, maxFuncLines)
			}
		}
	}
}

// productionFiles lists the non-test Go files of the packages under
// sizeRoots, those left out by build constraints too.
func productionFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, p := range listPackages(t) {
		r, ok := rel(p.ImportPath)
		if !ok || !slices.ContainsFunc(sizeRoots, func(root string) bool { return strings.HasPrefix(r+"/", root) }) {
			continue
		}
		for _, names := range [][]string{p.GoFiles, p.CgoFiles, p.IgnoredGoFiles} {
			for _, n := range names {
				if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
					files = append(files, filepath.Join(p.Dir, n))
				}
			}
		}
	}
	if len(files) == 0 {
		t.Fatal("no production files found")
	}
	return files
}

// funcName is a function's name as a reader searches for it: T.m for a
// method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr: // a generic receiver, T[K]
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		default:
			return fd.Name.Name
		}
	}
}
