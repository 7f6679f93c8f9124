package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hints scenario of the catalogue, with an in-flight list that fills
// and empties, and a backoff that crosses a window boundary.
const (
	hintsDone   = "../../conformance/testdata/scenarios/hints/done/trims-the-events-no-pod-needs.txt"
	hintsWindow = "../../conformance/testdata/scenarios/hints/backoff/the-window-boundary.txt"
)

// The text names the scenario's profile and its invariants: a hints
// replay used to say "I1-I6 held" and nothing of the profile.
func TestRunShowsTheProfileAndItsInvariants(t *testing.T) {
	code, out, errOut := schedq(t, "run", hintsDone)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	wantContains(t, out, "\nprofile: hints (kube-scheduler v1.37.2", "invariants I1, I2h-I5h, I6, I7 held after every step\n")
	if strings.Contains(out, "I1-I6") {
		t.Errorf("a hints replay names the classic invariants:\n%s", out)
	}
	code, out, errOut = schedq(t, "run", tour)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	wantContains(t, out, "\nprofile: classic (kube-scheduler v1.33.13", "invariants I1-I6 held after every step\n")
	// A podgroups replay said "profile: classic" and "I1-I6 held".
	code, out, errOut = schedq(t, "run", "../../conformance/testdata/scenarios/podgroups/G1-membership.txt")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	wantContains(t, out, "\nprofile: podgroups (kube-scheduler v1.37.2 with GenericWorkload", "invariants I1, I2h-I5h, I6, I7, IG1-IG4 held after every step\n")
}

// The page of a hints scenario names the profile and its invariants,
// draws the in-flight list (R15) and labels backoff by R7h; it used to
// say "I1-I6 held", draw no in-flight list and cite R7.
func TestHTMLShowsTheHintsProfile(t *testing.T) {
	render := func(file string) (page, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "p.html")
		if code, stdout, errOut := schedq(t, "run", "-q", "--html", out, file); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return parsePage(t, b), string(b)
	}
	p, raw := render(hintsDone)
	wantContains(t, p.text, "hints (kube-scheduler v1.37.2", "invariants I1, I2h-I5h, I6, I7 held",
		"in-flight list", "in-flight list after step 3 (R15): pod:ns/a")
	if strings.Contains(p.text, "I1-I6") {
		t.Error("the hints page names the classic invariants")
	}
	if !strings.Contains(raw, `class="counterlabel"`) {
		t.Fatal("no counter rows")
	}
	p, _ = render(hintsWindow)
	wantContains(t, p.text, "(R7h)", "R7h: expiry truncated to its one-second window")
	if strings.Contains(p.text, "(R7)") || strings.Contains(p.text, "R7:") {
		t.Error("the hints page labels backoff by the classic rule R7")
	}
	// The classic page: R7, no in-flight list.
	p, _ = render(tour)
	wantContains(t, p.text, "classic (kube-scheduler v1.33.13", "(R7)", "invariants I1-I6 held")
	if strings.Contains(p.text, "in-flight list") {
		t.Error("the classic page draws an in-flight list")
	}
}

// stripExpected removes every expected output of a scenario file.
func stripExpected(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if lines[i] == "----" {
			for i+1 < len(lines) && lines[i+1] != "" {
				i++
			}
		}
	}
	return strings.Join(out, "\n")
}

// schedq run --rewrite writes what the model prints into the file and
// keeps the rest: a file stripped of its expectations, or with a stale
// one, is rewritten to the catalogue's own text.
func TestRunRewriteWritesTheModelsOutput(t *testing.T) {
	for _, src := range []string{tour, hintsDone} {
		orig, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{
			"stripped": stripExpected(string(orig)),
			"stale":    strings.Replace(string(orig), "schedulingCycle=1 ", "schedulingCycle=7 ", 1),
		} {
			if text == string(orig) {
				t.Fatalf("%s: the %s copy is the original", src, name)
			}
			path := filepath.Join(t.TempDir(), filepath.Base(src))
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := schedq(t, "run", "-q", "--rewrite", path)
			if code != exitOK {
				t.Fatalf("%s %s: exit %d\n%s%s", src, name, code, out, errOut)
			}
			wantContains(t, out, "rewrote "+path, ": ok: ")
			got, _ := os.ReadFile(path)
			if string(got) != string(orig) {
				t.Errorf("%s %s: rewritten file differs from the original:\n%s", src, name, got)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
				t.Errorf("rewrite changed the file's mode to %v", st.Mode().Perm())
			}
		}
	}
	// What cannot be rewritten is refused, and the file is unchanged.
	dir := t.TempDir()
	bad := filepath.Join(dir, "never-popped.txt")
	text := "add a\n----\n\nfail a\n----\n"
	os.WriteFile(bad, []byte(text), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rewrite", bad}, "not rewritten"},
		{[]string{"run", "--rewrite", "--impl", bad}, "--rewrite writes what the model prints"},
		{[]string{"run", "--rewrite", "--html", filepath.Join(dir, "x.html"), bad}, "--rewrite writes what the model prints"},
		{[]string{"run", "--rewrite", "-"}, "cannot rewrite standard input"},
	} {
		code, out, errOut := schedq(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("schedq %q: exit %d, want %d with %q\n%s%s", tc.args, code, exitUsage, tc.want, out, errOut)
		}
		if got, _ := os.ReadFile(bad); string(got) != text {
			t.Errorf("schedq %q changed the file:\n%s", tc.args, got)
		}
	}
}

// An unknown plugin name and a hints-only argument in a classic file are
// refused with the file and line; both used to replay silently (the typo
// as a plugin that registered nothing).
func TestRunRejectsUnknownPluginsAndHintsOnlyArguments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"typo.txt", "add a\n----\n\npop\n----\n\nfail a plugins=(Fitt)\n----\n", `typo.txt:7: fail: plugins=(...) names "Fitt", which is not a plugin of the classic profile's scenarios`},
		{"hints-plugin-in-classic.txt", "add a\n----\n\npop\n----\n\nfail a plugins=(Gate)\n----\n", `hints-plugin-in-classic.txt:7: fail: plugins=(...) names "Gate"`},
		{"classic-plugin-in-hints.txt", "config profile=hints\n----\n\nadd a\n----\n\npop\n----\n\nfail a plugins=(NodeResourcesFit)\n----\n", `classic-plugin-in-hints.txt:10: fail: plugins=(...) names "NodeResourcesFit", which is not a plugin of the hints profile's scenarios`},
		{"pending-in-classic.txt", "add a\n----\n\npop\n----\n\nfail a plugins=(NodeResourcesFit) pending=(TaintToleration)\n----\n", `pending-in-classic.txt:7: fail: pending= is an argument of the hints profile only`},
		{"pending-typo.txt", "config profile=hints\n----\n\nadd a\n----\n\npop\n----\n\nfail a pending=(Fitt)\n----\n", `pending=(...) names "Fitt"`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := schedq(t, "run", path)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, code, exitUsage, tc.want, out, errOut)
		}
	}
	// The names the profiles do have are accepted.
	ok := filepath.Join(dir, "ok.txt")
	os.WriteFile(ok, []byte("config profile=hints\n----\n\nadd a\n----\n\npop\n----\n\nfail a plugins=(Fit,UnregisteredPlugin) pending=(Gate)\n----\n"), 0o644)
	if code, out, errOut := schedq(t, "run", "-q", ok); code != exitOK {
		t.Errorf("a valid hints file: exit %d\n%s%s", code, out, errOut)
	}
}
