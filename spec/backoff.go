package spec

import "time"

// BackoffDuration is R7: 0 for a pod never attempted, otherwise
// initial * 2^(attempts-1) capped at max. It is computed by comparison
// rather than by multiplying, so no attempt count overflows.
func BackoffDuration(attempts int, initial, max time.Duration) time.Duration {
	if attempts <= 0 || initial <= 0 {
		return 0
	}
	shift := attempts - 1
	if shift >= 63 || initial > max>>shift {
		return max
	}
	return initial << shift
}

// BackoffDuration is R7 with this config's bounds.
func (c Config) BackoffDuration(attempts int) time.Duration {
	return BackoffDuration(attempts, c.PodInitialBackoffDuration, c.PodMaxBackoffDuration)
}

// BackoffExpiry is when the pod's backoff completes: Timestamp plus its
// backoff duration (R7). A pod never attempted has no backoff at all, which
// upstream expresses as the zero time; so do we.
func (c Config) BackoffExpiry(p *QueuedPodInfo) time.Time {
	if c.Profile.HasHints() { // D3, see Profile
		return c.hintsBackoffExpiry(p)
	}
	if p.Attempts <= 0 {
		return time.Time{}
	}
	return p.Timestamp.Add(c.BackoffDuration(p.Attempts))
}

// IsBackingOff reports whether the pod is still backing off at now.
//
// R7 boundary: a pod whose expiry equals now is still backing off. This is
// upstream v1.33's isPodBackingoff (backoff_queue.go), which tests
// !expiry.Before(now); older releases tested expiry.After(now). So the
// backoffQ flush (R5) releases a pod only once now is strictly past its
// expiry.
func (c Config) IsBackingOff(p *QueuedPodInfo, now time.Time) bool {
	if c.Profile.HasHints() { // D3, see Profile
		return c.hintsIsBackingOff(p, now)
	}
	if p.Attempts <= 0 {
		return false
	}
	return !c.BackoffExpiry(p).Before(now)
}
