package server

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// allowedHosts are the Host headers the admin address answers: the
// configured http_addr itself, the server's hostname, and the localhost
// names, each with the port the listener is bound to. A browser on this
// machine that a page has pointed at a rebound name (attacker.example,
// 127.0.0.1.nip.io) sends that name, so it is refused before any handler
// runs: a backup holds every password hash.
func allowedHosts(configured, hostname string, bound net.Addr) map[string]bool {
	_, port, _ := net.SplitHostPort(bound.String())
	names := []string{"127.0.0.1", "::1", "localhost"}
	if h, _, err := net.SplitHostPort(configured); err == nil {
		names = append(names, h)
	}
	if hostname != "" {
		names = append(names, hostname)
	}
	hosts := map[string]bool{strings.ToLower(configured): true} // as zonemud backup sends it
	for _, n := range names {
		hosts[strings.ToLower(net.JoinHostPort(n, port))] = true
	}
	return hosts
}

// requireHost refuses a request whose Host header is not one of hosts,
// an empty one included, with 421 (Misdirected Request).
func requireHost(hosts map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, fmt.Sprintf("the admin address does not answer for host %q; use the address in http_addr or a localhost name with its port", r.Host), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin refuses a request a browser sent on behalf of another site:
// a Sec-Fetch-Site other than same-origin or none (none is the admin
// typing the address), or an Origin whose host is not the request's Host.
// A client that is not a browser (curl, zonemud backup) sends neither.
func sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			http.Error(w, "cross-origin requests are refused here (Sec-Fetch-Site: "+site+")", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, r.Host) {
				http.Error(w, "cross-origin requests are refused here (Origin: "+o+")", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Backups and saves over the admin address are limited as scrapes are, so
// that a client gone wrong cannot copy the database thousands of times a
// second: a burst of adminBurst, then one every adminEvery.
const (
	adminBurst = 3
	adminEvery = 10 * time.Second
)

// limited answers 429 with Retry-After to a request past lim's rate,
// read at now().
func limited(lim *rate.Limiter, now func() time.Time, what string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := lim.ReserveN(now(), 1)
		if d := res.DelayFrom(now()); d > 0 {
			res.CancelAt(now())
			w.Header().Set("Retry-After", strconv.Itoa(int(d/time.Second)+1))
			http.Error(w, fmt.Sprintf("too many %s; at most %d in a row, then one every %s", what, adminBurst, adminEvery), http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
