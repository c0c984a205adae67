package telnet

// MSSP, the MUD Server Status Protocol (tintin.mudhalla.net/protocols/mssp).
// The server offers WILL MSSP; when a crawler or client answers DO MSSP the
// decoder returns MSSPRequested and the gate sends Encoder.MSSP with the
// current variables. Required: NAME, PLAYERS, UPTIME.

// MSSP subnegotiation codes.
const (
	msspVar byte = 1
	msspVal byte = 2
)

// MSSPVar is one MSSP variable. Several values are sent as several
// MSSP_VAL, the default last.
type MSSPVar struct {
	Name   string
	Values []string
}

// msspChangedLocked asks the gate for the variables when the client agrees.
func (o *Options) msspChangedLocked(wasOn, isOn bool, out *outbox) {
	if isOn && !wasOn {
		out.emit(MSSPRequested{})
	}
}

// MSSPFrame returns IAC SB MSSP (MSSP_VAR name (MSSP_VAL value)...)... IAC SE.
// The bytes NUL, MSSP_VAR, MSSP_VAL and IAC cannot appear in names or values
// and are removed; a variable whose name is then empty is left out, one
// without values is sent with an empty value.
func MSSPFrame(vars []MSSPVar) []byte {
	b := []byte{IAC, SB, OptMSSP}
	for _, v := range vars {
		name := appendMSSP(nil, v.Name)
		if len(name) == 0 {
			continue
		}
		b = append(b, msspVar)
		b = append(b, name...)
		if len(v.Values) == 0 {
			b = append(b, msspVal)
		}
		for _, val := range v.Values {
			b = append(b, msspVal)
			b = appendMSSP(b, val)
		}
	}
	return append(b, IAC, SE)
}

// appendMSSP appends s without the bytes MSSP reserves.
func appendMSSP(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0, msspVar, msspVal, IAC:
		default:
			b = append(b, c)
		}
	}
	return b
}
