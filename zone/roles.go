package zone

import (
	"fmt"
	"slices"
	"strings"
)

// role is what a command asks of whoever types it, lowest first: an admin
// may do whatever a builder may, and a builder whatever a player may. A
// command above a player's role does not exist for that player: typing it
// says what an unknown word says, help has nothing on it, and commands does
// not list it.
type role uint8

const (
	rolePlayer role = iota
	roleBuilder
	roleAdmin
)

func (r role) String() string {
	return [...]string{"player", "builder", "admin"}[r]
}

// role is the highest role c holds; a mob's is a player's.
func (c *Char) role() role {
	switch {
	case c == nil || c.pl == nil:
		return rolePlayer
	case c.pl.admin:
		return roleAdmin
	case c.pl.builder:
		return roleBuilder
	}
	return rolePlayer
}

// mayBuild reports whether c may change the zone whose template is
// template: every admin, a builder of every zone, and a builder whose role
// names that zone.
func (c *Char) mayBuild(template string) bool {
	switch c.role() {
	case roleAdmin:
		return true
	case roleBuilder:
		return len(c.pl.buildZones) == 0 || slices.ContainsFunc(c.pl.buildZones, func(z string) bool { return strings.EqualFold(z, template) })
	}
	return false
}

// setRoles gives c the roles an admin just granted or revoked, and tells
// the player what changed.
func (z *Zone) setRoles(c *Char, r Roles) {
	was := c.role()
	c.pl.admin, c.pl.builder, c.pl.buildZones = r.Admin, r.Builder, slices.Clone(r.BuildZones)
	if room := c.room; room != nil && c.staffIn != (c.role() > rolePlayer) {
		// Counted again in the room as what it is now (room.nstaff).
		room.removeChar(c)
		room.addChar(c)
	}
	z.rosterOld = true // who shows the admin tag and wizinvis by role
	if now := c.role(); now != was {
		z.sendLine(c, "{Y}You are now "+article(now)+now.String()+".{x}")
	} else if now == roleBuilder {
		z.sendLine(c, "{Y}You may now build in "+describeZones(r.BuildZones)+".{x}")
	}
}

// Roles are what a player may do beyond playing, as the world read them
// from the account and the config.
type Roles struct {
	Admin   bool
	Builder bool
	// BuildZones limits a builder to these zone ids; empty is every zone.
	BuildZones []string
}

// describeZones names the zones a builder may build in.
func describeZones(zones []string) string {
	if len(zones) == 0 {
		return "every zone"
	}
	return strings.Join(zones, ", ")
}

func article(r role) string {
	if r == roleAdmin {
		return "an "
	}
	return "a "
}

// The role names grant and revoke take.
const (
	RoleAdmin   = "admin"
	RoleBuilder = "builder"
)

// RoleChange is a grant or a revoke an admin typed.
type RoleChange struct {
	By    string // the admin
	Name  string // whose role
	Grant bool   // grant, or revoke
	Role  string // RoleAdmin or RoleBuilder
	// Zones, for a builder, are the zone ids granted or revoked; none is
	// every zone.
	Zones []string
}

// SetRoles gives the named player, if online, the roles an admin just
// changed.
func (z *Zone) SetRoles(name string, r Roles) { z.send(rolesMsg{name: name, roles: r}) }

func (z *Zone) handleRoles(m rolesMsg) {
	c := z.players[m.name]
	if c == nil {
		// On its way elsewhere: the mailbox keeps this behind the
		// transfer. Gone: the next login reads the roles anyway.
		z.forward(m, m.name)
		return
	}
	z.setRoles(c, m.roles)
	z.prompt(c)
}

const grantUsage = `grant <player> admin | grant <player> builder [zone ...]
revoke <player> admin | revoke <player> builder [zone ...]
grant <player>
  Give a player a role, take it away, or see the roles they hold. A
  builder named with zones builds only those; without, every zone. Roles
  are kept with the account and apply at once if the player is online.
  The admins named in the config file ([world] admins) stay admins. (admin)`

// cmdGrant grants a role, or shows a player's roles.
func (z *Zone) cmdGrant(c *Char, args string) { z.roleCommand(c, args, true) }

// cmdRevoke revokes a role.
func (z *Zone) cmdRevoke(c *Char, args string) { z.roleCommand(c, args, false) }

func (z *Zone) roleCommand(c *Char, args string, grant bool) {
	words := strings.Fields(strings.ToLower(args))
	if len(words) == 0 || (len(words) == 1 && !grant) {
		z.sendLine(c, "Usage:\n"+grantUsage)
		return
	}
	tell := func(answer func(string)) func(string) {
		return func(reply string) { answer(escapeLines(reply)) }
	}
	if len(words) == 1 {
		z.shard.RolesOf(words[0], tell(z.later(c)))
		return
	}
	ch := RoleChange{By: c.name, Name: words[0], Grant: grant, Role: words[1], Zones: words[2:]}
	switch ch.Role {
	case RoleAdmin:
		if len(ch.Zones) > 0 {
			z.sendLine(c, "The admin role is for every zone; name no zones.")
			return
		}
	case RoleBuilder:
		for _, id := range ch.Zones {
			if zp := z.set.Zones[id]; zp == nil {
				z.sendLine(c, fmt.Sprintf("There is no zone %q. The zones are: %s.", id, strings.Join(z.set.ZoneOrder, ", ")))
				return
			}
		}
	default:
		z.sendLine(c, "The roles are admin and builder.")
		return
	}
	z.shard.ChangeRole(ch, tell(z.later(c)))
}
