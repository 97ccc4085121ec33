// github.com/ollama/ollama/x/imagegen/safetensors: OpenForExtraction on a
// file, then every tensor's Reader copied to its end, as `ollama create`
// imports a model (x/create/create.go).
//
//	go mod init repro && go get github.com/ollama/ollama@v0.17.4
//	go run open_go_ollama_imagegen.go FILE
//
// Prints the heap after opening and each tensor with the bytes its reader
// gave, then "accepted"; an error it returns is printed and exits 1, a panic
// is left uncaught.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/ollama/ollama/x/imagegen/safetensors"
)

func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc >> 20
}

func main() {
	ex, err := safetensors.OpenForExtraction(os.Args[1])
	if err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	defer ex.Close()
	fmt.Printf("OpenForExtraction: %d tensors, heap %d MiB\n", ex.TensorCount(), heap())
	all, err := ex.ExtractAll()
	if err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	for i, td := range all {
		n, err := io.Copy(io.Discard, td.Reader())
		if err != nil {
			fmt.Println("rejected:", err)
			os.Exit(1)
		}
		if i < 20 {
			fmt.Printf("%s: %s %v, claims %d bytes, read %d\n", td.Name, td.Dtype, td.Shape, td.Size, n)
		}
	}
	fmt.Println("accepted")
}
