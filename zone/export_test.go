package zone

// Test-only bridges into the package. Tests in package zone_test (which may
// import the world and the gate) reach internals through these names.

func init() {
	debugOwner = true
	// A command that panics, so end-to-end tests can check that a fault in
	// one handler costs only that session.
	commands = append(commands, command{
		name:   "crashme",
		fn:     func(z *Zone, c *Char, args string) { panic("crashme: injected by a test") },
		usage:  "crashme\n  Panics (tests only).",
		exact:  true,
		hidden: true,
	})
}
