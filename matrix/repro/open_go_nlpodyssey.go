// github.com/nlpodyssey/safetensors: Deserialize and ReadMetadata on a file.
//
//	go mod init repro && go get github.com/nlpodyssey/safetensors@v0.0.0-20250209183917-bfb01cc25f7c
//	go run open_go_nlpodyssey.go FILE
//
// Prints the CPU time and heap each call takes and the tensors it lists,
// then "accepted"; an error it returns is printed and exits 1, a panic is
// left uncaught.
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/nlpodyssey/safetensors"
)

func cpu() float64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Sec+u.Stime.Sec) + float64(u.Utime.Usec+u.Stime.Usec)/1e6
}

func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc >> 20
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	start := cpu()
	st, err := safetensors.Deserialize(data)
	if err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	fmt.Printf("Deserialize: %d tensors, %.1f s CPU, heap %d MiB\n", len(st.Tensors()), cpu()-start, heap())
	start = cpu()
	_, meta, err := safetensors.ReadMetadata(data)
	if err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	fmt.Printf("ReadMetadata: %.1f s CPU; metadata %v\n", cpu()-start, meta.Metadata())
	for i, t := range st.Tensors() {
		if i == 20 {
			break
		}
		fmt.Printf("%s: %s %v, %d bytes\n", t.Name, t.TensorView.DType(), t.TensorView.Shape(), len(t.TensorView.Data()))
	}
	fmt.Println("accepted")
}
