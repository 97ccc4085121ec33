// Package wire is what every Go wrapper of matrix/wrappers/ says the same way
// in command protocol 2: the command line (FILE, --write OUT, --describe),
// one line of JSON on stdout with the exit status that goes with it, and the
// windowed digest of a tensor over 256 MiB. What a wrapper calls in its
// library, and how it lists what the library read, stays in the wrapper.
//
// Each wrapper's go.mod replaces matrix/wire with ../_gowire, which
// matrix/build/go_module.sh copies beside the wrapper's own sources.
package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
)

const (
	// HashLimit is the largest tensor digested whole; a larger one is
	// digested as the windows WindowStarts gives.
	HashLimit = 256 << 20
	// Window is the size of each window of a larger tensor.
	Window = 1 << 20
)

// Command is one wrapper's program: its name in the usage line, what
// --describe answers, and what it runs for FILE and for --write OUT (nil: the
// wrapper does not write).
type Command struct {
	Program      string
	Name         string
	Version      string
	Capabilities map[string]any
	Read         func(path string)
	Write        func(out string)
}

// Run dispatches on os.Args; a command line it does not know exits 2.
func (c Command) Run() {
	args := os.Args[1:]
	switch {
	case len(args) == 1 && args[0] == "--describe":
		Answer(map[string]any{
			"protocol":     2,
			"name":         c.Name,
			"version":      c.Version,
			"capabilities": c.Capabilities,
		}, 0)
	case len(args) == 2 && args[0] == "--write" && c.Write != nil:
		c.Write(args[1])
	case len(args) == 1 && args[0] != "--write":
		c.Read(args[0])
	default:
		usage := "usage: " + c.Program + " FILE | --describe"
		if c.Write != nil {
			usage = "usage: " + c.Program + " FILE | --write OUT | --describe"
		}
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	Fail(errors.New("the wrapper gave no answer"))
}

// Answer prints v as one line of JSON and exits with code.
func Answer(v any, code int) {
	out, err := json.Marshal(v)
	if err != nil {
		Fail(err)
	}
	fmt.Println(string(out))
	os.Exit(code)
}

// Accept answers what the library read (exit 0); metadata is nil when the
// file has none or the library does not give it.
func Accept(metadata any, tensors map[string]any) {
	Answer(map[string]any{"result": "accepted", "metadata": metadata, "tensors": tensors}, 0)
}

// Unlisted answers a file the library accepted but whose tensors the wrapper
// cannot list as the library read them: one undescribed entry, which the
// suite reads as invalid output, and the reason.
func Unlisted(reason string) {
	Answer(map[string]any{"result": "accepted", "metadata": nil,
		"tensors": map[string]any{"": map[string]any{"dtype": nil, "shape": nil}},
		"reason":  reason}, 0)
}

// Reject answers that the library refused the file (exit 1).
func Reject(reason string) {
	Answer(map[string]any{"result": "rejected", "reason": reason}, 1)
}

// Refuse answers that the library cannot write what was asked (exit 1).
func Refuse(reason string) {
	Answer(map[string]any{"result": "refused", "reason": reason}, 1)
}

// Fail reports a fault of the wrapper itself, not of the library (exit 70).
func Fail(err error) {
	fmt.Fprintln(os.Stderr, "wrapper:", err)
	os.Exit(70)
}

// Sum is the hex sha256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// WindowStarts gives where the windows of an n-byte tensor over HashLimit
// start: its first, middle and last Window bytes, each start once.
func WindowStarts(n int64) []int64 {
	starts := []int64{0, max(0, n/2-Window/2), max(0, n-Window)}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	var out []int64
	for i, s := range starts {
		if i == 0 || s != starts[i-1] {
			out = append(out, s)
		}
	}
	return out
}
