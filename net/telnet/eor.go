package telnet

// Prompt marking. A MUD prompt does not end in a newline, so the client
// needs a mark to know where it ends:
//
//   - EOR (RFC 885): the server offers WILL EOR; after the client's DO EOR
//     every prompt ends with IAC EOR.
//   - Otherwise IAC GA (RFC 854) ends the prompt, unless suppress-go-ahead
//     (RFC 858) was agreed. The server never offers WILL SGA first; it
//     agrees when the client asks with DO SGA.
//
// The state changes are in changedLocked; the marks are written by
// Encoder.WritePrompt.

// Prompt marks; never modified.
var (
	markEOR = []byte{IAC, EOR}
	markGA  = []byte{IAC, GA}
)

// promptEnd returns the bytes that end a prompt. The caller must not modify
// them.
func (o *Options) promptEnd() []byte {
	switch {
	case o.EOR():
		return markEOR
	case o.SGA():
		return nil
	}
	return markGA
}
