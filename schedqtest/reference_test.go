package schedqtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// referencePath is the scenario language's one reference.
const referencePath = "../docs/scenario-language.md"

// languageKeywords lists every word the parser knows, read from the
// parser itself so that a new operation, argument or config key shows up
// here without anyone listing it: the operations (Kinds), the header
// directives (IsHeader's cases), every argument an argParser method reads
// (p.str("node"), p.flag("blocked"), ...), every key compared to a
// literal (a.Key == "intermittent"), every case literal of OpFromArgs,
// the argParser methods and ParseConfig (config keys, mode=noop,
// relevant=yes), the event names, the requires values, the profiles and
// the attempt statuses.
func languageKeywords(t *testing.T) []string {
	t.Helper()
	kw := map[string]bool{}
	for _, k := range Kinds {
		kw[string(k)] = true
	}
	for _, e := range eventNames() {
		kw[e] = true
	}
	for _, r := range []string{RequirePodInfo, RequireMoveRequestCycle, RequireClosed, RequireBlocking} {
		kw[r] = true
	}
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints, spec.ProfilePodGroups} {
		kw[p.String()] = true
	}
	for _, s := range []spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError} {
		kw[s.String()] = true
	}
	argMethods := []string{"has", "str", "int", "flag", "list", "labels", "object", "find"}
	caseFuncs := []string{"OpFromArgs", "IsHeader", "ParseConfig", "change", "podRef", "podGroupArgs"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			onArgParser := fn.Recv != nil && strings.Contains(types(fn.Recv), "argParser")
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) > 0 && slices.Contains(argMethods, sel.Sel.Name) {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "p" {
							addLit(kw, n.Args[0])
						}
					}
				case *ast.BinaryExpr:
					if sel, ok := n.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Key" && (n.Op == token.EQL || n.Op == token.NEQ) {
						addLit(kw, n.Y)
					}
				case *ast.CaseClause:
					if slices.Contains(caseFuncs, fn.Name.Name) || onArgParser {
						for _, e := range n.List {
							addLit(kw, e)
						}
					}
				}
				return true
			})
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range kw {
			if !yield(k) {
				return
			}
		}
	})
}

func types(fl *ast.FieldList) string {
	var b strings.Builder
	for _, f := range fl.List {
		ast.Inspect(f.Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				b.WriteString(id.Name + " ")
			}
			return true
		})
	}
	return b.String()
}

func addLit(kw map[string]bool, e ast.Expr) {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		if s, err := strconv.Unquote(lit.Value); err == nil && s != "" {
			kw[s] = true
		}
	}
}

// referenceProblems checks a reference page against the parser: every
// ```text block is one scenario's directives (a known-difference takes
// the block's following lines as its input), each must parse, and every
// keyword must be a word of a parsed example: the directive itself, an
// argument's key or one of its values.
func referenceProblems(doc string, keywords []string) []string {
	var problems []string
	words := map[string]bool{}
	var block []string
	inBlock := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case !inBlock && line == "```text":
			inBlock, block = true, nil
		case inBlock && line == "```":
			inBlock = false
			problems = append(problems, parseExampleBlock(block, words)...)
		case inBlock:
			block = append(block, line)
		}
	}
	for _, k := range keywords {
		if !words[k] {
			problems = append(problems, "no example uses "+strconv.Quote(k))
		}
	}
	return problems
}

func parseExampleBlock(lines []string, words map[string]bool) []string {
	var sc Scenario
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			return []string{line + ": " + err.Error()}
		}
		input := ""
		if cmd == "known-difference" {
			input = strings.Join(lines[i+1:], "\n")
			i = len(lines)
		}
		// The words first: the parser consumes args as it reads them.
		lineWords := []string{cmd}
		for _, a := range args {
			lineWords = append(lineWords, a.Key)
			for _, v := range a.Vals {
				lineWords = append(lineWords, v)
				if k, _, ok := strings.Cut(v, "="); ok { // labels=(k=v)
					lineWords = append(lineWords, k)
				}
			}
		}
		if err := sc.AddDirective(cmd, args, input); err != nil {
			return []string{line + ": " + err.Error()}
		}
		for _, w := range lineWords {
			words[w] = true
		}
	}
	return nil
}

// TestLanguageReference fails when docs/scenario-language.md has an
// example that no longer parses, or lacks an operation, argument, config
// key or value that the parser reads.
func TestLanguageReference(t *testing.T) {
	b, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	kw := languageKeywords(t)
	// The scan must see what it claims to: a few words of each source.
	for _, w := range []string{"attempted", "never-popped", "precheck", "old-labels", "zone-hint", "leftover", "intermittent", "observes", "noop", "relevant", "group", "status", "rules"} {
		if !slices.Contains(kw, w) {
			t.Errorf("the parser scan misses %q: it found %v", w, kw)
		}
	}
	for _, p := range referenceProblems(string(b), kw) {
		t.Errorf("%s: %s", referencePath, p)
	}
}

// TestLanguageReferenceCatchesDrift shows the check failing on broken
// copies of the page: an operation's examples removed, an argument
// misspelled, and a keyword the page never mentions.
func TestLanguageReferenceCatchesDrift(t *testing.T) {
	b, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	doc, kw := string(b), languageKeywords(t)
	for _, tc := range []struct {
		name, doc string
		kw        []string
		want      string
	}{
		{"an operation without an example", strings.Replace(doc, "attempted g1 status=success\nattempted g2 status=rejected\nattempted g3 status=error\n", "", 1), kw, `no example uses "attempted"`},
		{"a misspelled argument", strings.Replace(doc, "podgroup-add g1 prio=3", "podgroup-add g1 priority=3", 1), kw, `unexpected "priority=3"`},
		{"an argument the page does not know", doc, append(slices.Clone(kw), "backoff-cap"), `no example uses "backoff-cap"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := referenceProblems(tc.doc, tc.kw)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("the check missed it: want a problem containing %s, got %q", tc.want, problems)
			}
		})
	}
}
