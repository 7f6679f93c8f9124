// Command tlagraph converts the state graph TLC dumps for one of the
// agreement configurations (`tlc2.TLC -dump dot,actionlabels FILE -config
// Graph.cfg MCSchedulingQueue.tla`, GraphHints.cfg with
// MCSchedulingQueueHints.tla, or GraphPodGroups.cfg with
// MCSchedulingQueuePodGroups.tla) into the canonical graph that
// agreement_test.go compares with the Go model, stamped with the hash of the
// TLA+ sources it came from. `make tla-graph` runs TLC and then this.
//
// Usage:
//
//	go run ./tla/cmd/tlagraph -dot states.dot -module MCSchedulingQueue -cfg Graph.cfg -dir tla -out tla/testdata/Graph.txt.gz
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedq/schedq/tla/internal/stategraph"
)

func main() {
	dot := flag.String("dot", "", "the dot file TLC wrote with -dump dot,actionlabels")
	module := flag.String("module", "MCSchedulingQueue", "the model-checking module TLC ran (MCSchedulingQueue, MCSchedulingQueueHints, MCSchedulingQueuePodGroups)")
	cfg := flag.String("cfg", "Graph.cfg", "the configuration TLC ran, relative to -dir")
	dir := flag.String("dir", "tla", "the directory of the TLA+ sources the dump came from")
	out := flag.String("out", "", "the canonical graph to write (default DIR/testdata/CFG-without-.cfg.txt.gz)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*dir, "testdata", strings.TrimSuffix(*cfg, ".cfg")+".txt.gz")
	}
	if err := run(*dot, *module, *cfg, *dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "tlagraph:", err)
		os.Exit(1)
	}
}

func run(dot, module, cfg, dir, out string) error {
	if dot == "" {
		return fmt.Errorf("-dot is required")
	}
	f, err := os.Open(dot)
	if err != nil {
		return err
	}
	defer f.Close()
	g, err := stategraph.FromDot(f)
	if err != nil {
		return err
	}
	if g.SourceHash, err = stategraph.SourceHash(dir, module, cfg); err != nil {
		return err
	}
	if err := g.WriteFile(out); err != nil {
		return err
	}
	fmt.Printf("tlagraph: %d states, %d edges -> %s (source sha256 %s)\n", len(g.States), len(g.Edges), out, g.SourceHash)
	counts := g.ActionCounts()
	names := make([]string, 0, len(counts))
	for a := range counts {
		names = append(names, a)
	}
	slices.Sort(names)
	for _, a := range names {
		fmt.Printf("  %-32s %d\n", a, counts[a])
	}
	return nil
}
