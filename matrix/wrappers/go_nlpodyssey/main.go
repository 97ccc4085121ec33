// A command-protocol-2 wrapper around github.com/nlpodyssey/safetensors, a Go
// port of the Hugging Face crate: safetensors.Deserialize over a read-only
// mmap of the file (the library takes the whole file as one []byte), then
// ReadMetadata for the __metadata__ map, which SafeTensors does not expose.
// An error the library returns is a rejection; a panic (exit 2) is a crash.
package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/nlpodyssey/safetensors"

	"matrix/wire"
)

// digest: a sha256, or above 256 MiB the sha256 of three 1 MiB windows.
func digest(entry map[string]any, data []byte) {
	n := int64(len(data))
	if n <= wire.HashLimit {
		entry["sha256"] = wire.Sum(data)
		return
	}
	var windows [][2]any
	for _, s := range wire.WindowStarts(n) {
		windows = append(windows, [2]any{s, wire.Sum(data[s:min(n, s+wire.Window)])})
	}
	entry["windows"] = windows
}

func read(path string) {
	f, err := os.Open(path)
	if err != nil {
		wire.Fail(err)
	}
	info, err := f.Stat()
	if err != nil {
		wire.Fail(err)
	}
	buf := []byte{}
	if info.Size() > 0 {
		buf, err = syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			wire.Fail(fmt.Errorf("mmap: %w", err))
		}
	}
	st, err := safetensors.Deserialize(buf)
	if err != nil {
		wire.Reject(err.Error())
	}
	_, meta, err := safetensors.ReadMetadata(buf)
	if err != nil {
		wire.Reject(err.Error())
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
	wire.Accept(metadata, tensors)
}

func main() {
	wire.Command{
		Program: "go_nlpodyssey",
		Name:    "github.com/nlpodyssey/safetensors",
		Version: version,
		Capabilities: map[string]any{
			"read_dtypes": []string{"BOOL", "U8", "I8", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64"},
		},
		Read: read,
	}.Run()
}
