// Package gate is a fixture for imports_test.go: the gate must not import
// the zone.
package gate

import (
	_ "zonemud/world"
	_ "zonemud/zone"
)
