// Package linkcheck checks that a function declared with go:linkname has
// the signature of the symbol it links to, in the source of the release the
// build links.
//
// conformance/upstream and realsched call two unexported methods of
// upstream's PriorityQueue, its flushes, through bodiless functions linked
// by go:linkname. The compiler trusts such a declaration: if a release
// changes the method's parameters, the build still links and the call
// passes the wrong arguments. Each module's test runs Check, under each
// release's build tag, on every function it links.
//
// The declarations stay in each module (flush.go and the release files):
// they name Kubernetes types, which the main module must not depend on, and
// neither Kubernetes module can require the other, as Go's minimal version
// selection would then build realsched's v1.33.13 with conformance/upstream's
// newest release. The check, which needs only the standard library, is
// written once, here.
package linkcheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
)

// Check checks each of fns, functions of the package in directory dir
// declared without a body and linked by a go:linkname directive, against
// the symbol the build linked it to: the function's code is that symbol's,
// so its name and source file come from the runtime. The declaration is
// the one in dir whose directive names that symbol. Receiver (as the first
// parameter), parameters and results must be the same types, written with
// their import paths resolved (an alias of a type counts as another type).
// The error names every mismatch, both signatures and where each is
// declared.
func Check(dir string, fns ...any) error {
	var errs []error
	for _, fn := range fns {
		v := reflect.ValueOf(fn)
		if v.Kind() != reflect.Func || v.IsNil() {
			errs = append(errs, fmt.Errorf("linkcheck: %T is not a function", fn))
			continue
		}
		f := runtime.FuncForPC(v.Pointer())
		file, _ := f.FileLine(f.Entry())
		errs = append(errs, check(dir, f.Name(), filepath.Dir(file)))
	}
	return errors.Join(errs...)
}

// check compares the declaration in dir linked to target with target's
// declaration in targetDir, the source directory of its package.
func check(dir, target, targetDir string) error {
	local, err := linkedDecl(dir, target)
	if err != nil {
		return err
	}
	pkgPath, recv, name, err := splitSymbol(target)
	if err != nil {
		return err
	}
	remote, err := findDecl(targetDir, pkgPath, recv, name)
	if err != nil {
		return fmt.Errorf("linkcheck: %s (linked by %s at %s): %w", target, local.name, local.pos, err)
	}
	if local.sig != remote.sig {
		return fmt.Errorf("linkcheck: %s at %s declares %s, but the linked %s at %s is %s",
			local.name, local.pos, local.sig, target, remote.pos, remote.sig)
	}
	return nil
}

// decl is a function's signature, rendered with import paths, and where it
// is declared.
type decl struct {
	name, pos, sig string
}

// linkDirective is a go:linkname directive: the local name, the symbol.
var linkDirective = regexp.MustCompile(`^//go:linkname\s+(\S+)\s+(\S+)\s*$`)

// linkedDecl finds the bodiless function of dir that a go:linkname
// directive links to target. Files of other builds may link the same local
// name to other symbols; the directive's symbol decides.
func linkedDecl(dir, target string) (decl, error) {
	fset := token.NewFileSet()
	files, err := parseDir(fset, dir, false)
	if err != nil {
		return decl{}, err
	}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				m := linkDirective.FindStringSubmatch(c.Text)
				if m == nil || m[2] != target {
					continue
				}
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == m[1] && fd.Body == nil {
						r := resolver{file: f}
						return decl{name: m[1], pos: fset.Position(fd.Pos()).String(), sig: r.signature(nil, fd.Type)}, nil
					}
				}
				return decl{}, fmt.Errorf("linkcheck: %s links %s, but declares no bodiless function %s", fset.Position(c.Pos()), target, m[1])
			}
		}
	}
	return decl{}, fmt.Errorf("linkcheck: no go:linkname directive in %s links %s", dir, target)
}

// findDecl finds the function name of package pkgPath (a method of recv,
// if recv is not empty) in its source directory dir.
func findDecl(dir, pkgPath, recv, name string) (decl, error) {
	fset := token.NewFileSet()
	files, err := parseDir(fset, dir, true)
	if err != nil {
		return decl{}, err
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != name || (fd.Recv == nil) != (recv == "") {
				continue
			}
			r := resolver{file: f, pkgPath: pkgPath}
			var recvField *ast.Field
			if fd.Recv != nil {
				recvField = fd.Recv.List[0]
				if t := r.typ(recvField.Type); t != r.typ(&ast.StarExpr{X: ast.NewIdent(strings.TrimPrefix(recv, "*"))}) && t != r.typ(ast.NewIdent(recv)) {
					continue
				}
			}
			return decl{name: name, pos: fset.Position(fd.Pos()).String(), sig: r.signature(recvField, fd.Type)}, nil
		}
	}
	return decl{}, fmt.Errorf("no declaration in %s", dir)
}

