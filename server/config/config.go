// Package config reads config.toml: the embedded default first, then the
// admin's file over it. Each package owns its section's type and its
// validation; this package only puts them together. An unknown key, a
// value of the wrong type or one out of range stops start-up with a message
// that names the key.
package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"zonemud/net/gate"
	"zonemud/net/sshd"
	"zonemud/net/web"
	"zonemud/script"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

// Config is the whole of config.toml.
type Config struct {
	Server   Server               `toml:"server"`
	World    world.Config         `toml:"world"`
	Instance world.InstanceConfig `toml:"instance"`
	Zone     zone.Config          `toml:"zone"`
	Gate     gate.Config          `toml:"gate"`
	Store    store.Config         `toml:"store"`
	Lua      script.Config        `toml:"lua"`
	SSH      sshd.Config          `toml:"ssh"`
	Web      web.Config           `toml:"web"`

	// File is the absolute path of the file read over the defaults, ""
	// when there was none.
	File string `toml:"-"`
	// AreasDirSet says the file names areas_dir itself: a folder it names
	// must exist, where the default one may be missing (the binary then
	// serves its built-in world).
	AreasDirSet bool `toml:"-"`
}

// Server is the [server] section: where the server listens and keeps its
// files. It belongs to the wiring, so it lives here.
type Server struct {
	TelnetAddr   string `toml:"telnet_addr"`
	TLSAddr      string `toml:"tls_addr"`
	TLSCert      string `toml:"tls_cert"`
	TLSKey       string `toml:"tls_key"`
	SSHAddr      string `toml:"ssh_addr"`
	WebAddr      string `toml:"web_addr"`
	HTTPAddr     string `toml:"http_addr"`
	HTTPPublic   bool   `toml:"http_public"`
	AdminToken   string `toml:"admin_token"`
	DataDir      string `toml:"data_dir"`
	AreasDir     string `toml:"areas_dir"`
	LogLevel     string `toml:"log_level"`
	LogFormat    string `toml:"log_format"`
	ShutdownSecs int    `toml:"shutdown_secs"`
	Hostname     string `toml:"hostname"`
	Contact      string `toml:"contact"`
	Website      string `toml:"website"`
	ProfileLocks bool   `toml:"profile_locks"`
	Pprof        bool   `toml:"pprof"`
	// HolderSocket is the unix socket of a copyover holder: the server
	// serves the sessions it attaches besides its own listeners. Empty:
	// no holder (today's single process).
	HolderSocket string `toml:"holder_socket"`
	// Copyover runs the server as two processes of this binary: a holder
	// that keeps the telnet connections and a game it supervises, so
	// that a reboot or a crash of the game keeps every telnet player
	// connected. Off: one process, as before.
	Copyover bool `toml:"copyover"`
}

// Validate reports the first bad value, naming its key.
func (s Server) Validate() error {
	for _, a := range []struct{ key, v string }{
		{"server.telnet_addr", s.TelnetAddr}, {"server.ssh_addr", s.SSHAddr}, {"server.http_addr", s.HTTPAddr},
		{"server.tls_addr", s.TLSAddr}, {"server.web_addr", s.WebAddr},
	} {
		if a.v == "" {
			continue // empty: that listener is off
		}
		if _, _, err := net.SplitHostPort(a.v); err != nil {
			return fmt.Errorf("%s: %q is not host:port (%v)", a.key, a.v, err)
		}
	}
	if s.AdminToken != "" && (len(s.AdminToken) < MinAdminToken || strings.ContainsAny(s.AdminToken, " \t\r\n")) {
		return fmt.Errorf("server.admin_token: must be at least %d characters with no spaces (try: openssl rand -hex 32)", MinAdminToken)
	}
	if s.HTTPPublic && s.AdminToken == "" {
		return errors.New("server.admin_token: http_public is true, so the admin address needs a token")
	}
	if s.HTTPAddr != "" && !Loopback(s.HTTPAddr) && !s.HTTPPublic {
		return fmt.Errorf("server.http_addr: %q is not a loopback address; the admin endpoint serves backups (every password hash) and profiles, so it binds off loopback only with http_public = true and an admin_token", s.HTTPAddr)
	}
	if err := distinctListeners(s); err != nil {
		return err
	}
	if s.TelnetAddr == "" && s.SSHAddr == "" {
		return errors.New("server.telnet_addr and server.ssh_addr: at least one must be set")
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return errors.New("server.tls_cert and server.tls_key: set both, or neither for a self-signed pair in data_dir")
	}
	if s.DataDir == "" {
		return errors.New("server.data_dir: must not be empty")
	}
	if s.AreasDir == "" {
		return errors.New("server.areas_dir: must not be empty")
	}
	switch s.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("server.log_level: %q is not debug, info, warn or error", s.LogLevel)
	}
	switch s.LogFormat {
	case "text", "json":
	default:
		return fmt.Errorf("server.log_format: %q is not text or json", s.LogFormat)
	}
	if s.ShutdownSecs < 1 || s.ShutdownSecs > 600 {
		return fmt.Errorf("server.shutdown_secs: %d is out of range 1 to 600", s.ShutdownSecs)
	}
	return nil
}

