package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Profiles of the contract (spec.Profile) in the suite.
//
// A scenario file is written for one profile: "config profile=hints" makes
// it a scenario of the queueing-hints profile (it starts from
// schedqtest.HintsConfig), no profile= a classic one. The runner builds
// every target with the scenario's config; a target whose queue does not
// implement that profile says so from its constructor, by failing t with an
// error that wraps spec.ErrInvalidConfig (what impl.New returns for a
// profile it does not implement): the runner then reports the scenario as
// n/a for that target, with the constructor's error as the reason, instead
// of failing. The config must be one the model accepts, so a constructor
// rejecting a valid config is the only way to get there. The same holds
// for the random differential runs of each profile.

// refusal is how a constructor said it refuses a config.
type refusal struct{ msg string }

// constructTB is the testing.TB a constructor runs with: a fatal error
// ends the constructor (not the test) and is kept for the runner.
type constructTB struct {
	testing.TB
	built   bool // after construction, everything goes to TB
	refused *refusal
	failed  string
}

func (c *constructTB) Fatal(args ...any) {
	if c.built {
		c.TB.Fatal(args...)
	}
	c.record(fmt.Sprint(args...), args)
}

func (c *constructTB) Fatalf(format string, args ...any) {
	if c.built {
		c.TB.Fatalf(format, args...)
	}
	c.record(fmt.Sprintf(format, args...), args)
}

func (c *constructTB) FailNow() {
	if c.built {
		c.TB.FailNow()
	}
	c.record("the constructor called FailNow", nil)
}

func (c *constructTB) record(msg string, args []any) {
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, spec.ErrInvalidConfig) {
			c.refused = &refusal{msg: msg}
		}
	}
	if c.refused == nil {
		c.failed = msg
	}
	panic(c)
}

// constructTarget builds a target with cfg. When the constructor refuses
// the config (see above) it returns nil and the reason the scenario does not
// apply; any other fatal error of the constructor fails tb as before.
func constructTarget(tb testing.TB, newTarget NewTarget, cfg spec.Config, start time.Time) (tg Target, na string) {
	c := &constructTB{TB: tb}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if r != any(c) {
					panic(r)
				}
			}
		}()
		tg = newTarget(c, cfg, start)
	}()
	c.built = true
	switch {
	case c.refused != nil:
		return nil, fmt.Sprintf("the target refuses the %s profile's config: %s", cfg.Profile, c.refused.msg)
	case c.failed != "":
		tb.Fatalf("conformance: the target's constructor failed: %s", c.failed)
	}
	if _, ok := tg.(spec.PodGroupQueue); !ok && cfg.Profile == spec.ProfilePodGroups {
		// A queue that accepts the config but has no pod groups cannot
		// run a podgroups scenario: n/a, never a pass.
		return nil, "the target has no pod groups (spec.PodGroupQueue): the podgroups profile does not apply"
	}
	return tg, ""
}

// opNotApplicable says why op does not apply to the target, or "".
func opNotApplicable(tg Target, op schedqtest.Op) string {
	if tg == nil {
		return ""
	}
	if op.NeedsObjectQueue() {
		if _, ok := tg.(spec.ObjectQueue); !ok {
			return "the target takes no caller objects or update verdicts (spec.ObjectQueue, R19)"
		}
	}
	if op.Kind == schedqtest.KindNominate || op.Kind == schedqtest.KindNominated {
		if _, ok := tg.(spec.Nominator); !ok {
			return "the target has no nominator (spec.Nominator, R18)"
		}
	}
	return ""
}

// observesProfile reports whether a target observing o sees every part of
// the state the invariants of cfg's profile are stated over: in the hints
// profile the in-flight list and the hint counts too.
func observesProfile(o Observes, cfg spec.Config) bool {
	return cfg.Profile == spec.ProfileClassic || o.InFlightEvents && o.HintCounts
}

// ProfileOf is the contract profile a scenario result belongs to, from its
// name: a result of RunHintsDifferential or of a scenario under "hints/" is
// of the hints profile. (Results record it in Result.Profile; this is for
// reports of results written before.)
func ProfileOf(r Result) spec.Profile {
	if r.Profile != "" {
		p, err := spec.ParseProfile(r.Profile)
		if err == nil {
			return p
		}
	}
	if strings.HasPrefix(r.Scenario, "hints/") || strings.Contains(r.Scenario, "(hints)") {
		return spec.ProfileHints
	}
	return spec.ProfileClassic
}
