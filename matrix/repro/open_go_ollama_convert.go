// github.com/ollama/ollama/convert: ConvertModel, what `ollama create` runs on
// a safetensors model folder, on a folder holding FILE as model.safetensors
// beside a Qwen2 config.json and an empty tokenizer.json.
//
//	go mod init repro && go get github.com/ollama/ollama@v0.17.4
//	go run open_go_ollama_convert.go FILE
//
// Prints the GGUF's size and its tensors as ollama's fs/ggml.Decode reads
// them back, then "accepted"; an error ConvertModel returns is printed and
// exits 1, a panic is left uncaught.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/convert"
	"github.com/ollama/ollama/fs/ggml"
)

func main() {
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "model-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"architectures": ["Qwen2ForCausalLM"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644)
	if err := os.Symlink(file, filepath.Join(dir, "model.safetensors")); err != nil {
		panic(err)
	}
	out, err := os.Create(filepath.Join(dir, "model.gguf"))
	if err != nil {
		panic(err)
	}
	defer out.Close()
	if err := convert.ConvertModel(os.DirFS(dir), out); err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	info, _ := out.Stat()
	fmt.Printf("ConvertModel wrote %d bytes of GGUF\n", info.Size())
	out.Seek(0, 0)
	g, err := ggml.Decode(out, 0)
	if err != nil {
		fmt.Println("fs/ggml.Decode refuses the GGUF:", err)
	} else {
		for i, t := range g.Tensors().Items() {
			if i == 20 {
				break
			}
			fmt.Printf("%s: %s %v\n", t.Name, t.Type(), t.Shape)
		}
	}
	fmt.Println("accepted")
}
