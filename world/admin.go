package world

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/zone"
)

// Ops are what the admin commands need of the process around the world:
// the gate's connections and the server's stop. The wiring sets them
// (SetOps) before Start; every method is safe from any goroutine and
// none blocks on a zone.
type Ops interface {
	// Sessions lists every open connection.
	Sessions() []SessionInfo
	// Kick closes every connection match picks, with line as its last
	// output, and returns how many.
	Kick(match func(SessionInfo) bool, line string) int
	// Stop asks the process to shut down (and with reboot, to start
	// again). It returns at once.
	Stop(reboot bool)
}

// SessionInfo is one connection as the admin commands show it.
type SessionInfo struct {
	ID     uint64
	Name   string       // the character, "" while at the login
	Front  string       // telnet, tls or ssh
	Client string       // what the client calls itself
	Color  markup.Level // the colour level output is rendered at
	MCCP   bool         // output is compressed
	UTF8   bool
	Reader bool // the client said a screen reader is in use
	Width  int
	Idle   time.Duration // since the last line the client sent
	Remote string        // host:port
	Addr   netip.Addr    // the remote address
}

// SetOps gives the world the process's operations. Call it before Start.
func (w *World) SetOps(o Ops) { w.ops = o }

// Admin is the admin commands' way to the server (zone.Shard).
func (w *World) Admin() zone.Admin { return admin{w} }

// admin implements zone.Admin for the world.
type admin struct{ w *World }

// worker runs f on a tracked goroutine, or tells done the world is
// stopping.
func (w *World) worker(name string, done func(string), f func() string) {
	_, ok := w.gr.Go(context.Background(), func(context.Context) { done(f()) }, "world", name)
	if !ok {
		done("The world is shutting down.")
	}
}

// countdown is a shutdown or reboot counting down. Its lock is a leaf.
type countdown struct {
	mu     sync.Mutex
	cancel chan struct{} // guarded by mu: nil when none runs; closed by whoever takes it out
	at     time.Time     // guarded by mu: when it ends
	by     string        // guarded by mu
	reboot bool          // guarded by mu
}

// announceAt are the seconds left at which a countdown is told again.
var announceAt = []int{3600, 1800, 900, 600, 300, 120, 60, 30, 10, 5, 4, 3, 2, 1}

func (a admin) Shutdown(by string, secs int, reason string, reboot bool) string {
	w := a.w
	c := &w.down
	cancel := make(chan struct{})
	end := time.Now().Add(time.Duration(secs) * time.Second)
	if refusal := c.begin(w, cancel, end, by, reboot); refusal != "" {
		return refusal
	}
	what := "shut down"
	if reboot {
		what = "reboot"
		w.log.Warn("world: an admin started a countdown to reboot", logev.ID(8104), "by", by, "seconds", secs, "reason", reason)
	} else {
		w.log.Warn("world: an admin started a countdown to shut down", logev.ID(8102), "by", by, "seconds", secs, "reason", reason)
	}
	why := ""
	if reason != "" {
		why = ": " + markup.Escape(reason)
	}
	_, ok := w.gr.Go(w.ctx, func(ctx context.Context) { w.countDown(ctx, cancel, end, what, why, reboot) }, "world", "countdown")
	if !ok {
		c.end(cancel)
		return "The world is shutting down already."
	}
	command := "shutdown"
	if reboot {
		command = "reboot"
	}
	return fmt.Sprintf("The world will %s in %s; every player is told. Type %s cancel to stop it.", what, roundSecs(time.Duration(secs)*time.Second), command)
}

// begin records a countdown, or says why not: one runs already, or the
// world cannot stop itself. It holds the lock only to read and write the
// record.
func (c *countdown) begin(w *World, cancel chan struct{}, at time.Time, by string, reboot bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case w.stopping.Load():
		return "The world is shutting down already."
	case w.ops == nil:
		return "This server has no way to stop itself from inside."
	case c.cancel != nil:
		what := "shutdown"
		if c.reboot {
			what = "reboot"
		}
		return fmt.Sprintf("A %s by %s is counting down already: %s left. Type %s cancel to stop it first.", what, c.by, roundSecs(time.Until(c.at)), what)
	}
	c.cancel, c.at, c.by, c.reboot = cancel, at, by, reboot
	return ""
}

// end forgets the countdown cancel, if it is still the one recorded, and
// reports whether it was.
func (c *countdown) end(cancel chan struct{}) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel == nil || c.cancel != cancel {
		return false
	}
	c.cancel = nil
	return true
}

// CountingDown reports whether a shutdown or reboot is counting down: the
// server is about to stop, so /readyz sends no new players.
func (w *World) CountingDown() bool { return w.down.running() != nil }

// CountdownPending reports whether a shutdown or reboot countdown is
// still counting: recorded and its end not reached. (A reboot's record
// stays past its end while the process carries it out.)
func (w *World) CountdownPending() bool {
	c := &w.down
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancel != nil && time.Now().Before(c.at)
}

