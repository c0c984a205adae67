package world

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"zonemud/internal/logev"
	"zonemud/store"
	"zonemud/zone"
)

// Roles: an account may be an admin or a builder, the builder perhaps only
// of some zones. Roles are stored with the account and read at each login.
// The first admin is made on the server's shell (zonemud admin create),
// which writes the role into the new account. [world] admins grants
// nothing by itself: a listed name that nobody had made yet would go to
// whoever created it first at the name prompt, and a restart would not
// tell that character from the operator's. A listed admin's role cannot
// be revoked in game, and each listed name not held as an admin is logged
// at start.

// configAdmin reports whether the config file names the character an admin.
func (w *World) configAdmin(name string) bool {
	return slices.ContainsFunc(w.cfg.Admins, func(a string) bool { return strings.EqualFold(a, name) })
}

// rolesOf is what an account's stored roles grant name. The config's
// admins add nothing: only a record that holds the role is an admin.
func (w *World) rolesOf(name string, r store.Roles) zone.Roles {
	return zone.Roles{Admin: r.Admin, Builder: r.Builder, BuildZones: r.BuildZones}
}

// warnUnheldAdmins logs each name of [world] admins that is not an admin
// in the store: nobody has made it yet (4303), or its character was made
// at the name prompt and holds no role (4304). Neither is granted.
func (w *World) warnUnheldAdmins() {
	for _, name := range w.cfg.Admins {
		a, err := w.db.Account(name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			w.log.Warn("world: a name in [world] admins has no character; one made in game gets no admin role (make it with zonemud admin create NAME, server stopped)",
				logev.ID(4303), logev.Player(capName(name)))
		case err != nil:
			w.log.Error("world: account roles cannot be read; the character plays without them", logev.ID(4301), logev.Player(name), "err", err)
		case !a.Admin:
			w.log.Warn("world: a name in [world] admins has a character that does not hold the admin role, so it is not an admin (if it is yours: zonemud admin grant NAME, server stopped)",
				logev.ID(4304), logev.Player(a.Name))
		}
	}
}

// roles reads an account's roles. An account that cannot be read grants
// nothing, and is logged.
func (w *World) roles(name string) zone.Roles {
	a, err := w.db.Account(name)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		w.log.Error("world: account roles cannot be read; the character plays without them", logev.ID(4301), logev.Player(name), "err", err)
	default:
		return w.rolesOf(name, a.Roles)
	}
	return w.rolesOf(name, store.Roles{})
}

// ChangeRole grants or revokes a role, on its own goroutine (it writes the
// store), gives a player who is online the new roles at once, and reports
// to done (which must only post) what to tell the admin.
func (w *World) ChangeRole(ch zone.RoleChange, done func(reply string)) {
	_, ok := w.gr.Go(context.Background(), func(context.Context) { done(w.changeRole(ch)) }, "world", "roles")
	if !ok {
		done("The world is shutting down; no role was changed.")
	}
}

func (w *World) changeRole(ch zone.RoleChange) string {
	name := ch.Name
	if !ch.Grant && ch.Role == zone.RoleAdmin {
		switch {
		case strings.EqualFold(ch.By, name):
			return "You cannot revoke your own admin role; another admin can."
		case w.configAdmin(name):
			return fmt.Sprintf("%s is named in [world] admins in the config file; take the name off that list to revoke it in game.", capName(name))
		}
	}
	var after store.Roles
	err := w.db.UpdateAccount(name, func(a *store.Account) error {
		name = a.Name
		r := &a.Roles
		switch {
		case ch.Role == zone.RoleAdmin:
			r.Admin = ch.Grant
		case ch.Grant && len(ch.Zones) == 0:
			r.Builder, r.BuildZones = true, nil
		case ch.Grant:
			if !r.Builder || len(r.BuildZones) > 0 {
				for _, z := range ch.Zones {
					if !slices.Contains(r.BuildZones, z) {
						r.BuildZones = append(r.BuildZones, z)
					}
				}
			}
			r.Builder = true
		case len(ch.Zones) == 0:
			r.Builder, r.BuildZones = false, nil
		default:
			if r.Builder && len(r.BuildZones) == 0 {
				return errEveryZone
			}
			r.BuildZones = slices.DeleteFunc(r.BuildZones, func(z string) bool { return slices.Contains(ch.Zones, z) })
			r.Builder = len(r.BuildZones) > 0
		}
		after = *r
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Sprintf("There is no character named %s.", capName(ch.Name))
	case errors.Is(err, errEveryZone):
		return fmt.Sprintf("%s builds every zone; revoke builder, then grant the zones they keep.", name)
	case err != nil:
		w.log.Error("world: a role change could not be written", logev.ID(4302), logev.Player(name), "by", ch.By, "err", err)
		return "The role could not be written right now; nothing changed."
	}
	if ch.Grant {
		w.log.Info("world: an admin granted a role", logev.ID(8101), logev.Player(name), "by", ch.By, "role", ch.Role, "zones", strings.Join(ch.Zones, ","))
	} else {
		w.log.Info("world: an admin revoked a role", logev.ID(8122), logev.Player(name), "by", ch.By, "role", ch.Role, "zones", strings.Join(ch.Zones, ","))
	}
	now := w.rolesOf(name, after)
	if z := w.Where(name); z != nil {
		z.SetRoles(name, now)
	}
	return fmt.Sprintf("%s is now %s.", name, describeRoles(now))
}

var errEveryZone = errors.New("builds every zone")

// describeRoles says what roles r holds, for the admin.
func describeRoles(r zone.Roles) string {
	var parts []string
	if r.Admin {
		parts = append(parts, "an admin")
	}
	switch {
	case r.Builder && len(r.BuildZones) == 0:
		parts = append(parts, "a builder of every zone")
	case r.Builder:
		parts = append(parts, "a builder of "+strings.Join(r.BuildZones, ", "))
	}
	if len(parts) == 0 {
		return "a player, with no roles"
	}
	return strings.Join(parts, " and ")
}

// RolesOf tells done (which must only post) what roles a character holds,
// read off the zone goroutine.
func (w *World) RolesOf(name string, done func(reply string)) {
	_, ok := w.gr.Go(context.Background(), func(context.Context) {
		a, err := w.db.Account(name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			done(fmt.Sprintf("There is no character named %s.", capName(name)))
		case err != nil:
			done("The account cannot be read right now.")
		default:
			r := w.rolesOf(name, a.Roles)
			line := fmt.Sprintf("%s is %s.", a.Name, describeRoles(r))
			switch {
			case w.configAdmin(name) && r.Admin:
				line += " (Named in [world] admins in the config file, so the role cannot be revoked in game.)"
			case w.configAdmin(name):
				line += " (Named in [world] admins in the config file, but not an admin: the character was made in game. zonemud admin grant on the server's shell makes it one.)"
			}
			done(line)
		}
	}, "world", "roles")
	if !ok {
		done("The world is shutting down.")
	}
}

// capName writes a typed name as names are shown: a capital first.
func capName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
