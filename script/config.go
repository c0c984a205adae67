package script

import "fmt"

// Config is the [lua] section of config.toml: the limits every VM of the
// process runs its scripts under.
type Config struct {
	// MaxInstructions is the budget of one call into Lua (a trigger, a
	// timer, an entity's chunk), nested triggers included: VM
	// instructions, with the work of library functions that loop or build
	// strings counted in the same units. It is a count, so a call's fate
	// never depends on how busy the machine is.
	MaxInstructions int `toml:"max_instructions"`
	// PulseInstructions is a zone's budget for all of its scripts' calls
	// in one pulse (a quarter second), in the same units. Once it is spent,
	// on_tick triggers and mud.after timers wait for a later pulse, and the
	// zone reports its heaviest scripts. Triggers a player's action fires
	// (on_command, on_greet, ...) have TriggerInstructions of their own.
	PulseInstructions int `toml:"pulse_instructions"`
	// TriggerInstructions is a zone's budget, per pulse, for the triggers
	// players' actions fire (on_enter, on_greet, on_speech, on_leave,
	// on_command), in the same units. Once spent, the zone runs the rest
	// in later pulses (on_command: the command goes on as if no script
	// had taken it) and reports its heaviest scripts, so walking into a
	// room of heavy greeters cannot stall a zone. A trigger that starts
	// under the budget may run up to max_instructions past it.
	TriggerInstructions int `toml:"trigger_instructions"`
	// ProcessInstructions is the whole process's budget for timed script
	// work per pulse, over every zone. Once spent, zones whose scripts are
	// heavy let their on_tick and mud.after wait for the next pulse while
	// light zones run theirs (see Share). A value below
	// pulse_instructions counts as pulse_instructions: one zone alone may
	// always spend its own budget.
	ProcessInstructions int `toml:"process_instructions"`
	// DeadlineMs is a hang guard: the wall-clock time one call may go
	// without progress before it is stopped whatever its count (see
	// meter); 0 turns it off. The budget
	// is the limit that matters; this only catches work the count does not
	// see, so it is generous: a call of the default budget takes a few
	// milliseconds, and only a machine stalled for a second would stop an
	// honest one.
	DeadlineMs int `toml:"deadline_ms"`
	// CallStackSize bounds Lua call depth (recursion, nested pcall).
	CallStackSize int `toml:"call_stack_size"`
	// RegistrySize and RegistryMaxSize are the initial and largest size of
	// the value stack, in slots.
	RegistrySize    int `toml:"registry_size"`
	RegistryMaxSize int `toml:"registry_max_size"`
	// MaxStringBytes is the largest string a library call or a `..`
	// concatenation may build.
	MaxStringBytes int `toml:"max_string_bytes"`
	// MaxPatternSubject is the largest subject string.find, match, gmatch
	// and gsub accept.
	MaxPatternSubject int `toml:"max_pattern_subject"`
	// MaxTimers is the number of live mud.after timers per VM.
	MaxTimers int `toml:"max_timers"`
	// MaxSpawnsPerCall and MaxSpawnsPerZone cap mud.spawn: per call, and
	// live spawned entities charged to scripts per VM.
	MaxSpawnsPerCall int `toml:"max_spawns_per_call"`
	MaxSpawnsPerZone int `toml:"max_spawns_per_zone"`
	// MaxLogsPerCall caps mud.log and print lines per call.
	MaxLogsPerCall int `toml:"max_logs_per_call"`
	// MaxStateBytes caps the estimated size of what one entity's script
	// keeps between calls: self.state, and separately its globals and the
	// upvalues of its functions. Checked after each call.
	MaxStateBytes int `toml:"max_state_bytes"`
	// BreakerThreshold is the failure score that switches a script off:
	// an error adds 1, a timeout 2, and each failure weighs half as much
	// BreakerWindowCalls calls later (see breaker).
	BreakerThreshold   int `toml:"breaker_threshold"`
	BreakerWindowCalls int `toml:"breaker_window_calls"`
}

// DefaultConfig returns the limits used when config.toml sets none.
func DefaultConfig() Config {
	return Config{
		MaxInstructions:     200000,
		PulseInstructions:   1000000,
		TriggerInstructions: 1000000,
		ProcessInstructions: 4000000,
		DeadlineMs:          1000,
		CallStackSize:       200,
		RegistrySize:        1024,
		RegistryMaxSize:     65536,
		MaxStringBytes:      1 << 20,
		MaxPatternSubject:   64 << 10,
		MaxTimers:           256,
		MaxSpawnsPerCall:    16,
		MaxSpawnsPerZone:    512,
		MaxLogsPerCall:      20,
		MaxStateBytes:       64 << 10,
		BreakerThreshold:    5,
		BreakerWindowCalls:  20,
	}
}

// Validate reports the first setting out of its range; the error names the
// config key.
func (c Config) Validate() error {
	checks := []struct {
		key      string
		v        int
		min, max int
	}{
		// A budget of seconds lets one script stall a zone for seconds
		// and, through allocation, grow the heap for as long; the hang
		// guard is only a last net.
		{"max_instructions", c.MaxInstructions, 1000, 100000000},
		{"pulse_instructions", c.PulseInstructions, 1000, 1000000000},
		{"trigger_instructions", c.TriggerInstructions, 1000, 1000000000},
		{"process_instructions", c.ProcessInstructions, 1000, 1000000000},
		{"deadline_ms", c.DeadlineMs, 0, 10000},
		{"call_stack_size", c.CallStackSize, 16, 10000},
		{"registry_size", c.RegistrySize, 64, 1 << 20},
		{"registry_max_size", c.RegistryMaxSize, 1024, 1 << 22},
		{"max_string_bytes", c.MaxStringBytes, 1 << 10, 64 << 20},
		{"max_pattern_subject", c.MaxPatternSubject, 256, 64 << 20},
		{"max_timers", c.MaxTimers, 0, 1 << 20},
		{"max_spawns_per_call", c.MaxSpawnsPerCall, 0, 1 << 10},
		{"max_spawns_per_zone", c.MaxSpawnsPerZone, 0, 1 << 20},
		{"max_logs_per_call", c.MaxLogsPerCall, 0, 1 << 10},
		{"max_state_bytes", c.MaxStateBytes, 1 << 10, 64 << 20},
		{"breaker_threshold", c.BreakerThreshold, 1, 1 << 10},
		{"breaker_window_calls", c.BreakerWindowCalls, 1, 1 << 10},
	}
	for _, ch := range checks {
		if ch.v < ch.min || ch.v > ch.max {
			return fmt.Errorf("lua.%s: must be between %d and %d, got %d", ch.key, ch.min, ch.max, ch.v)
		}
	}
	if c.RegistrySize > c.RegistryMaxSize {
		return fmt.Errorf("lua.registry_size: %d is above lua.registry_max_size %d", c.RegistrySize, c.RegistryMaxSize)
	}
	if c.MaxPatternSubject > c.MaxStringBytes {
		return fmt.Errorf("lua.max_pattern_subject: %d is above lua.max_string_bytes %d", c.MaxPatternSubject, c.MaxStringBytes)
	}
	if c.PulseInstructions < c.MaxInstructions {
		return fmt.Errorf("lua.pulse_instructions: %d is below lua.max_instructions %d", c.PulseInstructions, c.MaxInstructions)
	}
	if c.BreakerThreshold > c.BreakerWindowCalls {
		return fmt.Errorf("lua.breaker_threshold: %d is above lua.breaker_window_calls %d", c.BreakerThreshold, c.BreakerWindowCalls)
	}
	return nil
}
