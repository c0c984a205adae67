// Package gate is where every player connection passes through, telnet,
// telnet over TLS and SSH alike: it admits a connection, runs the login
// dialogue, and then carries the player's lines into the zone that holds
// the character and the zone's output back out.
//
// It owns:
//   - admission: connection caps in total and per address, and the one
//     decision every password or key try passes before anything is hashed,
//     over telnet, TLS and SSH alike (startTry, AddressRefused): the
//     address throttle that slows and then shuts out an address after
//     wrong passwords (limits.go), and the cap on tries per account that
//     parallel connections cannot multiply (accounts.go);
//   - the login dialogue that players and scripted clients rely on
//     (login.go): a line containing "name"; for a new name "(y/n)", then
//     "password" and "again"; for a known one "password" once. The
//     client's echo goes off (telnet WILL ECHO) before any text about the
//     password;
//   - the Session, which implements world.Session, an output sink: a
//     bounded output queue (outq.go) that a zone writes to without ever
//     blocking, and a line sequence number so the zone applies each line
//     once;
//   - the per-protocol framing behind the conn interface: telnet
//     (telnetconn.go, over net/telnet) and SSH (sshconn.go, over the
//     channel net/sshd hands it), so the rest of the package is the same
//     for both;
//   - what is said out of band: GMCP and MSSP (gmcp.go);
//   - both ends of a copyover link (net/boundary): the game's (link.go),
//     where sessions a holder keeps arrive as Attach frames and are served
//     over a linkConn like any other connection, and a Swap lets them all
//     go; and the holder's (holder.go), which keeps telnet, TLS, SSH
//     (holder_ssh.go: the game checks each credential over the link and
//     starts the session only on its own grant; a login during a swap
//     waits for the next game and is checked again there) and WebSocket
//     (holder_web.go) connections open across games, refuses the game's
//     banned addresses before any handshake (holder_bans.go), relays their events
//     as frames and applies each burst of output to the connection's
//     encoder, and hands lines typed while no game runs to the next one.
//     The holder never calls the world.
//
// Goroutines, per connection, all started (or, for SSH's reader, run)
// through the gate's run.Group so Wait can wait for them:
//   - the reader (Session.serve, then Session.play; for telnet, play runs
//     on a fresh goroutine once the login is done, so that an idle
//     connection waits on a small stack): the opening negotiation, the
//     login, then every line through the route the world handed it at login
//     (world.Route.Input, which looks the character's zone up in the
//     world's residency index for each line, and may block while that
//     zone's inbox is full and the zone alive); when the connection drops
//     it tells the character's zone through the same route
//     (Route.Dropped) and the character goes link-dead;
//   - the writer (writer.go, Session.drain), which runs only while output
//     is queued: a Write that finds none running hands the session to a
//     waiting writer, or starts one. It is the
//     only code that writes the socket: it takes everything queued,
//     renders colour markup at the client's level, writes it in one write
//     with one prompt at the end, and closes the connection if a burst
//     cannot be written in time. An idle session has no writer; a writer
//     that emptied its session's queue waits up to writerIdle for another
//     session to write (Gate.writer), and Gate.Wait sends it home;
//   - for telnet over TLS, the connection's first goroutine, which tells
//     a TLS client from a plain one and shakes hands before it reads;
//   - for SSH, the window-change relay (sshconn.go), which keeps the
//     latest size until the front closes its source;
//   - the cut of an overflowing connection, which closes it off the
//     goroutine that overflowed it (often a zone's).
//
// Zones call a session's Write, GMCP and Close from their own goroutines;
// those only touch the output queue or atomics. A session never knows
// which zone holds its character: the world's residency index does. A full queue
// cuts the connection at once (the close itself runs on a goroutine of its
// own): a client that stops reading never stalls a zone.
//
// The gate reaches the game only through the world: world.World (accounts,
// Enter), world.Route, and the types the world names for it (Session,
// ClientInfo, Account). It imports world, net/telnet, net/boundary and
// the leaves of internal/ (colour levels and their rendering are
// internal/markup's), and none of zone, store or content
// (imports_test.go at the repository root holds this). It must not import
// net/sshd, which imports it.
package gate
