// A command-protocol-2 wrapper around the safetensors reader of ollama's
// convert package (github.com/ollama/ollama/convert), which `ollama create`
// runs on a safetensors model folder. Its reader, parseSafetensors
// (reader_safetensors.go:26-81), is unexported; users reach it through
// convert.ConvertModel (convert.go:372), which this program calls as ollama's
// server does: on an fs.FS of a model folder, writing a GGUF file. The folder
// is a fresh temporary directory holding a one-line config.json naming
// Qwen2ForCausalLM (whose converter passes every tensor through unchanged,
// convert_qwen2.go:51-63), an empty tokenizer.json (as convert_test.go's own
// fixture has) and a link to the file named model.safetensors.
//
// After ConvertModel the server decodes the GGUF it wrote with
// fs/ggml.Decode(file, -1) and returns that error too (server/create.go:
// 417-449, convertFromSafetensors), so this program does the same: an error
// from either call is ollama create refusing the file. (A U8 tensor is copied
// raw, reader_safetensors.go:151-155, under an F32 or F16 kind, reader.go:
// 57-64, and a trailing empty tensor is placed past the data WriteGGUF
// writes, so Decode refuses those GGUFs: "offset+size exceeds file size".)
//
// ConvertModel converts every tensor (F32, F16 or BF16 by name and rank,
// reader.go:40-65) and reads its bytes to do so (WriteTo,
// reader_safetensors.go:126-210), so what it loaded is not the file's bytes:
// the row is header-only. The tensors are listed here by decoding the header
// as parseSafetensors does (json.NewDecoder(...).Decode into a map of dtype,
// []uint64 shape and []int64 offsets; entries without a dtype skipped), and
// the listing is answered only when the decoded GGUF has the same tensors
// under the names the converter's replacer gives, with the same shapes
// reversed (writeFile, convert.go:453-458); otherwise the answer lists an
// undescribed entry, which the suite reads as invalid output, with the
// reason. __metadata__ is never read: metadata is null.
//
// An error ConvertModel or Decode returns is a rejection; a panic (exit 2) is
// a crash.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ollama/ollama/convert"
	"github.com/ollama/ollama/fs/ggml"

	"matrix/wire"
)

// the Qwen2 converter's renames (convert_qwen2.go:65-81)
var replacer = strings.NewReplacer(
	"lm_head", "output",
	"model.embed_tokens", "token_embd",
	"model.layers", "blk",
	"input_layernorm", "attn_norm",
	"self_attn.k_proj", "attn_k",
	"self_attn.v_proj", "attn_v",
	"self_attn.q_proj", "attn_q",
	"self_attn.o_proj", "attn_output",
	"mlp.down_proj", "ffn_down",
	"mlp.gate_proj", "ffn_gate",
	"mlp.up_proj", "ffn_up",
	"post_attention_layernorm", "ffn_norm",
	"model.norm", "output_norm",
)

const config = `{"architectures": ["Qwen2ForCausalLM"]}`

// folder makes the model folder ollama create would be pointed at.
func folder(path string) string {
	dir, err := os.MkdirTemp("", "ollama-convert-")
	if err != nil {
		wire.Fail(err)
	}
	files := map[string]string{"config.json": config, "tokenizer.json": "{}"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			os.RemoveAll(dir)
			wire.Fail(err)
		}
	}
	// os.DirFS opens through the link, as it would a model folder's link
	// into a download cache
	file, err := filepath.Abs(path)
	if err == nil {
		err = os.Symlink(file, filepath.Join(dir, "model.safetensors"))
	}
	if err != nil {
		os.RemoveAll(dir)
		wire.Fail(err)
	}
	return dir
}

type entry struct {
	Type    string   `json:"dtype"`
	Shape   []uint64 `json:"shape"`
	Offsets []int64  `json:"data_offsets"`
}

// listing decodes the header the way parseSafetensors does; ok is false when
// it cannot (the wrapper never allocates by a claimed size: N is checked
// against the file's size first).
func listing(path string) (map[string]entry, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	var n int64
	if binary.Read(f, binary.LittleEndian, &n) != nil || n < 0 || n > info.Size()-8 {
		return nil, false
	}
	var b bytes.Buffer
	if _, err := io.CopyN(&b, f, n); err != nil {
		return nil, false
	}
	var headers map[string]entry
	if json.NewDecoder(&b).Decode(&headers) != nil {
		return nil, false
	}
	out := map[string]entry{}
	for name, e := range headers {
		if e.Type != "" {
			out[name] = e
		}
	}
	return out, true
}

// mismatch says how the decoded GGUF differs from the listed tensors renamed
// by the replacer with their shapes reversed ("" when it holds exactly those).
func mismatch(g *ggml.GGML, listed map[string]entry) string {
	written := map[string][]uint64{}
	for _, t := range g.Tensors().Items() {
		written[t.Name] = t.Shape
	}
	if len(written) != len(listed) {
		return fmt.Sprintf("the GGUF holds %d tensors, the header lists %d", len(written), len(listed))
	}
	for name, e := range listed {
		shape, ok := written[replacer.Replace(name)]
		if !ok {
			return fmt.Sprintf("the GGUF has no tensor %q", replacer.Replace(name))
		}
		reversed := slices.Clone(e.Shape)
		slices.Reverse(reversed)
		if !slices.Equal(shape, reversed) {
			return fmt.Sprintf("tensor %q: GGUF shape %v, header shape %v", name, shape, e.Shape)
		}
	}
	return ""
}

// create runs what convertFromSafetensors runs: ConvertModel into a GGUF,
// then ggml.Decode of that GGUF.
func create(dir string) (*ggml.GGML, error) {
	out, err := os.CreateTemp(dir, "fp16")
	if err != nil {
		wire.Fail(err)
	}
	defer out.Close()
	if err := convert.ConvertModel(os.DirFS(dir), out); err != nil {
		return nil, err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		wire.Fail(err)
	}
	return ggml.Decode(out, -1)
}

func read(path string) {
	dir := folder(path)
	defer os.RemoveAll(dir)
	g, err := create(dir)
	if err != nil {
		os.RemoveAll(dir)
		wire.Reject(err.Error())
	}
	listed, ok := listing(path)
	differs := "the header cannot be listed"
	if ok {
		differs = mismatch(g, listed)
	}
	os.RemoveAll(dir)
	if differs != "" {
		wire.Unlisted("ollama create succeeded: " + differs)
	}
	tensors := map[string]any{}
	for name, e := range listed {
		tensors[name] = map[string]any{"dtype": e.Type, "shape": e.Shape}
	}
	wire.Accept(nil, tensors)
}

func main() {
	wire.Command{
		Program: "go_ollama_convert",
		Name:    "github.com/ollama/ollama/convert (ConvertModel, then fs/ggml.Decode)",
		Version: version,
		Capabilities: map[string]any{
			"header_only": true,
			"metadata":    false,
			// the dtypes WriteTo converts (reader_safetensors.go:151-185)
			"read_dtypes": []string{"F32", "F16", "BF16", "U8"},
			// data_offsets decode as int64 (reader_safetensors.go:23)
			"max_number": int64(9223372036854775807),
		},
		Read: read,
	}.Run()
}
