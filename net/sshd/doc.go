// Package sshd is zonemud's SSH front: it accepts SSH connections, decides
// who each client proved to be, and hands every interactive session to the
// gate (gate.ServeSSH), which runs the same login, play, link-dead and
// takeover rules as telnet.
//
// It owns:
//   - the host key: ed25519, generated once into data_dir (mode 0600,
//     OpenSSH format) and reused on every start; a key file that cannot be
//     read stops start-up, it is never replaced;
//   - authentication: the SSH user name is the character name; a password
//     or a key registered in game opens an existing account, and a name
//     without an account is let in to answer the creation questions. The
//     gate's login limits hold here as on telnet: an address it has shut
//     out is refused before the handshake, and every method asks the gate
//     first (Gate.AddressRefused), so a connection opened earlier cannot
//     try a password or a key either; a password goes through the gate's
//     one decision and its account cap (Gate.CheckPassword). A user name
//     longer than maxUser is refused at once and logged cut (logUser);
//   - the session channel: a PTY is required, window changes are always
//     drained, exec and subsystem requests are answered with a line and
//     exit status 1 or refused, port forwarding is denied;
//   - the connection limits that are SSH's own: the handshake and
//     no-session timeout, sessions per connection, authentication tries,
//     a write that stalls on a client that stopped reading, and input
//     lines cut at maxInputLine before the gate's line editor holds them.
//     Connection counts by address and in total belong to the gate.
//
// It uses gliderlabs/ssh for connection handling and contexts, but not for
// authentication or sessions: gliderlabs' auth handlers see the user name
// of the first attempt only and remember the last key merely offered, and
// its session handler blocks its request loop on an undrained window-change
// channel. Authentication is configured on golang.org/x/crypto/ssh directly
// (ServerConfigCallback), and the identity a session gets comes from the
// Permissions x/crypto keeps for the one attempt that succeeded
// (CVE-2024-45337).
//
// Goroutines, all started or run through the server's run.Group
// (Server.spawn and Server.run) so that Shutdown can wait for them:
//   - Serve's accept loop, on the caller's goroutine, one per listener;
//   - one per connection (gliderlabs HandleConn: handshake, then channel
//     dispatch), plus gliderlabs' global-request loop and x/crypto's reader;
//   - one per session channel: its request loop (PTY, window changes,
//     shell);
//   - one per game session: gate.ServeSSH, which blocks until it ends.
//
// Timers (time.AfterFunc) only close connections.
//
// The package talks to the game through its Backend alone: the game's
// *gate.Gate in one process, or under copyover the holder (gate.Holder),
// which asks the game over its link what each credential proves and
// starts the session in the game that answered (net/gate/holder_ssh.go
// says the trust model). A refusal that carries a line (an address shut
// out, no game up behind the holder) reaches the client as an SSH banner.
// While the holder waits for a game (a swap), the connection's handshake
// timeout does not run (gate.SSHCheck.Hold); a password the holder asks
// to keep (gate.SSHAnswer.Keep) is kept on the connection until its shell
// hands it over, so the holder can have the next game check it again.
// It must not import zone, world or store internals, nor net/telnet.
package sshd
