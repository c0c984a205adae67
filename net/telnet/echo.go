package telnet

// The server side of ECHO (RFC 857) hides a password: IAC WILL ECHO before
// the prompt makes the client stop echoing locally, IAC WONT ECHO after the
// answer makes it echo again. The server never echoes anything itself.
//
// Our side of ECHO does not use the RFC 1143 queue. Clients in the field do
// not answer every ECHO command: TinTin++ answers WILL ECHO but not WONT ECHO
// (telopt_client.c), older MUSHclient answers neither. Under the strict
// Q method the first unanswered command leaves the option pending forever,
// and the next password prompt sends nothing, showing the password. Instead
// EchoOff and EchoOn always send their command when it changes what the
// server last said, and count the commands not yet answered: a DO or DONT
// while any are outstanding is taken as an answer and never answered. Only a
// command that arrives with nothing outstanding can draw a reply, and that
// reply is always WONT ECHO, at most once for DO.

// maxEchoPending caps the count of unanswered ECHO commands; a client that
// never answers keeps it at the cap.
const maxEchoPending = 4

// echoState is the server's side of ECHO.
type echoState struct {
	on        bool  // the server last sent WILL ECHO and the client has not refused it
	pending   uint8 // ECHO commands sent and not yet answered
	refusedDo bool  // an unprompted DO ECHO was refused; later ones are ignored
}

// EchoOff returns the bytes to send before a password prompt, IAC WILL ECHO,
// so the client stops echoing what is typed. It returns nothing if the
// server already said WILL ECHO. The client's DO ECHO in reply is accepted
// and not answered.
func (o *Options) EchoOff() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := &o.echo
	if e.on {
		return nil
	}
	e.on = true
	if e.pending < maxEchoPending {
		e.pending++
	}
	return []byte{IAC, WILL, OptEcho}
}

// EchoOn returns the bytes to send after a password was read, IAC WONT ECHO,
// so the client echoes again. It returns nothing if the server did not say
// WILL ECHO.
func (o *Options) EchoOn() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := &o.echo
	if !e.on {
		return nil
	}
	e.on = false
	if e.pending < maxEchoPending {
		e.pending++
	}
	return []byte{IAC, WONT, OptEcho}
}

// recvEchoLocked handles DO ECHO (positive) or DONT ECHO from the client.
func (o *Options) recvEchoLocked(positive bool, out *outbox) {
	e := &o.echo
	if e.pending > 0 {
		e.pending--
		if e.pending == 0 && !positive {
			// The last answer refuses WILL ECHO, or confirms WONT ECHO.
			e.on = false
		}
		return
	}
	switch {
	case positive && !e.on && !e.refusedDo:
		// The client asks the server to echo; it never does.
		e.refusedDo = true
		out.cmd(WONT, OptEcho)
	case !positive && e.on:
		// The client withdraws its agreement: acknowledge.
		e.on = false
		out.cmd(WONT, OptEcho)
	}
}
