// Package recipes runs the copy-paste recipes of docs/ as they are written
// there, so that a recipe cannot drift from what works.
package recipes
