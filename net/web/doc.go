// Package web is the web front: one HTTP server on server.web_addr (by
// default http://127.0.0.1:4001/) that serves the built-in web client at /
// (a handler the wiring gives it, net/web/page) and a WebSocket endpoint at
// /ws, where each connection is a session of the gate like a telnet or SSH
// one: the same login dialogue, login limits, bans, per-address caps,
// link-dead and takeover, counted under the front "web".
//
// # The WebSocket endpoint
//
// A client names a subprotocol of mudstandards.org in
// Sec-WebSocket-Protocol; a request that names neither is refused (400)
// before the upgrade:
//
//   - gmcp.mudstandards.org: game text in BINARY messages both ways, UTF-8
//     with ANSI SGR colour (16, 256 and truecolour; none with the game's
//     screenreader setting). Output lines end in CR LF; a prompt is text
//     with no line end at the end of a message. Each BINARY message from
//     the client is one or more typed lines (LF or CR LF between them,
//     the last line end optional). A typed line is text and only text:
//     invalid UTF-8 becomes U+FFFD and control characters are dropped, so
//     a byte 255 (telnet's IAC) or an escape never acts as a command.
//     GMCP travels in TEXT messages both ways, "Package.Name json" (the
//     JSON optional), as over telnet: the client asks for packages with
//     Core.Supports.Set and the like.
//   - telnet.mudstandards.org: the telnet byte stream, exactly as on the
//     telnet port (options, GMCP, MCCP2 and all), in BINARY messages; a
//     TEXT message closes the connection (1003).
//
// Beside the game's GMCP, the gmcp subprotocol carries the transport's own
// messages:
//
//   - server -> client Client.Echo {"on":false} before a password
//     question and Client.Echo {"on":true} after it: the page masks its
//     input and keeps it out of its history in between (telnet's WILL
//     ECHO);
//   - client -> server Client.Size {"width":W,"height":H}: its size in
//     characters, for wrapping (telnet's NAWS); 80 columns until told;
//   - client -> server Core.Hello {"client":"...","version":"...",
//     "screenreader":true}: screenreader true renders output without
//     colour codes, as the game's screenreader setting does;
//   - the resume token, below.
//
// # Resuming after a reload
//
// After every login on the gmcp subprotocol, resumes included, the server
// sends Client.Resume {"token":"<opaque>"} once the character is in the
// world. The page keeps the latest token (sessionStorage: never a URL,
// never a cookie). A new connection that sends the TEXT message
// Client.Resume {"token":"<opaque>"} (optionally with "name", the
// character it expects) before anything typed, and once, is logged into
// that account without the password,
// as a reconnect to the link-dead character, or as a takeover if the old
// connection is still open; a fresh token follows. The name question is
// on the screen before the token is read; a resumed login then goes
// straight into the world. The page sends Core.Hello and
// Core.Supports.Set before the token, so the resumed character's room
// and vitals, sent as it goes back in, reach the panels that asked.
//
// A token is random (32 bytes), bound to one account and the session it
// was sent to, held in memory only and never logged. It is good while its
// session is open and for the link-dead window ([zone] linkdead_secs)
// after its connection drops, and it is good once. It dies when its
// session is closed on purpose (quit, a takeover by another login,
// idling out, an admin's kick), and a token of one character never opens
// another ("name" names another: refused). A refused token gets a line
// that says so, and the login dialogue goes on as for any connection.
//
// How the connection closes tells the page what happened: the server
// closes with 1000 (normal) after its last line when the game ended the
// session (quit, takeover, idle, shutdown); a dropped or cut connection
// (a write that timed out, a client that never reads, a ping unanswered)
// closes without a close handshake (the browser sees 1006).
//
// # Limits
//
// Origin is checked against the allow-list ([web] origins; the page's own
// host is always allowed): a browser page from any other site is refused
// (403) before the upgrade. Before a request is a WebSocket, the HTTP
// side is bounded: its header must arrive within [web] header_secs (a
// slowloris trickle is dropped), the whole request within read_secs, a
// kept-alive connection without a request closes after idle_secs, and a
// header over max_header_kib is refused (431). One address (the gate's
// address key: an IPv6 /64 counts once, loopback is exempt unless
// gate.limit_loopback) holds at most [web] max_conns_per_ip TCP
// connections here, page loads and WebSockets together: one more is
// answered 503 once its request header is in and closed (one that sends
// none within two seconds is closed unanswered). It may ask for
// [web] upgrades_per_min upgrades a minute: past them, 429 with
// Retry-After. The gate then admits the address before the upgrade, so
// WebSockets count with telnet and SSH against gate.max_conns_per_ip
// (503 with the reason). A message over [web] max_message_kib closes
// the connection (1009); a typed line over [gate] max_line is refused with
// a line, as on telnet. Output is queued and bounded as on telnet: a client
// that stops reading is cut when its queue is full or a write times out,
// and nobody else waits for it. Every connection is pinged each
// [web] ping_secs; one that does not answer is closed.
//
// The front admits and hands its connections to a Backend: the game's
// gate in one process, or under copyover the holder, which keeps each
// WebSocket through the game's restarts (net/gate/holder_web.go).
//
// The package imports net/gate (the sessions) and the WebSocket library
// github.com/coder/websocket; the gate knows nothing of HTTP or of the
// library (gate.WebSocket is what it reads and writes).
package web