// running is the countdown recorded now, nil if none.
func (c *countdown) running() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancel
}

// countDown tells every player how long is left, at the times in
// announceAt, and at the end asks the process to stop.
func (w *World) countDown(ctx context.Context, cancel <-chan struct{}, end time.Time, what, why string, reboot bool) {
	tell := func(left time.Duration) {
		line := fmt.Sprintf("{R}The world will %s in %s%s{x}", what, roundSecs(left), why)
		switch {
		case reboot && w.cfg.Copyover:
			line += "\n{R}You stay connected, and will be back where you stand a few seconds later.{x}"
		case reboot:
			line += "\n{R}It will be back a few seconds later; your character is saved.{x}"
		}
		for _, z := range w.Zones() {
			z.Broadcast(line)
		}
	}
	tell(time.Until(end))
	for {
		left := time.Until(end)
		next := time.Duration(0)
		for _, s := range announceAt {
			if d := time.Duration(s) * time.Second; d < left-time.Second/2 {
				next = d
				break
			}
		}
		t := time.NewTimer(left - next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-cancel:
			t.Stop()
			return
		case <-t.C:
		}
		if next == 0 {
			if w.down.running() == cancel {
				w.log.Warn("world: the countdown ended; stopping", logev.ID(8123), "reboot", reboot)
				w.ops.Stop(reboot)
			}
			return
		}
		tell(next)
	}
}

func (a admin) CancelShutdown(by string) string {
	w := a.w
	cancel := w.down.running()
	if cancel == nil || !w.down.end(cancel) {
		return "No shutdown or reboot is counting down."
	}
	close(cancel)
	w.log.Warn("world: an admin cancelled the countdown", logev.ID(8103), "by", by)
	for _, z := range w.Zones() {
		z.Broadcast("{G}The countdown is cancelled; the world goes on.{x}")
	}
	return "The countdown is cancelled."
}

