// Empty: lets flush.go declare bodiless functions for go:linkname.
