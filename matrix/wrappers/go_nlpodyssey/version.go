package main

// The module version pinned in go.mod (reported by --describe).
const version = "v0.0.0-20250209183917-bfb01cc25f7c"
