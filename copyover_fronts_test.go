package main

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/server/servertest"
)

// Under copyover the holder terminates SSH and serves the web client too:
// an SSH player (a new character made over SSH, the password hidden) and
// a web player stay connected through `zonemud reboot` and through a
// SIGKILL of the game, each in their room, a line each typed while the
// holder swapped answered exactly once. The host key is the same before
// and after (the holder owns it); a wrong SSH password is refused on the
// game's word, the right one let in by the game running after the swap.
func TestCopyover_SSHAndWebPlayersStay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	dir := t.TempDir()
	cfgPath, telnet := copyoverConfig(t, dir, "")
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	sshAddr, webAddr := cfg.Server.SSHAddr, cfg.Server.WebAddr
	p := startProc(t, cfgPath, telnet)
	first := gamePID(t, dir)

	var mu sync.Mutex
	var pinned []byte
	hostKey := func(_ string, _ net.Addr, k gossh.PublicKey) error {
		mu.Lock()
		defer mu.Unlock()
		if pinned == nil {
			pinned = k.Marshal()
		} else if !bytes.Equal(pinned, k.Marshal()) {
			return errors.New("the host key changed")
		}
		return nil
	}
	client := func(user, pw string) *gossh.ClientConfig {
		return &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.Password(pw)}, HostKeyCallback: hostKey}
	}

	sam := servertest.DialSSH(t, sshAddr, client("Sam", "anything"))
	sam.Expect("(y/n)")
	sam.Send("y")
	sam.Expect("password")
	sam.Send("secret-sam")
	sam.Expect("again")
	sam.Send("secret-sam")
	sam.Expect("Exits:")
	sam.DoExpect("west", "Market Row")
	if bytes.Contains(sam.Raw(), []byte("secret-sam")) {
		t.Errorf("the new password was echoed to the SSH terminal")
	}
	wen := servertest.DialWeb(t, webAddr)
	wen.Create("Wendy", "secret-wendy")
	wen.DoExpect("north", "Temple Street")
	if err := servertest.TrySSH(sshAddr, client("Sam", "wrong")); err == nil {
		t.Error("a wrong SSH password was let in by the holder")
	}

	// From the shell, through the control socket, so that the players type
	// once the holder has said it swaps.
	c, err := net.DialTimeout("unix", filepath.Join(dir, "data", "holder.ctl"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Minute)) // a bound on a hang
	if _, err := c.Write([]byte("reboot the test\n")); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(c)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if strings.HasPrefix(sc.Text(), "swapping") || strings.HasPrefix(sc.Text(), "failed") {
			break
		}
	}
	sam.Skip()
	wen.Skip()
	sam.Send("say ssh in the swap")
	wen.Send("say web in the swap")
	for sc.Scan() {
		said = append(said, sc.Text())
	}
	if last := said[len(said)-1]; !strings.HasPrefix(last, "ok: rebooted") || !strings.Contains(last, "2 of 2 players back") {
		t.Fatalf("the reboot said:\n%s\n%s", strings.Join(said, "\n"), p.out)
	}
	second := gamePID(t, dir)
	if second == first {
		t.Fatal("the reboot did not start a new game")
	}
	for _, x := range []struct {
		c          *servertest.Client
		line, room string
	}{{sam, "ssh in the swap", "Market Row"}, {wen, "web in the swap", "Temple Street"}} {
		x.c.Send("say after the swap")
		seen := x.c.Expect("You say, 'after the swap'")
		if n := strings.Count(seen, "You say, '"+x.line+"'"); n != 1 {
			t.Errorf("%q was answered %d times; want once:\n%s", x.line, n, seen)
		}
		if !strings.Contains(seen, x.room) || strings.Contains(strings.ToLower(seen), "password") {
			t.Errorf("a player was not put back in %s without a password:\n%s", x.room, seen)
		}
	}
	if err := servertest.TrySSH(sshAddr, client("Sam", "secret-sam")); err != nil {
		t.Errorf("the right SSH password after the reboot: %v", err)
	}

	// A crash: the holder starts the game again and puts both back.
	p.save(t)
	if err := syscall.Kill(second, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitNewGame(t, dir, second, p)
	sam.Expect("The world stumbled")
	wen.Expect("The world stumbled")
	sam.DoExpect("look", "Market Row")
	wen.DoExpect("look", "Temple Street")
	for _, c := range []*servertest.Client{sam, wen} {
		if c.WaitClosed(100 * time.Millisecond) {
			t.Fatal("a connection closed at the crash")
		}
	}
	p.stop(t)
	if !sam.WaitClosed(30*time.Second) || !wen.WaitClosed(30*time.Second) {
		t.Error("a connection outlived the holder")
	}
}
