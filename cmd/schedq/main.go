package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/schedqtest"
)

// Exit statuses.
const (
	exitOK = 0
	// exitFailed: an invariant broke, model and implementation disagreed,
	// or a file's expected output is not what the model prints.
	exitFailed = 1
	// exitUsage: bad command line, or a scenario that cannot be read or
	// played (a mistake in the file, not in a queue).
	exitUsage = 2
)

const usage = `schedq replays scheduling-queue scenarios and draws them.

Usage:

	schedq run [--impl] [--html OUT] [--quiet] FILE...
	schedq run --rewrite FILE...
	schedq help [run]

A scenario FILE is written in the scenario language of package
github.com/schedq/schedq/schedqtest (one operation a line, each followed by
"----" and the state the model prints after it); "-" reads standard input,
and a directory stands for every *.txt file below it.
The conformance catalogue is in conformance/testdata/scenarios/.

Exit status: 0 if every invariant held (and, with --impl, model and
implementation agreed, and every file's expected output is what the model
prints); 1 otherwise; 2 for a bad command line or a scenario that cannot be
read or played.
`

const runUsage = `Usage: schedq run [--impl] [--html OUT] [--quiet] FILE...
       schedq run --rewrite FILE...

run replays each scenario FILE (a directory: every *.txt below it) against
the model (package model, the executable specification), in the profile
the file's config directive names: "config profile=classic" (the
default), "config profile=hints" or "config profile=podgroups".
After every step it prints the step number, the file line, the operation,
its result and the queues as the model renders them, and it checks the
profile's invariants (spec.CheckStep: I1-I6 in the classic profile; I1,
I2h-I5h, I6 and I7 in the hints profile; those and IG1-IG4 in the
podgroups profile), naming any that broke. If the
file states expected outputs, they must be what the model prints. With --impl, a known difference the file declares for profile
schedq-impl turns the implementation's problems into a report (exit 0), and
fails as stale if the implementation behaves as the model.

Flags:

	--impl       replay against the implementation (package impl, on a fake
	             clock, flushes only where the scenario says) too, step by
	             step beside the model: results, states and the
	             implementation's own invariants are compared, each
	             difference shown as "model: X / impl: Y". Among equal
	             pods (I5) the model follows the implementation's choice.
	--html OUT   also write OUT (its name ends in .html or .htm), one
	             self-contained HTML page: a timeline
	             with one row per pod coloured by place (activeQ, backoffQ,
	             unschedulablePods, in flight, gone), backoff expiries and
	             move requests marked, and the operation list with the
	             state after each step. Only with one FILE. OUT is never
	             an input: a path that is one of the FILEs, or an existing
	             file this command did not write, is refused.
	--quiet, -q  print only problems and the summary line of each file.
	--rewrite    write what the model prints after each operation into the
	             FILE as its expected output (the lines after each ----),
	             keeping everything else of the file, then replay the file
	             as written. Model only: not with --impl or --html, nor
	             on standard input. A file that cannot be played is left
	             unchanged.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command line; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] == "run" {
			fmt.Fprint(stdout, runUsage)
		} else {
			fmt.Fprint(stdout, usage)
		}
		return exitOK
	case "run":
		return runCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "schedq: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

type runFlags struct {
	impl    bool
	html    string
	quiet   bool
	rewrite bool
	files   []string
}

// parseRunFlags accepts flags before, between and after the files
// ("schedq run FILE --impl" as well as "schedq run --impl FILE").
func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.impl, "impl", false, "")
	fs.StringVar(&f.html, "html", "", "")
	fs.BoolVar(&f.quiet, "quiet", false, "")
	fs.BoolVar(&f.quiet, "q", false, "")
	fs.BoolVar(&f.rewrite, "rewrite", false, "")
	for {
		if err := fs.Parse(args); err != nil {
			return f, err
		}
		if fs.NArg() == 0 {
			break
		}
		f.files = append(f.files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(f.files) == 0:
		return f, errors.New("no scenario file")
	case f.html != "" && len(f.files) > 1:
		return f, errors.New("--html draws one scenario; give one FILE")
	case f.rewrite && (f.impl || f.html != ""):
		return f, errors.New("--rewrite writes what the model prints: run it without --impl and --html, then replay the file with them")
	case f.rewrite && slices.Contains(f.files, "-"):
		return f, errors.New("--rewrite writes the file back: it cannot rewrite standard input")
	}
	return f, nil
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	stderr = controlEscaper{stderr}
	f, err := parseRunFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, runUsage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedq run: %v\n\n%s", err, runUsage)
		return exitUsage
	}
	files, err := expandDirs(f.files)
	if err == nil && f.html != "" && len(files) > 1 {
		err = fmt.Errorf("--html draws one scenario; %s holds %d", strings.Join(f.files, " "), len(files))
	}
	if err == nil && f.html != "" {
		err = checkHTMLOut(f.html, files)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedq run: %v\n", err)
		return exitUsage
	}
	status := exitOK
	for i, path := range files {
		if i > 0 && !f.quiet {
			fmt.Fprintln(stdout)
		}
		fl, err := readFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "schedq run: %v\n", err)
			status = exitUsage
			continue
		}
		if f.rewrite {
			if fl, err = rewrite(fl); err != nil {
				fmt.Fprintf(stderr, "schedq run: %v\n", err)
				status = exitUsage
				continue
			}
			fmt.Fprintf(stdout, "rewrote %s: the model's output after each of its %d operations\n", path, len(fl.sc.Ops))
		}
		t := replay(fl, f.impl)
		writeText(stdout, t, f.quiet)
		if f.html != "" {
			if err := writeHTMLFile(f.html, t); err != nil {
				fmt.Fprintf(stderr, "schedq run: %v\n", err)
				status = exitUsage
			} else if !f.quiet {
				fmt.Fprintf(stdout, "wrote %s\n", f.html)
			}
		}
		switch {
		case t.Err != nil:
			fmt.Fprintf(stderr, "schedq run: %s: %v\n", fl.sc.Name, t.Err)
			status = exitUsage
		case t.Failed() && status == exitOK:
			status = exitFailed
		}
	}
	return status
}

// expandDirs replaces each directory among paths by the scenario files
// (*.txt) below it, in lexical order.
func expandDirs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(q, ".txt") {
				out = append(out, q)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no scenario files (*.txt) below it", p)
		}
	}
	return out, nil
}

func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

// hang prefixes the first line of s with first and the others with rest.
func hang(s, first, rest string) string {
	s = strings.TrimSuffix(s, "\n")
	return first + strings.ReplaceAll(s, "\n", "\n"+rest) + "\n"
}

// indent prefixes every line of s with p.
func indent(s, p string) string {
	s = strings.TrimSuffix(s, "\n")
	return p + strings.ReplaceAll(s, "\n", "\n"+p) + "\n"
}

// rewrite replays f on the model and writes what the model prints after
// each operation into f's file as its expected output, keeping every other
// line (comments, headers, inputs, blank lines) as it is. It returns the
// file as rewritten, read back. A scenario that cannot be played (an
// error in a step) leaves the file unchanged.
func rewrite(f *file) (*file, error) {
	t := replay(f, false)
	if t.Err != nil {
		return nil, fmt.Errorf("%s: not rewritten: %v", f.path, t.Err)
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	text, err := withExpected(string(data), t)
	if err != nil {
		return nil, fmt.Errorf("%s: not rewritten: %v", f.path, err)
	}
	if err := writeFileAtomic(f.path, []byte(text)); err != nil {
		return nil, err
	}
	return readFile(f.path)
}

// withExpected returns text with the expected output of each operation
// replaced by what the model printed at that step of t. It walks the file
// as schedqtest.ReadDirectives reads it: a directive line, input lines up
// to "----", the expected output up to a blank line.
func withExpected(text string, t *trace) (string, error) {
	lines := strings.Split(text, "\n")
	var out []string
	op := 0
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			out = append(out, lines[i])
			continue
		}
		cmd, _, err := datadriven.ParseLine(l)
		if err != nil {
			return "", fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, lines[i])
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			out = append(out, lines[i])
		}
		if i == len(lines) {
			return "", fmt.Errorf("%s has no ---- line", cmd)
		}
		out = append(out, lines[i])
		end := i + 1
		for end < len(lines) && lines[end] != "" {
			end++
		}
		if schedqtest.IsHeader(cmd) {
			out = append(out, lines[i+1:end]...)
		} else {
			if op >= len(t.Steps) {
				return "", fmt.Errorf("line %d: more operations than the replay has steps", i+1)
			}
			s := &t.Steps[op]
			got := s.Result + "\n" + schedqtest.Render(s.Model, schedqtest.Start, t.Cfg)
			out = append(out, strings.Split(strings.TrimSuffix(got, "\n"), "\n")...)
			op++
		}
		i = end - 1
	}
	if op != len(t.Steps) {
		return "", fmt.Errorf("the file has %d operations, the replay %d steps", op, len(t.Steps))
	}
	return strings.Join(out, "\n"), nil
}
