// Package config is a fixture for imports_test.go: the wiring may import
// any package, but never one in a folder above its own.
package config

import _ "zonemud"
