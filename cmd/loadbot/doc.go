// Command loadbot measures a running zonemud server from the outside.
//
// It opens -n telnet connections to -addr at -ramp per second, logs each bot
// in (creating its character the first time), and has every bot send a
// random command from -commands about every -every (±20%). Once every bot
// has logged in and -warmup has passed, it measures for -duration, then
// prints connections made, login failures, login time, the round trip from
// a command to the next prompt, commands per second, unsolicited prompts and
// disconnects.
//
//	go run ./cmd/loadbot -n 1000 -every 2s -duration 60s
//	go run ./cmd/loadbot -n 200 -json -quiet | tail -1 | jq .round_trip
//
// The exit status is 1 when anything failed (a connection, a login, a
// timeout, a disconnect), 2 for bad flags, and 0 otherwise, so the tool also
// serves as a smoke test in scripts.
//
// The bot speaks only the player-facing contract of DESIGN.md: the login
// questions, the prompt, telnet EOR/GA. It imports no zonemud package, so it
// measures what a client sees and keeps working whatever the server's
// internals become.
//
// Goroutines: Run's own; per bot, one that dials, logs in and then runs the
// timer-driven send loop, and one reader started after login. Bots share no
// lock: per-bot counters have one writer each and are merged when the bots
// have returned, round trips go into a lock-free histogram, and the window
// bounds are atomics.
//
// Files: main.go parses flags and prints; run.go holds Config and Run; bot.go
// a bot's login, reader and sender; telnet.go the telnet decoder and prompt
// detection; stats.go percentiles, the histogram and the summary.
package main
