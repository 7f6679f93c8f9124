// Empty: lets flush.go declare functions without a body (go:linkname).
