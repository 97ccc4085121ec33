// A command-protocol-2 wrapper around github.com/ollama/ollama/x/imagegen/safetensors,
// the package `ollama create` uses to import safetensors models for its MLX
// engine (x/create/create.go and imagegen.go call OpenForExtraction, ListTensors,
// GetTensor and read each tensor through TensorData.Reader; x/create/client
// writes packed blobs with NewTensorDataFromBytes and BuildPackedSafetensorsReader).
// Only extractor.go builds without the mlx tag; it is all this program uses.
//
// Read: OpenForExtraction, then ExtractAll and each tensor's Reader read to
// its end (io.Copy, as ollama copies it into a blob). The package deletes
// __metadata__ (extractor.go:180), so metadata is always null.
// Write: NewTensorDataFromBytes per tensor, in name order as ExtractAll gives
// them, and BuildPackedSafetensorsReader copied into OUT. The writer takes no
// metadata and int32 dimensions, so such requests are refused here.
//
// An error the library returns is a rejection; a panic (exit 2) is a crash.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/ollama/ollama/x/imagegen/safetensors"

	"matrix/wire"
)

// digest reads the tensor's reader to its end, as ollama copies it into a
// blob: a sha256, or above 256 MiB the sha256 of three 1 MiB windows, read
// again through the reader's ReadAt (Reader returns an *io.SectionReader).
func digest(td *safetensors.TensorData) (map[string]any, error) {
	h := sha256.New()
	n, err := io.Copy(h, td.Reader())
	if err != nil {
		return nil, err
	}
	entry := map[string]any{"dtype": td.Dtype, "shape": td.Shape}
	if n <= wire.HashLimit {
		entry["sha256"] = hex.EncodeToString(h.Sum(nil))
		return entry, nil
	}
	at, ok := td.Reader().(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("the tensor reader has no ReadAt for windows")
	}
	var windows [][2]any
	buf := make([]byte, wire.Window)
	for _, s := range wire.WindowStarts(n) {
		k, err := at.ReadAt(buf[:min(wire.Window, n-s)], s)
		if err != nil && err != io.EOF {
			return nil, err
		}
		windows = append(windows, [2]any{s, wire.Sum(buf[:k])})
	}
	entry["windows"] = windows
	return entry, nil
}

func read(path string) {
	ex, err := safetensors.OpenForExtraction(path)
	if err != nil {
		wire.Reject(err.Error())
	}
	defer ex.Close()
	all, err := ex.ExtractAll()
	if err != nil {
		wire.Reject(err.Error())
	}
	tensors := map[string]any{}
	for _, td := range all {
		entry, err := digest(td)
		if err != nil {
			wire.Reject(err.Error())
		}
		tensors[td.Name] = entry
	}
	wire.Accept(nil, tensors)
}

type request struct {
	Metadata json.RawMessage `json:"metadata"`
	Tensors  map[string]struct {
		Dtype string        `json:"dtype"`
		Shape []json.Number `json:"shape"`
		Hex   string        `json:"hex"`
	} `json:"tensors"`
}

func write(out string) {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		wire.Refuse("cannot decode the request: " + err.Error())
	}
	// even {}: the file it writes has no __metadata__ at all
	if len(req.Metadata) > 0 && string(req.Metadata) != "null" {
		wire.Refuse("BuildPackedSafetensorsReader writes tensors only: it has no metadata")
	}
	names := make([]string, 0, len(req.Tensors))
	for name := range req.Tensors {
		names = append(names, name)
	}
	sort.Strings(names)
	tds := make([]*safetensors.TensorData, 0, len(names))
	for _, name := range names {
		t := req.Tensors[name]
		shape := make([]int32, len(t.Shape))
		for i, d := range t.Shape {
			v, err := strconv.ParseInt(d.String(), 10, 32)
			if err != nil || v < 0 {
				wire.Refuse(fmt.Sprintf("tensor %q: dimension %s does not fit the int32 shape NewTensorDataFromBytes takes", name, d))
			}
			shape[i] = int32(v)
		}
		raw, err := hex.DecodeString(t.Hex)
		if err != nil {
			wire.Refuse("cannot decode the request: " + err.Error())
		}
		tds = append(tds, safetensors.NewTensorDataFromBytes(name, t.Dtype, shape, raw))
	}
	var file bytes.Buffer
	if _, err := io.Copy(&file, safetensors.BuildPackedSafetensorsReader(tds)); err != nil {
		wire.Fail(err)
	}
	if err := os.WriteFile(out, file.Bytes(), 0o644); err != nil {
		wire.Fail(err)
	}
	wire.Answer(map[string]any{"result": "written"}, 0)
}

func main() {
	wire.Command{
		Program: "go_ollama_imagegen",
		Name:    "github.com/ollama/ollama/x/imagegen/safetensors",
		Version: version,
		Capabilities: map[string]any{
			"metadata":      false,
			"write":         true,
			"max_dimension": math.MaxInt32,
			"max_number":    math.MaxInt64,
		},
		Read:  read,
		Write: write,
	}.Run()
}
