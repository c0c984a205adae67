// Package queue is a fixture for imports_test.go: a utility that any
// package may import must itself import nothing of the project.
package queue

import _ "zonemud/store"
