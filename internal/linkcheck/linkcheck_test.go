package linkcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The linked package, as a release might declare it.
const targetSrc = `package queue

import (
	"context"

	"k8s.io/klog/v2"
)

type PriorityQueue struct{}

func (p *PriorityQueue) flushBackoffQCompleted(logger klog.Logger) {}

func (p *PriorityQueue) flushWithContext(ctx context.Context, logger klog.Logger) error { return nil }

func helper(n int, names ...string) (map[string][]int, bool) { return nil, false }
`

const symbol = "k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted"

// localFile is a linking package's file declaring decl for sym.
func localFile(name, sym, decl string) string {
	return `package upstream

import (
	"context"
	_ "unsafe"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	logs "k8s.io/klog/v2"
)

var _ = context.Background
var _ logs.Logger

//go:linkname ` + name + ` ` + sym + `
` + decl + `
`
}

// write makes a directory holding files.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, src := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCheck: the declaration that matches the release passes, with the
// import written under another name too; each broken declaration (a
// parameter missing, one added, a wrong type, a value receiver, a result
// added, a function for a method) is caught and the error names both
// signatures; a symbol no directive links, and one the release does not
// declare, are errors.
func TestCheck(t *testing.T) {
	target := write(t, map[string]string{"queue.go": targetSrc})
	const pq = "*k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue"
	for _, c := range []struct {
		name, sym, decl string
		want            string // "" for no error, else a part of the error
	}{
		{"control", symbol, "func flush(p *queue.PriorityQueue, logger klog.Logger)", ""},
		{"aliased import", symbol, "func flush(p *queue.PriorityQueue, l logs.Logger)", ""},
		{"control with context and result", strings.Replace(symbol, "flushBackoffQCompleted", "flushWithContext", 1),
			"func flush(p *queue.PriorityQueue, ctx context.Context, logger klog.Logger) error", ""},
		{"function", "k8s.io/kubernetes/pkg/scheduler/backend/queue.helper",
			"func flush(a int, b ...string) (map[string][]int, bool)", ""},
		{"parameter missing", symbol, "func flush(p *queue.PriorityQueue)",
			"declares func(" + pq + ") (), but the linked " + symbol},
		{"parameter added", symbol, "func flush(p *queue.PriorityQueue, ctx context.Context, logger klog.Logger)",
			"is func(" + pq + ", k8s.io/klog/v2.Logger) ()"},
		{"wrong type", symbol, "func flush(p *queue.PriorityQueue, logger context.Context)",
			"declares func(" + pq + ", context.Context) ()"},
		{"value receiver", symbol, "func flush(p queue.PriorityQueue, logger klog.Logger)",
			"declares func(k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue, k8s.io/klog/v2.Logger) ()"},
		{"result added", symbol, "func flush(p *queue.PriorityQueue, logger klog.Logger) error",
			"(error), but the linked"},
		{"variadic lost", "k8s.io/kubernetes/pkg/scheduler/backend/queue.helper",
			"func flush(a int, b []string) (map[string][]int, bool)", "declares func(int, []string)"},
		{"not declared by the release", strings.Replace(symbol, "flushBackoffQCompleted", "flushGone", 1),
			"func flush(p *queue.PriorityQueue, logger klog.Logger)", "no declaration in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			local := write(t, map[string]string{"flush.go": localFile("flush", c.sym, c.decl)})
			err := check(local, c.sym, target)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("the matching declaration is refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("the broken declaration %q passes", c.decl)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("the error does not say %q:\n%v", c.want, err)
			}
		})
	}
	t.Run("no directive links the symbol", func(t *testing.T) {
		local := write(t, map[string]string{"flush.go": localFile("flush", symbol, "func flush(p *queue.PriorityQueue, logger klog.Logger)")})
		other := strings.Replace(symbol, "flushBackoffQCompleted", "flushOther", 1)
		if err := check(local, other, target); err == nil || !strings.Contains(err.Error(), "no go:linkname directive") {
			t.Fatalf("got %v", err)
		}
	})
}

// TestCheckRuntime: Check finds a function's symbol and source through the
// runtime: guessName, declared in this package, checked against its own
// declaration (a directive in a file of a temporary package links it).
func TestCheckRuntime(t *testing.T) {
	const sym = "github.com/schedq/schedq/internal/linkcheck.guessName"
	ok := write(t, map[string]string{"l.go": "package l\n\n//go:linkname g " + sym + "\nfunc g(p string) string\n"})
	if err := Check(ok, guessName); err != nil {
		t.Fatal(err)
	}
	bad := write(t, map[string]string{"l.go": "package l\n\n//go:linkname g " + sym + "\nfunc g(p []byte) string\n"})
	if err := Check(bad, guessName); err == nil {
		t.Fatal("a declaration with a []byte parameter passes against func(string) string")
	}
	if err := Check(ok, 3); err == nil {
		t.Fatal("an int passes as a function")
	}
}

func TestGuessName(t *testing.T) {
	for p, want := range map[string]string{
		"k8s.io/klog/v2": "klog", "context": "context", "github.com/go-logr/logr": "logr",
		"gopkg.in/yaml.v3": "yaml", "github.com/google/go-cmp/cmp": "cmp", "github.com/json-iterator/go": "go",
	} {
		if got := guessName(p); got != want {
			t.Errorf("guessName(%q) = %q, want %q", p, got, want)
		}
	}
}
