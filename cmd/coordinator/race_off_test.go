//go:build !race

package main

// buildFlags: see race_on_test.go.
var buildFlags []string
