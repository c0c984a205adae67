module zonemud

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/gliderlabs/ssh v0.3.8
	github.com/yuin/gopher-lua v1.1.2
	go.etcd.io/bbolt v1.5.0
	golang.org/x/crypto v0.59.0
	golang.org/x/term v0.48.0
	golang.org/x/time v0.16.0
)

require (
	github.com/anmitsu/go-shlex v0.0.0-20200514113438-38f4b401e2be // indirect
	golang.org/x/sys v0.50.0 // indirect
)
