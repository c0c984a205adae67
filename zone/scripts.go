package zone

// Script hooks. The Lua sandbox (package script) is wired in here; until a
// zone has a VM these do nothing.

// fire runs a trigger of an entity's script, if it has one.
func (z *Zone) fire(c *Char, trigger string, args ...any) {}

// attachScript gives a new mob its script.
func (z *Zone) attachScript(c *Char) {}

// forgetScript drops an entity's script state when it leaves the zone.
func (z *Zone) forgetScript(c *Char) {}

// fireRoom runs a room trigger.
func (z *Zone) fireRoom(r *Room, trigger string, args ...any) {}

// fireArrival tells a room's script (on_enter) and its mobs' (on_greet)
// that c arrived.
func (z *Zone) fireArrival(r *Room, c *Char) {}

// scriptCommand lets room and mob scripts handle a verb first. It reports
// whether one did.
func (z *Zone) scriptCommand(c *Char, verb, args string) bool { return false }
