package script

import "math"

// Failure weights in a breaker's score. A call stopped by its budget or
// the hang guard weighs more than an error: it cost the zone the most.
const (
	weightError   = 1.0
	weightTimeout = 2.0
)

// breaker switches a script off once its failures, recent ones weighing
// most, add up to Config.BreakerThreshold. Its score is a decaying sum:
// each call first scales the score by decay, then adds the call's failure
// weight, so a failure weighs half as much Config.BreakerWindowCalls calls
// later. Unlike a count in a fixed window of calls, no steady pattern can
// stay under the threshold while failing often: with the defaults (5, 20)
// an error in one call of five switches a script off within 50 calls and
// a timeout in one call of twelve within 60, while an error in one call
// of ten never does.
//
// A breaker belongs to one Compiled in one VM: a content reload brings a
// new Compiled and so a fresh breaker, while the switched-off one stays
// off for entities still holding the old script (a repop of the same
// prototype stays silent too). It also keeps the script's work for the
// zone's report of its heaviest scripts.
type breaker struct {
	score float64
	decay float64 // per call: 0.5^(1/BreakerWindowCalls)
	need  float64
	off   bool
	users int   // attached entities running this script
	used  int64 // work of its calls since the VM's last TakeHeaviest
}

func newBreaker(threshold, halfLife int) *breaker {
	return &breaker{decay: math.Pow(0.5, 1/float64(halfLife)), need: float64(threshold)}
}

// record adds one call's outcome, the weight of its failure (0 for a
// success), and reports whether this failure just switched the script
// off.
func (b *breaker) record(weight float64) (tripped bool) {
	if b.off {
		return false
	}
	b.score = b.score*b.decay + weight
	if weight > 0 && b.score >= b.need {
		b.off = true
		return true
	}
	return false
}

// breakerFor returns c's breaker in this VM, creating it on first use.
func (vm *VM) breakerFor(c *Compiled) *breaker {
	b, ok := vm.breakers[c]
	if !ok {
		b = newBreaker(vm.cfg.BreakerThreshold, vm.cfg.BreakerWindowCalls)
		vm.breakers[c] = b
	}
	return b
}
