package telnet

// Telnet commands (RFC 854). Each follows IAC on the wire.
const (
	SE   byte = 240 // end of subnegotiation
	NOP  byte = 241 // no operation; a keepalive
	DM   byte = 242 // data mark
	BRK  byte = 243 // break
	IP   byte = 244 // interrupt process
	AO   byte = 245 // abort output
	AYT  byte = 246 // are you there
	EC   byte = 247 // erase character
	EL   byte = 248 // erase line
	GA   byte = 249 // go ahead; marks a prompt when SGA is off
	SB   byte = 250 // start of subnegotiation
	WILL byte = 251
	WONT byte = 252
	DO   byte = 253
	DONT byte = 254
	IAC  byte = 255 // interpret as command; IAC IAC is a literal 0xFF
)

// EOR is the end-of-record command (RFC 885) that ends a prompt when the
// client agreed to OptEOR. It shares its name with the option, not its value.
const EOR byte = 239

// Telnet options this package negotiates or names.
const (
	OptEcho       byte = 1   // ECHO, RFC 857
	OptSGA        byte = 3   // SUPPRESS-GO-AHEAD, RFC 858
	OptTTYPE      byte = 24  // TERMINAL-TYPE, RFC 1091, with MTTS
	OptEOR        byte = 25  // END-OF-RECORD, RFC 885
	OptNAWS       byte = 31  // window size, RFC 1073
	OptNewEnviron byte = 39  // NEW-ENVIRON, RFC 1572 (refused)
	OptCharset    byte = 42  // CHARSET, RFC 2066
	OptMSDP       byte = 69  // MSDP (refused; GMCP covers it)
	OptMSSP       byte = 70  // MUD Server Status Protocol
	OptMCCP2      byte = 86  // MUD Client Compression Protocol v2
	OptMCCP3      byte = 87  // client-to-server compression (refused)
	OptMXP        byte = 91  // MUD eXtension Protocol (refused)
	OptGMCP       byte = 201 // Generic MUD Communication Protocol
)

// Default limits used when a Config leaves them at zero.
const (
	DefaultMaxLine   = 4096
	DefaultMaxSubneg = 8192
)

// maxTTYPE caps one TTYPE answer. RFC 1091 names are at most 40 bytes; MTTS
// answers are shorter still.
const maxTTYPE = 64

// maxNAWS is the largest width or height a Resize reports. Larger values are
// clamped: no terminal is that big, and callers size buffers from them.
const maxNAWS = 1000
