// github.com/anchore/syft: the safetensors cataloger over a directory source
// holding FILE as model/model.safetensors, as syft scans a folder.
//
//	go mod init repro && go get github.com/anchore/syft@v1.57.1
//	go run open_go_syft.go FILE
//
// Prints what the SBOM package records (tensor count, parameters, dominant
// dtype, metadata, metadata hash), then "accepted"; an error the cataloger
// returns is printed and exits 1, a panic is left uncaught.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/anchore/syft/syft/pkg"
	"github.com/anchore/syft/syft/pkg/cataloger/ai"
	"github.com/anchore/syft/syft/source"
	"github.com/anchore/syft/syft/source/directorysource"
)

func main() {
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		panic(err)
	}
	root, err := os.MkdirTemp("", "scan-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	os.Mkdir(filepath.Join(root, "model"), 0o755)
	if err := os.Link(file, filepath.Join(root, "model", "model.safetensors")); err != nil {
		panic(err)
	}
	src, err := directorysource.NewFromPath(root)
	if err != nil {
		panic(err)
	}
	resolver, err := src.FileResolver(source.SquashedScope)
	if err != nil {
		panic(err)
	}
	pkgs, _, err := ai.NewSafeTensorsCataloger().Catalog(context.Background(), resolver)
	if err != nil {
		fmt.Println("rejected:", err)
		os.Exit(1)
	}
	for _, p := range pkgs {
		if md, ok := p.Metadata.(pkg.SafeTensorsModelInfo); ok {
			fmt.Printf("%s: %d tensors, %d parameters, %s, metadata %v, hash %s\n",
				p.Name, md.TensorCount, md.Parameters, md.Quantization, md.UserMetadata, md.MetadataHash)
		}
	}
	fmt.Println("accepted")
}
