// Package telnet is the server side of the telnet protocol as MUD clients
// speak it: RFC 854/855 framing, RFC 1143 option negotiation, and the options
// NAWS, TTYPE with MTTS, CHARSET, EOR, SGA, ECHO, GMCP, MSSP and MCCP2.
//
// It owns no socket and starts no goroutine. Per connection the gate creates
// one Options, one Decoder and one Encoder:
//
//   - The reader goroutine owns the Decoder. Decoder.Next reads client bytes
//     and returns Events (lines, window sizes, GMCP messages, requests the gate
//     must act on). The Decoder never writes to the socket: every answer the
//     negotiation produces is handed to the reply callback, and the gate queues
//     those bytes for its writer.
//   - The writer goroutine owns the Encoder. It writes text (IAC doubled,
//     newlines as CR LF, ASCII fallback when the client has no UTF-8), prompts
//     (IAC EOR or IAC GA), the queued control bytes (WriteRaw) and runs MCCP2
//     compression.
//   - Options holds what was negotiated. Its accessors are safe from any
//     goroutine; its negotiation state is guarded by a mutex.
//
// Memory per connection is bounded whatever the client sends: a line is
// capped at Config.MaxLine bytes, a subnegotiation at Config.MaxSubneg bytes,
// and the read buffer and event queue are small and fixed.
//
// The package imports only the standard library. It must not import other
// zonemud packages: it knows nothing of sessions, players or the world.
package telnet
