// Package zone is a fixture for imports_test.go: a zone never imports
// the world.
package zone

import _ "zonemud/world"
