package main

import (
	"bytes"
	"strings"
	"testing"

	"zonemud/server/servertest"
	"zonemud/store"
)

// adminCreate runs zonemud admin create for a test, the password on the
// command line, and fails the test if it does not succeed.
func adminCreate(t *testing.T, cfg, name, password string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run([]string{"admin", "create", "-config", cfg, "-password", password, name}, &out, &errOut); code != 0 {
		t.Fatalf("zonemud admin create %s: exit %d\n%s%s", name, code, out.String(), errOut.String())
	}
}

// zonemud admin create makes a character that is an admin at its first
// login, the password read from stdin; it refuses while a server holds
// the database, and refuses a name already made. zonemud admin grant
// makes a character made in game an admin, from its next login.
func TestMain_AdminCreateThenThatLoginIsAdmin(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[world]\nadmins = [\"Ada\", \"Cy\"]\n")
	was := stdin
	stdin = strings.NewReader("secret-ada\n")
	t.Cleanup(func() { stdin = was })
	var out, errOut bytes.Buffer
	if code := run([]string{"-config", cfg, "admin", "create", "Ada"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "made Ada, an admin") {
		t.Fatalf("admin create, the password on stdin: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	p := startProc(t, cfg, telnet)
	out.Reset()
	errOut.Reset()
	if code := run([]string{"admin", "create", "-config", cfg, "-password", "secret-bob", "Bob"}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "the server is running") || !strings.Contains(errOut.String(), "Nothing was changed") {
		t.Fatalf("admin create with a server running: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	ada := servertest.Dial(t, telnet)
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("grant ada", "Ada is an admin.")
	ada.DoExpect("wall the first admin", "the first admin")
	cy := servertest.Dial(t, telnet)
	cy.Create("Cy", "secret-cy")
	cy.DoExpect("wall me too", "Huh?")
	ada.DoExpect("grant bob", "There is no character named Bob.")
	ada.Quit()
	cy.Quit()
	p.stop(t)

	out.Reset()
	errOut.Reset()
	if code := run([]string{"admin", "create", "-config", cfg, "-password", "other-pass", "ada"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "already has a character") {
		t.Fatalf("admin create of a name already made: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"admin", "grant", "-config", cfg, "Cy"}, &out, &errOut); code != 0 {
		t.Fatalf("admin grant Cy: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	p = startProc(t, cfg, telnet)
	ada = servertest.Dial(t, telnet)
	ada.Login("Ada", "secret-ada") // the password is still the first one
	cy = servertest.Dial(t, telnet)
	cy.Login("Cy", "secret-cy")
	cy.DoExpect("wall granted on the shell", "granted on the shell")
	p.stop(t)

	db, err := store.OpenReadOnly(dir+"/data/zonemud.db", store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Account("Bob"); err == nil {
		t.Error("the refused admin create made Bob all the same")
	}
}

// Names and passwords go by the rules of the name prompt.
func TestMain_AdminCreateRefusesBadNamesAndPasswords(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := writeConfig(t, dir, "")
	for _, tc := range []struct{ name, pw, want string }{
		{"Root", "long-enough", "reserved"},
		{"Ada9", "long-enough", "letters A to Z"},
		{"Ada", "abc", "too short"},
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"admin", "create", "-config", cfg, "-password", tc.pw, tc.name}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("admin create %s %s: exit %d, want %q\n%s%s", tc.name, tc.pw, code, tc.want, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"admin", "grant", "-config", cfg, "Zed"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no character named Zed") {
		t.Errorf("admin grant of a name never made: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