// roundSecs says a duration in whole seconds, or minutes past two.
func roundSecs(d time.Duration) string {
	s := int((d + time.Second/2) / time.Second)
	switch {
	case s >= 120 && s%60 == 0:
		return fmt.Sprintf("%d minutes", s/60)
	case s == 1:
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", s)
}

func (a admin) Stat(by, name string, done func(string)) {
	w := a.w
	w.worker("stat", done, func() string {
		w.log.Info("world: admin looked at a player", logev.ID(8108), logev.Player(name), "by", by)
		var b strings.Builder
		acct, err := w.db.Account(name)
		z := w.Where(name)
		if err != nil && z == nil {
			return fmt.Sprintf("There is no character named %s.", name)
		}
		var si zone.StatInfo
		online := false
		if z != nil {
			got := make(chan zone.StatInfo, 1)
			if z.Stat(name, func(si zone.StatInfo, ok bool) {
				if ok {
					got <- si
				}
				close(got)
			}) {
				select {
				case si, online = <-got:
				case <-time.After(5 * time.Second):
				}
			}
		}
		fmt.Fprintf(&b, "{W}%s{x}", cmp.Or(si.Name, name))
		if online {
			fmt.Fprintf(&b, ", level %d, %d/%d hp, in %s [%s]", si.Level, si.HP, si.MaxHP, markup.Escape(si.RoomName), si.Room)
			if si.Zone != si.Template {
				fmt.Fprintf(&b, " of a copy of %s", si.Template)
			}
		} else {
			b.WriteString(", not in the world")
		}
		b.WriteString(".\n")
		if acct != nil {
			r := w.rolesOf(name, acct.Roles)
			fmt.Fprintf(&b, "Account: made %s, last login %s; %s; %d SSH keys.\n",
				day(acct.Created), day(acct.LastLogin), describeRoles(r), len(acct.Keys))
		}
		conns := 0
		if w.ops != nil {
			for _, s := range w.ops.Sessions() {
				if strings.EqualFold(s.Name, name) {
					conns++
					fmt.Fprintf(&b, "Connection %d: %s from %s, client %s, colour %s, MCCP %s, UTF-8 %s, screen reader %s, width %d, idle %s.\n",
						s.ID, s.Front, s.Remote, markup.Escape(s.Client), s.Color, onOff(s.MCCP), onOff(s.UTF8), onOff(s.Reader), s.Width, roundSecs(s.Idle))
				}
			}
		}
		if online {
			st := si.Settings
			fmt.Fprintf(&b, "Options: colour %s, brief %s, vitals %s, pvp %s, screen reader %s.\n",
				cmp.Or(st.Color, "from the client"), onOff(st.Brief), onOff(st.Vitals), onOff(st.PvP), onOff(st.ScreenReader))
			fmt.Fprintf(&b, "Epoch %d; idle %s", si.Epoch, roundSecs(si.Idle))
			if si.LinkDead {
				b.WriteString("; link-dead")
			}
			if si.Frozen {
				b.WriteString("; frozen")
			}
			if si.Logged {
				b.WriteString("; input logged")
			}
			if len(si.Snoopers) > 0 {
				b.WriteString("; watched by " + strings.Join(si.Snoopers, ", "))
			}
			b.WriteString(".")
		} else if conns == 0 {
			b.WriteString("No connection.")
		}
		if w.cfg.Builds != "" {
			b.WriteString("\nServer: " + markup.Escape(w.cfg.Builds) + ".")
		}
		return strings.TrimRight(b.String(), "\n")
	})
}

func (a admin) Sessions(by string, done func(string)) {
	w := a.w
	w.worker("sessions", done, func() string {
		if w.ops == nil {
			return "No connections are known here."
		}
		w.log.Info("world: admin listed the connections", logev.ID(8109), "by", by)
		list := w.ops.Sessions()
		slices.SortFunc(list, func(a, b SessionInfo) int { return cmp.Compare(a.ID, b.ID) })
		var b strings.Builder
		fmt.Fprintf(&b, "%d connections:\n", len(list))
		fmt.Fprintf(&b, "%-6s %-12s %-6s %-12s %-9s %-4s %-8s %s\n", "id", "name", "front", "client", "colour", "mccp", "idle", "address")
		for _, s := range list {
			name := cmp.Or(s.Name, "(login)")
			fmt.Fprintf(&b, "%-6d %-12s %-6s %-12s %-9s %-4s %-8s %s\n", s.ID, name, s.Front, markup.Escape(trimTo(s.Client, 12)), s.Color, onOff(s.MCCP), roundSecs(s.Idle), s.Remote)
		}
		return strings.TrimRight(b.String(), "\n")
	})
}

func (a admin) SaveAll(by string, done func(string)) {
	w := a.w
	w.worker("save", done, func() string {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := w.SaveAll(ctx)
		w.log.Info("world: admin saved every character", logev.ID(8114), "by", by, "took", time.Since(start).Round(time.Millisecond), "err", err)
		if err != nil {
			return "The save did not finish: " + err.Error()
		}
		return fmt.Sprintf("Every character is saved (%s).", time.Since(start).Round(time.Millisecond))
	})
}

// Snoops: who watches whom. Its lock is a leaf.
type snoops struct {
	mu sync.Mutex
	m  map[string]string // guarded by mu: lower-case watcher -> the name watched
}

func (a admin) Snoop(by, target string) (*zone.Zone, string) {
	w := a.w
	if strings.EqualFold(by, target) {
		return nil, "You cannot snoop yourself."
	}
	z := w.Where(target)
	if z == nil {
		return nil, target + " is not in the world."
	}
	w.snoop.mu.Lock()
	defer w.snoop.mu.Unlock()
	if old, ok := w.snoop.m[strings.ToLower(by)]; ok {
		return nil, "You are watching " + old + " already; type snoop to stop first."
	}
	// A watch that leads back to the watcher would show each their own
	// screen through the other: refuse it.
	chain := []string{target}
	for cur := target; len(chain) < 64; {
		next, ok := w.snoop.m[strings.ToLower(cur)]
		if !ok {
			break
		}
		if strings.EqualFold(next, by) {
			return nil, fmt.Sprintf("That would make a loop: %s watches you, and nobody may watch someone who watches them.", strings.Join(chain, " watches "))
		}
		chain = append(chain, next)
		cur = next
	}
	if w.snoop.m == nil {
		w.snoop.m = map[string]string{}
	}
	w.snoop.m[strings.ToLower(by)] = target
	return z, ""
}

func (a admin) Unsnoop(by string) (string, *zone.Zone) {
	w := a.w
	w.snoop.mu.Lock()
	target, ok := w.snoop.m[strings.ToLower(by)]
	delete(w.snoop.m, strings.ToLower(by))
	w.snoop.mu.Unlock()
	if !ok {
		return "", nil
	}
	return target, w.Where(target)
}

// forgetSnoops drops every watch by or of a character leaving the world.
func (w *World) forgetSnoops(name string) {
	w.snoop.mu.Lock()
	defer w.snoop.mu.Unlock()
	for k, v := range w.snoop.m {
		if strings.EqualFold(k, name) || strings.EqualFold(v, name) {
			delete(w.snoop.m, k)
		}
	}
}

func day(unix int64) string {
	if unix == 0 {
		return "never"
	}
	return time.Unix(unix, 0).UTC().Format("2006-01-02")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func trimTo(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// RebootFailed ends a reboot whose countdown ended but which the process
// could not carry out (a copyover holder refused the new binary, or the
// new game did not start): the world goes on, a new countdown may begin,
// and every player is told why.
func (w *World) RebootFailed(why string) {
	if c := w.down.running(); c != nil {
		w.down.end(c) // its countDown has returned: nothing waits on c
	}
	w.log.Warn("world: a reboot did not happen; the world goes on", logev.ID(8125), "why", why)
	for _, z := range w.Zones() {
		z.Broadcast("{R}The reboot did not happen: " + why + "{x}\n{G}The world goes on.{x}")
	}
}
