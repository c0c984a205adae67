package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func defaults(t *testing.T) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad_EmbeddedDefaultIsValid(t *testing.T) {
	c, err := Load(defaults(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.TelnetAddr != "127.0.0.1:4000" || c.Server.SSHAddr != "127.0.0.1:4022" || c.Server.HTTPAddr != "127.0.0.1:4080" {
		t.Fatalf("default addresses: %+v", c.Server)
	}
	if c.Server.DataDir != "data" || c.Server.AreasDir != "areas" {
		t.Fatalf("default dirs: %+v", c.Server)
	}
}

func TestLoad_FileOverridesOnlyWhatItSets(t *testing.T) {
	c, err := Load(defaults(t), write(t, "[server]\ntelnet_addr = \"0.0.0.0:5000\"\n[zone]\nlinkdead_secs = 30\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.TelnetAddr != "0.0.0.0:5000" || c.Zone.LinkDeadSecs != 30 {
		t.Fatalf("overrides not applied: %+v %+v", c.Server, c.Zone)
	}
	if c.Server.SSHAddr != "127.0.0.1:4022" || c.Zone.CheckpointSecs != 10 {
		t.Fatalf("defaults lost: %+v %+v", c.Server, c.Zone)
	}
}

// Every refusal names the key, so an admin can find the line to fix.
func TestLoad_RefusalsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"[server]\ntelnet_adr = \"x\"\n", "server.telnet_adr"},
		{"[zone]\nlinkdead_secs = \"soon\"\n", "linkdead_secs"},
		{"[zone]\nlinkdead_secs = 0\n", "zone.linkdead_secs"},
		{"[gate]\nmax_line = 10\n", "gate.max_line"},
		{"[server]\ntelnet_addr = \"nope\"\n", "server.telnet_addr"},
		{"[server]\nlog_level = \"loud\"\n", "server.log_level"},
		{"[store]\nfile = \"../escape.db\"\n", "store.file"},
		{"[store]\nbackup_every = \"6x\"\n", "store.backup_every"},
		{"[store]\nbackup_every = \"10s\"\n", "store.backup_every"},
		{"[store]\nbackup_every = \"-6h\"\n", "store.backup_every"},
		{"[store]\nbackup_every = 6\n", "backup_every"},
		{"[store]\nbackup_keep = 0\n", "store.backup_keep"},
		{"[store]\nbackup_keep = 1001\n", "store.backup_keep"},
		{"[world]\nwatch_areas = \"yes\"\n", "watch_areas"},
		{"[server]\npprof = 1\n", "pprof"},
		{"[nosuch]\nx = 1\n", "nosuch"},
		{"[server\n", "line 2"},
		{"[gate]\nlines_per_sec = -1.0\n", "gate.lines_per_sec"},
		{"[world]\nmax_players = -1\n", "world.max_players"},
		{"[instance]\nper_process = 5000\n", "instance.per_process"},
		{"[instance]\nper_account = -1\n", "instance.per_account"},
		{"[instance]\nmint_burst = 100\nmint_window_secs = 10\n", "instance.mint_burst"},
		{"[instance]\nper_acount = 3\n", "instance.per_acount"},
		{"[gate]\nlines_per_sec = nan\n", "gate.lines_per_sec: NaN is not a finite number"},
		{"[gate]\nlines_per_sec = inf\n", "gate.lines_per_sec: +Inf is not a finite number"},
		{"[gate]\nlines_per_sec = -inf\n", "gate.lines_per_sec: -Inf is not a finite number"},
		{"[server]\nhttp_addr = \"0.0.0.0:4080\"\n", "server.http_addr"},
		{"[server]\nhttp_addr = \":4080\"\n", "server.http_addr"},
		{"[server]\nhttp_addr = \"192.0.2.7:4080\"\n", "server.http_addr"},
		{"[server]\nhttp_addr = \"0.0.0.0:4080\"\nhttp_public = true\n", "server.admin_token"},
		{"[server]\nadmin_token = \"short\"\n", "server.admin_token"},
		{"[server]\nssh_addr = \"127.0.0.1:4000\"\n", "server.ssh_addr: \"127.0.0.1:4000\" is the address server.telnet_addr already listens on"},
		{"[server]\ntelnet_addr = \":4022\"\n", "server.ssh_addr"},
		{"[server]\ntls_addr = \"127.0.0.1:4080\"\n", "server.http_addr"},
	} {
		_, err := Load(defaults(t), write(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %q: got %v, want an error naming %q", tc.body, err, tc.want)
		}
	}
}

func TestLoad_MissingFileIsAnError(t *testing.T) {
	if _, err := Load(defaults(t), filepath.Join(t.TempDir(), "nope.toml")); err == nil {
		t.Fatal("a missing -config file was accepted")
	}
}

// The admin address binds off loopback only when asked to and guarded by a
// token; on loopback it needs neither.
func TestLoad_AdminAddress(t *testing.T) {
	for _, body := range []string{
		"[server]\nhttp_addr = \"127.0.0.1:4080\"\n",
		"[server]\nhttp_addr = \"[::1]:4080\"\n",
		"[server]\nhttp_addr = \"localhost:4080\"\n",
		"[server]\nhttp_addr = \"0.0.0.0:4080\"\nhttp_public = true\nadmin_token = \"0123456789abcdef0123\"\n",
		"[server]\nhttp_addr = \"\"\n",
	} {
		if _, err := Load(defaults(t), write(t, body)); err != nil {
			t.Errorf("config %q: %v", body, err)
		}
	}
}

// Relative paths in a config file are from the folder the file is in, so a
// server started with -config finds its files from any working directory;
// without a file they are from the working directory.
func TestLoad_RelativePathsAreFromTheFile(t *testing.T) {
	p := write(t, "[server]\ndata_dir = \"state\"\ntls_cert = \"/etc/c.pem\"\ntls_key = \"k.pem\"\n")
	c, err := Load(defaults(t), p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if c.File != p || c.Server.DataDir != filepath.Join(dir, "state") || c.Server.AreasDir != filepath.Join(dir, "areas") ||
		c.Server.TLSCert != "/etc/c.pem" || c.Server.TLSKey != filepath.Join(dir, "k.pem") {
		t.Fatalf("from %s: file %q, data %q, areas %q, cert %q, key %q", p, c.File, c.Server.DataDir, c.Server.AreasDir, c.Server.TLSCert, c.Server.TLSKey)
	}
	if c.AreasDirSet {
		t.Error("areas_dir counted as set by a file that does not name it")
	}
	if c, err := Load(defaults(t), write(t, "[server]\nareas_dir = \"world\"\n")); err != nil || !c.AreasDirSet {
		t.Errorf("a file that names areas_dir: set %v, %v", c != nil && c.AreasDirSet, err)
	}
	c, err = Load(defaults(t), "")
	if err != nil || c.File != "" || c.Server.DataDir != "data" {
		t.Fatalf("without a file: %+v, %v", c, err)
	}
}

// The web front is on by default on loopback; "off" or "" turns it off,
// and [web] refuses an origin pattern that lets every site in.
func TestLoad_WebAddr(t *testing.T) {
	c, err := Load(defaults(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.WebAddr != "127.0.0.1:4001" {
		t.Fatalf("default web_addr %q", c.Server.WebAddr)
	}
	for _, v := range []string{"off", "OFF", ""} {
		c, err := Load(defaults(t), write(t, "[server]\nweb_addr = \""+v+"\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Server.WebAddr != "" {
			t.Fatalf("web_addr = %q left %q", v, c.Server.WebAddr)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{"[server]\nweb_addr = \"4001\"\n", "server.web_addr"},
		{"[server]\nweb_addr = \"127.0.0.1:4000\"\n", "server.web_addr"},
		{"[web]\norigins = [\"*\"]\n", "web.origins"},
		{"[web]\nping_secs = 1\n", "web.ping_secs"},
		{"[web]\nproxy_header = \"Forwarded\"\n", "web.proxy_header"},
		{"[server]\nweb_addr = \"127.0.0.1:4080\"\n", "server.web_addr"}, // the admin address
		{"[web]\nheader_secs = 0\n", "web.header_secs"},
		{"[web]\nread_secs = 0\n", "web.read_secs"},
		{"[web]\nidle_secs = 0\n", "web.idle_secs"},
		{"[web]\nmax_header_kib = 0\n", "web.max_header_kib"},
		{"[web]\nmax_conns_per_ip = 0\n", "web.max_conns_per_ip"},
		{"[web]\nupgrades_per_min = 0\n", "web.upgrades_per_min"},
	} {
		_, err := Load(defaults(t), write(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want one naming %s", tc.body, err, tc.want)
		}
	}
}