// splitSymbol splits a linker symbol, "path/to/pkg.Func" or
// "path/to/pkg.(*Type).Method", into the package path, the receiver
// ("*Type", or "" for a function) and the name.
func splitSymbol(sym string) (pkgPath, recv, name string, err error) {
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return "", "", "", fmt.Errorf("linkcheck: %q is not a package symbol", sym)
	}
	pkgPath, rest := sym[:slash+1+dot], sym[slash+2+dot:]
	if strings.HasPrefix(rest, "(") {
		end := strings.Index(rest, ").")
		if end < 0 {
			return "", "", "", fmt.Errorf("linkcheck: %q is not a method symbol", sym)
		}
		return pkgPath, rest[1:end], rest[end+2:], nil
	}
	if i := strings.LastIndex(rest, "."); i >= 0 {
		return pkgPath, rest[:i], rest[i+1:], nil
	}
	return pkgPath, "", rest, nil
}

// parseDir parses the Go files of dir that this build would compile (its
// GOOS, GOARCH and no extra tags: the linked package's files are chosen
// that way; the local package's are all read, and the directive picks the
// declaration). Test files are never read.
func parseDir(fset *token.FileSet, dir string, matchBuild bool) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("linkcheck: the source of the linked package is needed (a -trimpath build has none): %w", err)
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if matchBuild {
			if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
				continue
			}
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("linkcheck: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

// resolver renders the types of one file with their import paths: a
// qualified name by its import's path, an unqualified one by pkgPath (the
// file's package; empty for the local file, whose names are qualified).
type resolver struct {
	file    *ast.File
	pkgPath string
}

// signature is "func(receiver, parameters...) (results...)".
func (r resolver) signature(recv *ast.Field, ft *ast.FuncType) string {
	var in []string
	if recv != nil {
		in = append(in, r.typ(recv.Type))
	}
	in = append(in, r.fields(ft.Params)...)
	return "func(" + strings.Join(in, ", ") + ") (" + strings.Join(r.fields(ft.Results), ", ") + ")"
}

// fields lists a field list's types, one per name.
func (r resolver) fields(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		t := r.typ(f.Type)
		for range max(1, len(f.Names)) {
			out = append(out, t)
		}
	}
	return out
}

// typ renders a type expression with import paths.
func (r resolver) typ(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if r.pkgPath == "" || types.Universe.Lookup(e.Name) != nil {
			return e.Name
		}
		return r.pkgPath + "." + e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return r.importPath(x.Name) + "." + e.Sel.Name
		}
	case *ast.StarExpr:
		return "*" + r.typ(e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + r.typ(e.Elt)
		}
		return "[" + types.ExprString(e.Len) + "]" + r.typ(e.Elt)
	case *ast.MapType:
		return "map[" + r.typ(e.Key) + "]" + r.typ(e.Value)
	case *ast.Ellipsis:
		return "..." + r.typ(e.Elt)
	case *ast.ChanType:
		return [...]string{ast.SEND: "chan<- ", ast.RECV: "<-chan ", ast.SEND | ast.RECV: "chan "}[e.Dir] + r.typ(e.Value)
	case *ast.FuncType:
		return r.signature(nil, e)
	case *ast.ParenExpr:
		return r.typ(e.X)
	}
	return types.ExprString(e) // interfaces, structs, generics: as written
}

// importPath is the path of the file's import named name: its alias, or
// the package name its path suggests (the last element, without a major
// version suffix or a "go-" prefix).
func (r resolver) importPath(name string) string {
	for _, im := range r.file.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		if im.Name != nil {
			if im.Name.Name == name {
				return p
			}
			continue
		}
		if guessName(p) == name {
			return p
		}
	}
	return name
}

// guessName is the usual package name of an import path.
func guessName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.Index(base, "."); i >= 0 {
		base = base[:i]
	}
	return strings.ReplaceAll(base, "-", "")
}
