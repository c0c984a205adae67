// Package newpkg is a fixture for imports_test.go: a package the tables
// do not place.
package newpkg

import _ "zonemud/store"
