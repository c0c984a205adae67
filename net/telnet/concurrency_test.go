package telnet

import (
	"bytes"
	"io"
	"sync"
	"testing"
)

// TestConcurrentUse runs the three users of one connection the way the gate
// does: a reader goroutine with the Decoder, a writer goroutine with the
// Encoder that also writes the replies, and a third goroutine reading
// Options. It finds data races under -race.
func TestConcurrentUse(t *testing.T) {
	o := NewOptions(DefaultConfig())
	pr, pw := io.Pipe()
	replies := make(chan []byte, 16)
	events := make(chan Event, 16)
	d := NewDecoder(pr, o, func(ctl []byte) { replies <- ctl })

	var wg sync.WaitGroup
	wg.Add(4)
	go func() { // the client
		defer wg.Done()
		pw.Write(bs(t, `IAC WILL TTYPE IAC WILL NAWS IAC SB NAWS 0x00 0x64 0x00 0x28 IAC SE IAC DO CHARSET `+
			`IAC DO EOR IAC DO GMCP IAC DO MSSP IAC DO MCCP2 IAC SB TTYPE IS "MUDLET" IAC SE `+
			`IAC SB CHARSET ACCEPTED "UTF-8" IAC SE`))
		for i := range 200 {
			pw.Write([]byte("say hello\r\n"))
			pw.Write(bs(t, `IAC SB GMCP "Core.Ping" IAC SE IAC DO ECHO IAC DONT ECHO`))
			if i%50 == 0 {
				pw.Write(bs(t, `IAC DONT MCCP2 IAC DO MCCP2`))
			}
		}
		pw.Close()
	}()
	go func() { // the reader
		defer wg.Done()
		defer close(events)
		defer close(replies)
		for {
			e, err := d.Next()
			if err != nil {
				return
			}
			events <- e
		}
	}()
	go func() { // the writer
		defer wg.Done()
		var out bytes.Buffer
		e := NewEncoder(&out, o)
		e.WriteRaw(o.Start())
		for replies != nil || events != nil {
			select {
			case r, ok := <-replies:
				if !ok {
					replies = nil
					continue
				}
				e.WriteRaw(r)
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				switch ev.(type) {
				case CompressRequested:
					e.StartCompression()
				case CompressStopped:
					e.StopCompression()
				case MSSPRequested:
					e.MSSP([]MSSPVar{{Name: "NAME", Values: []string{"zonemud"}}})
				case Line:
					e.WriteRaw(o.EchoOff())
					e.WritePrompt([]byte("Password: "))
					e.WriteRaw(o.EchoOn())
					e.WriteText([]byte("café\n"))
				}
				e.Flush()
			}
		}
		e.StopCompression()
		e.Flush()
	}()
	go func() { // someone else reading the state
		defer wg.Done()
		for range 500 {
			_ = o.EOR() || o.SGA() || o.GMCP() || o.UTF8() || o.MCCP2() || o.ScreenReader()
			o.Size()
			o.Client()
			o.ColorLevel()
		}
	}()
	wg.Wait()
	if o.Client().Name != "MUDLET" || !o.UTF8() || !o.EOR() {
		t.Errorf("state after the run: %+v utf8=%v eor=%v", o.Client(), o.UTF8(), o.EOR())
	}
}
