// Package page is the web client the binary serves: one HTML page, its
// style sheet and its JavaScript modules, embedded with go:embed, so an
// admin needs no build step, no CDN and no files beside the binary.
//
// The page speaks the gmcp.mudstandards.org WebSocket subprotocol to the
// web front (net/web) at /ws on its own host: game text as UTF-8 ANSI in
// binary frames, GMCP as "Package.Name json" in text frames. It renders
// the text into the DOM as styled spans (never as HTML: game text only
// ever becomes text nodes), keeps a bounded scrollback, and draws the
// GMCP panels (Char.Vitals, Room.Info, Comm.Channel.Text).
//
// Handler is stateless and safe for any number of goroutines. The package
// imports nothing of the project: the web front mounts it, it does not
// reach the game.
package page
