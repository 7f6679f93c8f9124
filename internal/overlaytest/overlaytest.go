// Package overlaytest runs one test of a package with some of its files
// replaced (go test -overlay): how the mutant tables of impl and properties
// show that their suites catch deliberately broken variants of the code,
// without a broken copy of the code ever being compiled into the module.
package overlaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Limit bounds one run: a run killed at it counts as failed (the mutant
// hung the suite, which the suite must then diagnose, not pass).
const Limit = 5 * time.Minute

// Run runs `go test -run ^test$ pkg` in the module at root, with the files
// of overlay (module-relative path -> content) replacing the originals,
// env added to the environment and flags after the package, and returns
// its output and whether it failed. Vet is off: the mutants are small
// patches of vetted code, and vetting each would double its build.
func Run(t testing.TB, root, pkg, test string, overlay map[string]string, env []string, flags ...string) (out string, failed bool) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	dir := t.TempDir()
	replace := make(map[string]string)
	for file, content := range overlay {
		p := filepath.Join(dir, filepath.Base(file))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, file)] = p
	}
	js, _ := json.Marshal(map[string]any{"Replace": replace})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, js, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Limit)
	defer cancel()
	args := append([]string{"test", "-vet=off", "-overlay=" + ov, "-run", "^" + test + "$", "-count=1",
		"-timeout=" + (Limit - time.Minute).String(), pkg}, flags...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if ctx.Err() != nil {
		return buf.String() + "\n(killed: " + Limit.String() + " limit)", true
	}
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("go test: %v", err)
		}
	}
	return buf.String(), err != nil
}

// BuildFailure returns the compiler's complaint if the run failed to
// build (a patch that no longer applies to the code it names), else "".
func BuildFailure(out string) string {
	if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
		return out
	}
	return ""
}
