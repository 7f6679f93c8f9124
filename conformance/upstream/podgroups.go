package upstream

import (
	"fmt"

	"github.com/schedq/schedq/spec"
)

// podGroupsOn reports whether a queue built for cfg runs with the
// GenericWorkload gate on, so that pods naming a pod group are queued as
// one entity per group: the podgroups profile.
func podGroupsOn(cfg spec.Config) bool { return cfg.Profile == spec.ProfilePodGroups }

// refusePodGroups is the answer of a release without pod-group entities
// (before v1.37) to a config of the podgroups profile: the runner reports
// its scenarios n/a with the reason.
func refusePodGroups(cfg spec.Config) error {
	if cfg.Profile == spec.ProfilePodGroups && !hasPodGroups() {
		return fmt.Errorf("%w: %s queues no pod groups as entities (GenericWorkload's entity queue is v1.37's): no podgroups profile",
			spec.ErrInvalidConfig, Release().Version)
	}
	return nil
}
