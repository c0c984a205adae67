// Command loadbot measures a running zonemud server from the outside.
//
// It opens -n connections to -addr (telnet, or SSH with -ssh-key) at -ramp
// per second, logs each bot in (creating its character the first time),
// lets it walk away from the start room (or along the scenario's path) if
// the scenario says so, and has every bot send a random command of the
// scenario about every -every (±20%), or, for a scenario in rounds, all its
// commands in order each -every. Once every bot is ready and -warmup has passed, it measures for
// -duration, then has every bot quit at once. It prints connections made,
// login failures, login time, the round trip from a command to the prompt
// that ends its answer, commands per second, unsolicited prompts,
// disconnects and the quit storm's farewells, and with -pid and -metrics
// the server's CPU, memory and pulse lateness. README.md beside this file
// describes the scenarios and every figure.
//
//	go run ./cmd/loadbot -scenario crowd -n 1000 -duration 60s
//	go run ./cmd/loadbot -n 200 -json -quiet | tail -1 | jq .round_trip
//
// The exit status is 1 when anything failed (a connection, a login, a
// timeout, a disconnect), 2 for bad flags, and 0 otherwise, so the tool also
// serves as a smoke test in scripts.
//
// The bot speaks only the player-facing contract: the login questions, the
// exits line, the prompt, telnet EOR/GA. It imports no zonemud package but
// internal/genworld (the ways down a generated tree), so it measures what a
// client sees and keeps working whatever the server's internals become.
//
// Goroutines: Run's own; the monitor (with -pid or -metrics); per bot, one
// that dials, logs in and then runs the timer-driven send loop, and one
// reader started after login. Bots share no lock: per-bot counters have one
// writer each and are merged when the bots have returned, round trips go
// into a lock-free histogram, and the window bounds are atomics.
//
// Files: main.go parses flags and prints; scenario.go the scenarios and
// answer markers; run.go holds Config and Run; bot.go a bot's login, reader
// and sender; ssh.go the SSH link; telnet.go the telnet decoder, prompt and
// answer detection; monitor.go and proc.go the watch on the server; stats.go
// percentiles, the histogram and the summary.
package main
