package main

// The module version pinned in go.mod (reported by --describe).
const version = "v1.57.1"
