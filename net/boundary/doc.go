// Package boundary is the written protocol between the two halves of a
// copyover-capable zonemud: the holder, which owns every player
// connection (listeners, telnet options and MCCP, TLS, SSH, WebSocket) and
// never restarts, and the game, which owns zones, the world, the store and
// scripts, and restarts into a new binary (or after a crash) while the
// holder keeps every player connected.
//
// The two talk over one local stream (a unix socket) that carries frames
// for many sessions, each frame naming its session by the holder's id.
// The package has no knowledge of either side: it is the frames, their
// encoding, the bound on a frame's size, and the version handshake.
//
// # Encoding
//
// A frame on the wire is a 4-byte big-endian length N, then N bytes: one
// byte of kind, then the kind's fields in order. Unsigned integers are
// uvarints, signed ones zig-zag varints, a bool is one byte 0 or 1, a
// string or byte string is a uvarint length and the bytes, a list is a
// uvarint count and its items. N is at least 1 and at most MaxFrame; a
// frame whose fields do not fill its body exactly, a length past the
// bound, an unknown kind, a bool other than 0 or 1, or a list or string
// longer than its own bound is an error (ErrMalformed) and the reader
// stops: the stream is the trust boundary between two processes of the
// same binary, so a bad frame means a bug or a wrong peer, and the link is
// dropped rather than guessed at. A stream that ends inside a frame is
// io.ErrUnexpectedEOF.
//
// # Handshake
//
// The holder speaks first with Hello (the versions of the protocol it
// speaks, and its build); the game answers Welcome with the version chosen
// (the highest both speak) and its build, or Refuse with the reason. No
// other frame may come before the handshake is done. The builds are for
// the admin (zonemud version, stat); only the protocol version decides.
//
// # Frames
//
// Holder to game: Attach (a session, with its front, remote address, the
// account it is logged into if any, whether the holder itself
// authenticated it, its client state, its GMCP packages, its colour
// override and the last input sequence number the holder numbered), Input
// (a line with its sequence number), TooLong, Client (the client told more
// about itself: window size, terminal, colour depth, MCCP, GMCP), GMCPIn,
// MSSPAsk, Compress (the client asks for MCCP on or off), LinkLost (the
// player's connection dropped), Swap (the holder asks the game to let
// go of every session for a restart) and Snapshot (before a reboot: save
// everyone and copy the database to a path, for the next binary's
// pre-flight); from version 2, AuthAsk (an SSH credential for the game
// to check), Login (start a new SSH session with the grant of the answer
// that let it in) and Resume (a web page's resume token).
//
// Game to holder: Output (one burst of a session's output as ops: text,
// prompt, raw protocol bytes, a GMCP message, echo off and on, compression
// on and off), State (the account the session is logged into, its colour
// override and GMCP packages, for the holder to hand the next game at
// Attach), Close (close the player's connection after the output before
// it, with why: quit, takeover, kick, idle), Detached (the game let go of
// the session and applied its input up to a sequence number), Bye (the
// game goes away; the holder ignores everything after it on this link)
// Snapped (the answer to a Snapshot: done, or why not) and, from version
// 2, AuthAnswer (denied, opens the account, or no such account; the last
// two with a grant, which a Login must bring back once) and, from version
// 3, Took (the session's reader has taken so many of the events sent it:
// the holder reads no further ahead of it than a window) and, from version
// 4, Bans (the game's address bans: each block, when it ends and the line
// a client from it is told; the whole list after the handshake and after
// every change, split over frames of at most MaxBans).
//
// A holder sends a version-2 frame only on a link that agreed on version
// 2 or more, and a game a version-3 or version-4 frame only on one that
// agreed on that version; an older peer would drop the link at the
// unknown kind.
//
// Every frame a game sends about a session names the holder's session id,
// so that a holder can later put several games behind one set of
// connections, each with the sessions whose characters its zones hold.
package boundary
