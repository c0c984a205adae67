package zone_test

// A whole-server test does not live in zone/: the server's test harness
// is not among what zone's tests may import.
import _ "zonemud/server/servertest"
