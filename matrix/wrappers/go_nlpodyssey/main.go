// A command-protocol-2 wrapper around github.com/nlpodyssey/safetensors, a Go
// port of the Hugging Face crate: safetensors.Deserialize over a read-only
// mmap of the file (the library takes the whole file as one []byte), then
// ReadMetadata for the __metadata__ map, which SafeTensors does not expose.
// An error the library returns is a rejection; a panic (exit 2) is a crash.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"syscall"

	"github.com/nlpodyssey/safetensors"
)

const (
	window    = 1 << 20
	hashLimit = 256 << 20
)

func answer(v any, code int) {
	out, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	fmt.Println(string(out))
	os.Exit(code)
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// digest: a sha256, or above 256 MiB the sha256 of three 1 MiB windows.
func digest(entry map[string]any, data []byte) {
	n := len(data)
	if n <= hashLimit {
		entry["sha256"] = sum(data)
		return
	}
	starts := []int{0, max(0, n/2-window/2), max(0, n-window)}
	sort.Ints(starts)
	var windows [][2]any
	for i, s := range starts {
		if i > 0 && s == starts[i-1] {
			continue
		}
		windows = append(windows, [2]any{s, sum(data[s:min(n, s+window)])})
	}
	entry["windows"] = windows
}

func main() {
	if len(os.Args) != 2 || os.Args[1] == "--write" {
		fmt.Fprintln(os.Stderr, "usage: nlpodyssey-st FILE | --describe")
		os.Exit(2)
	}
	if os.Args[1] == "--describe" {
		answer(map[string]any{
			"protocol": 2,
			"name":     "github.com/nlpodyssey/safetensors",
			"version":  version,
			"capabilities": map[string]any{
				"read_dtypes": []string{"BOOL", "U8", "I8", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64"},
			},
		}, 0)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	info, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	buf := []byte{}
	if info.Size() > 0 {
		buf, err = syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mmap:", err)
			os.Exit(70)
		}
	}
	st, err := safetensors.Deserialize(buf)
	if err != nil {
		answer(map[string]any{"result": "rejected", "reason": err.Error()}, 1)
	}
	_, meta, err := safetensors.ReadMetadata(buf)
	if err != nil {
		answer(map[string]any{"result": "rejected", "reason": err.Error()}, 1)
	}
	tensors := map[string]any{}
	for _, t := range st.Tensors() {
		view := t.TensorView
		entry := map[string]any{"dtype": view.DType().String(), "shape": view.Shape()}
		digest(entry, view.Data())
		tensors[t.Name] = entry
	}
	var metadata any
	if m := meta.Metadata(); m != nil {
		metadata = m
	}
	answer(map[string]any{"result": "accepted", "metadata": metadata, "tensors": tensors}, 0)
}
