// github.com/ollama/ollama/convert writes a GGUF whose tensor table and data
// disagree for a U8 tensor and for an empty tensor placed last.
//
//	go mod init repro && go get github.com/ollama/ollama@v0.17.4
//	go run ollama_convert_u8.go
//
// Builds three valid safetensors files, converts each with ConvertModel on a
// folder of a Qwen2 config.json and an empty tokenizer.json (as
// open_go_ollama_convert.go does, and `ollama create` on such a folder), and
// decodes the GGUF with fs/ggml.Decode, as the server does next. A U8 tensor
// is copied byte for byte (WriteTo), but its GGUF type comes from its rank
// (F32 for rank 1, F16 above), so the table reserves 4 (or 2) bytes per
// element: last in the file, Decode refuses the GGUF; before another tensor,
// the GGUF loads and the tensor's F32 values are its bytes followed by the
// zeros of the reserved space. An empty tensor that sorts after the last
// written one is given an offset past the end of the written data.
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/convert"
	"github.com/ollama/ollama/fs/ggml"
)

type entry struct {
	Dtype   string   `json:"dtype"`
	Shape   []uint64 `json:"shape"`
	Offsets []uint64 `json:"data_offsets"`
}

// write makes a model folder whose model.safetensors holds the entries and data.
func write(entries map[string]entry, data []byte) string {
	dir, err := os.MkdirTemp("", "model-")
	if err != nil {
		panic(err)
	}
	header, err := json.Marshal(entries)
	if err != nil {
		panic(err)
	}
	for len(header)%8 != 0 {
		header = append(header, ' ')
	}
	file := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	file = append(append(file, header...), data...)
	files := map[string][]byte{
		"config.json":       []byte(`{"architectures": ["Qwen2ForCausalLM"]}`),
		"tokenizer.json":    []byte("{}"),
		"model.safetensors": file,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			panic(err)
		}
	}
	return dir
}

func convertAndDecode(what string, entries map[string]entry, data []byte) {
	dir := write(entries, data)
	defer os.RemoveAll(dir)
	out, err := os.Create(filepath.Join(dir, "model.gguf"))
	if err != nil {
		panic(err)
	}
	defer out.Close()
	if err := convert.ConvertModel(os.DirFS(dir), out); err != nil {
		fmt.Printf("%s: ConvertModel refuses: %v\n", what, err)
		return
	}
	out.Seek(0, 0)
	g, err := ggml.Decode(out, -1)
	if err != nil {
		fmt.Printf("%s: ConvertModel succeeds, Decode refuses its GGUF: %v\n", what, err)
		return
	}
	for _, t := range g.Tensors().Items() {
		raw := make([]byte, t.Size())
		if _, err := out.ReadAt(raw, int64(g.Tensors().Offset+t.Offset)); err != nil {
			fmt.Printf("%s: %s %s%v: %v\n", what, t.Name, t.Type(), t.Shape, err)
			continue
		}
		values := []float32{}
		for i := 0; t.Type() == "F32" && i+4 <= len(raw); i += 4 {
			values = append(values, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
		}
		fmt.Printf("%s: loads; %s is %s%v, bytes % x, as F32 %v\n", what, t.Name, t.Type(), t.Shape, raw, values)
	}
}

func main() {
	convertAndDecode("U8[5] alone",
		map[string]entry{"a": {"U8", []uint64{5}, []uint64{0, 5}}},
		[]byte{1, 2, 3, 4, 5})
	convertAndDecode("U8[4] before F32[1]",
		map[string]entry{
			"a": {"U8", []uint64{4}, []uint64{0, 4}},
			"b": {"F32", []uint64{1}, []uint64{4, 8}},
		},
		[]byte{1, 2, 3, 4, 0, 0, 0x80, 0x3f})
	convertAndDecode("F32[1], then an empty F32[0]",
		map[string]entry{
			"a": {"F32", []uint64{1}, []uint64{0, 4}},
			"b": {"F32", []uint64{0}, []uint64{4, 4}},
		},
		[]byte{0, 0, 0x80, 0x3f})
}
