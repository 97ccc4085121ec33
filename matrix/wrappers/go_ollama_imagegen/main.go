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

func windowStarts(n int64) []int64 {
	starts := []int64{0, max(0, n/2-window/2), max(0, n-window)}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	var out []int64
	for i, s := range starts {
		if i == 0 || s != starts[i-1] {
			out = append(out, s)
		}
	}
	return out
}

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
	if n <= hashLimit {
		entry["sha256"] = hex.EncodeToString(h.Sum(nil))
		return entry, nil
	}
	at, ok := td.Reader().(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("the tensor reader has no ReadAt for windows")
	}
	var windows [][2]any
	buf := make([]byte, window)
	for _, s := range windowStarts(n) {
		k, err := at.ReadAt(buf[:min(window, n-s)], s)
		if err != nil && err != io.EOF {
			return nil, err
		}
		sum := sha256.Sum256(buf[:k])
		windows = append(windows, [2]any{s, hex.EncodeToString(sum[:])})
	}
	entry["windows"] = windows
	return entry, nil
}

func read(path string) {
	ex, err := safetensors.OpenForExtraction(path)
	if err != nil {
		answer(map[string]any{"result": "rejected", "reason": err.Error()}, 1)
	}
	defer ex.Close()
	all, err := ex.ExtractAll()
	if err != nil {
		answer(map[string]any{"result": "rejected", "reason": err.Error()}, 1)
	}
	tensors := map[string]any{}
	for _, td := range all {
		entry, err := digest(td)
		if err != nil {
			answer(map[string]any{"result": "rejected", "reason": err.Error()}, 1)
		}
		tensors[td.Name] = entry
	}
	answer(map[string]any{"result": "accepted", "metadata": nil, "tensors": tensors}, 0)
}

type request struct {
	Metadata json.RawMessage `json:"metadata"`
	Tensors  map[string]struct {
		Dtype string        `json:"dtype"`
		Shape []json.Number `json:"shape"`
		Hex   string        `json:"hex"`
	} `json:"tensors"`
}

func refuse(reason string) {
	answer(map[string]any{"result": "refused", "reason": reason}, 1)
}

func write(out string) {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		refuse("cannot decode the request: " + err.Error())
	}
	// even {}: the file it writes has no __metadata__ at all
	if len(req.Metadata) > 0 && string(req.Metadata) != "null" {
		refuse("BuildPackedSafetensorsReader writes tensors only: it has no metadata")
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
				refuse(fmt.Sprintf("tensor %q: dimension %s does not fit the int32 shape NewTensorDataFromBytes takes", name, d))
			}
			shape[i] = int32(v)
		}
		raw, err := hex.DecodeString(t.Hex)
		if err != nil {
			refuse("cannot decode the request: " + err.Error())
		}
		tds = append(tds, safetensors.NewTensorDataFromBytes(name, t.Dtype, shape, raw))
	}
	var file bytes.Buffer
	if _, err := io.Copy(&file, safetensors.BuildPackedSafetensorsReader(tds)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	if err := os.WriteFile(out, file.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	answer(map[string]any{"result": "written"}, 0)
}

func main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == "--describe":
		answer(map[string]any{
			"protocol": 2,
			"name":     "github.com/ollama/ollama/x/imagegen/safetensors",
			"version":  version,
			"capabilities": map[string]any{
				"metadata":      false,
				"write":         true,
				"max_dimension": math.MaxInt32,
				"max_number":    math.MaxInt64,
			},
		}, 0)
	case len(os.Args) == 3 && os.Args[1] == "--write":
		write(os.Args[2])
	case len(os.Args) == 2:
		read(os.Args[1])
	default:
		fmt.Fprintln(os.Stderr, "usage: go_ollama_imagegen FILE | --write OUT | --describe")
		os.Exit(2)
	}
}