// distinctListeners refuses two listeners on one address: the second could
// never bind. A port of 0 (any free port) never clashes; a wildcard host
// clashes with any host on the same port.
func distinctListeners(s Server) error {
	type bound struct{ key, host, port string }
	var seen []bound
	for _, a := range []struct{ key, v string }{
		{"server.telnet_addr", s.TelnetAddr}, {"server.ssh_addr", s.SSHAddr},
		{"server.tls_addr", s.TLSAddr}, {"server.http_addr", s.HTTPAddr},
		{"server.web_addr", s.WebAddr},
	} {
		if a.v == "" {
			continue
		}
		host, port, _ := net.SplitHostPort(a.v)
		if port == "0" {
			continue
		}
		for _, b := range seen {
			if b.port == port && (host == b.host || wildcard(host) || wildcard(b.host)) {
				return fmt.Errorf("%s: %q is the address %s already listens on; give each listener its own port", a.key, a.v, b.key)
			}
		}
		seen = append(seen, bound{a.key, host, port})
	}
	return nil
}

// wildcard reports whether a listen host means every address.
func wildcard(host string) bool { return host == "" || host == "0.0.0.0" || host == "::" }

// MinAdminToken is the shortest admin token accepted.
const MinAdminToken = 16

// Loopback reports whether a listen address can be reached only from this
// machine: a loopback IP, or the name localhost.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Load reads the embedded defaults, then the file at path over them (if
// path is not empty). Keys the file leaves out keep their defaults. With a
// file, relative paths (data_dir, areas_dir, tls_cert, tls_key) are taken
// from the folder the file is in; without one, from the working directory.
func Load(defaults []byte, path string) (*Config, error) {
	var c Config
	if _, err := decode(string(defaults), &c, "embedded default config"); err != nil {
		return nil, err
	}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		md, err := decode(string(data), &c, path)
		if err != nil {
			return nil, err
		}
		if c.File, err = filepath.Abs(path); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		c.AreasDirSet = md.IsDefined("server", "areas_dir")
		c.fromFile(filepath.Dir(c.File))
	}
	if err := c.Validate(); err != nil {
		where := path
		if where == "" {
			where = "embedded default config"
		}
		return nil, fmt.Errorf("config: %s: %w", where, err)
	}
	return &c, nil
}

func decode(data string, c *Config, where string) (toml.MetaData, error) {
	md, err := toml.Decode(data, c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			if pe.LastKey == "" {
				return md, fmt.Errorf("config: %s: line %d: %s", where, pe.Position.Line, pe.Message)
			}
			return md, fmt.Errorf("config: %s: line %d: key %q: %s", where, pe.Position.Line, pe.LastKey, pe.Message)
		}
		return md, fmt.Errorf("config: %s: %w", where, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return md, fmt.Errorf("config: %s: unknown key %s", where, strings.Join(keys, ", "))
	}
	return md, nil
}

// fromFile makes every relative path in the configuration relative to dir,
// the folder of the file it was read from, so that a server started with
// -config finds the same files from any working directory.
func (c *Config) fromFile(dir string) {
	for _, p := range []*string{&c.Server.DataDir, &c.Server.AreasDir, &c.Server.TLSCert, &c.Server.TLSKey, &c.Server.HolderSocket} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
}

// Validate checks every section.
func (c *Config) Validate() error {
	if err := finite(reflect.ValueOf(*c), ""); err != nil {
		return err
	}
	if strings.EqualFold(c.Server.WebAddr, "off") {
		c.Server.WebAddr = "" // "off" reads better in a file than ""
	}
	for _, v := range []interface{ Validate() error }{c.Server, c.World, c.Instance, c.Zone, c.Gate, c.Store, c.Lua, c.SSH, c.Web} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// finite refuses a float anywhere in v that is NaN or infinite, naming its
// key. TOML allows nan and inf, and every range check compares, which NaN
// passes: lines_per_sec = nan would turn rate limiting off.
func finite(v reflect.Value, key string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s: %v is not a finite number", key, f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if key != "" {
				name = key + "." + name
			}
			if err := finite(v.Field(i), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := finite(v.Index(i), fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if err := finite(v.MapIndex(k), fmt.Sprintf("%s.%v", key, k)); err != nil {
				return err
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return finite(v.Elem(), key)
		}
	}
	return nil
}
