package main

// The module version pinned in go.mod (reported by --describe).
const version = "v0.17.4"
