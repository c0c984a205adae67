// Package content owns the world as builders write it: the TOML area files
// under areas/, their schema, the loader that validates a whole set at once,
// and the immutable prototype cache (Set) that every zone and every instance
// shares.
//
// Nothing here runs a goroutine. A Set is immutable after Load returns and is
// safe to read from any goroutine; a new version of the content is a new Set.
// LoadCached keeps each file's decoded form by the hash of its bytes, so a
// reload decodes only what changed. Every problem names its file, and its
// line: from BurntSushi/toml for syntax and type errors, from a scan of the
// text (lines.go) for the rest. Before the decoder sees a file, a linear
// scan (guard.go) bounds what decoding it may cost: how deeply it nests,
// how many keys and values it has, and how long their key paths are in all.
//
// Refs are the names content uses for things: zone:kind:local, drawn from the
// charset [a-z0-9_:]. An instance id (<template>#<hex>) uses '#', which no
// authored ref can contain, so the two can never collide.
//
// This package must not import zone, world or anything that runs the game.
package content
