package script

// breaker switches a script off after too many failures among its recent
// calls. It belongs to one Compiled in one VM: a content reload brings a
// new Compiled and so a fresh breaker, while the switched-off one stays
// off for entities still holding the old script (a repop of the same
// prototype stays silent too).
type breaker struct {
	window []bool // outcome of the last calls, true for a failure; a ring
	next   int    // ring position of the next outcome
	fails  int    // failures in window
	need   int    // failures that switch the script off
	off    bool
	users  int // attached entities running this script
}

func newBreaker(threshold, window int) *breaker {
	return &breaker{window: make([]bool, window), need: threshold}
}

// record adds one call's outcome and reports whether this failure just
// switched the script off.
func (b *breaker) record(failed bool) (tripped bool) {
	if b.off {
		return false
	}
	if b.window[b.next] {
		b.fails--
	}
	b.window[b.next] = failed
	if failed {
		b.fails++
	}
	b.next = (b.next + 1) % len(b.window)
	if b.fails >= b.need {
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
