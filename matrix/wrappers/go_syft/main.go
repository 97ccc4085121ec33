// A command-protocol-2 wrapper around the safetensors cataloger of
// github.com/anchore/syft (syft/pkg/cataloger/ai), called as a program that
// embeds syft calls it: a directory source (directorysource.NewFromPath), its
// squashed file resolver, and ai.NewSafeTensorsCataloger().Catalog. The file
// is hard-linked (copied when it cannot be) as model/model.safetensors in a
// temporary directory, so the cataloger's **/*.safetensors glob finds it and
// its merge processor names the package after the folder (processor.go:95-98
// drops a package without a name).
//
// The cataloger reads the header only (parse_safetensors.go:41-85) and keeps
// from it the tensor count, the __metadata__ map and MetadataHash, an xxhash
// of the sorted (name, dtype, shape) entries and the metadata
// (parse_safetensors.go:153-174); it exposes no tensor list. So the tensors
// are listed here by decoding the header as it does (encoding/json into
// map[string]json.RawMessage, each entry into dtype/[]int64 shape, entries
// that do not decode skipped, :63-82), and the listing is answered only when
// its hash and count equal the MetadataHash and TensorCount syft reported:
// then it is exactly what syft parsed. Otherwise the answer lists an
// undescribed entry, which the suite reads as invalid output.
//
// A parse error, which Catalog returns as an unknown, is a rejection; a panic
// (exit 2) is a crash.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/cespare/xxhash/v2"

	"github.com/anchore/syft/syft/pkg"
	"github.com/anchore/syft/syft/pkg/cataloger/ai"
	"github.com/anchore/syft/syft/source"
	"github.com/anchore/syft/syft/source/directorysource"

	"matrix/wire"
)

// the cataloger's cap on the header (internal/safetensors.go:7)
const maxHeader = 8 * 1024 * 1024

// place links (or copies) the file into a fresh folder as model/model.safetensors.
func place(path string) (string, func()) {
	root, err := os.MkdirTemp("", "syft-st-")
	if err != nil {
		wire.Fail(err)
	}
	cleanup := func() { os.RemoveAll(root) }
	dir := filepath.Join(root, "model")
	if err := os.Mkdir(dir, 0o755); err != nil {
		cleanup()
		wire.Fail(err)
	}
	target := filepath.Join(dir, "model.safetensors")
	if os.Link(path, target) != nil {
		if err := copyFile(path, target); err != nil {
			cleanup()
			wire.Fail(err)
		}
	}
	return root, cleanup
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

type entry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

type logical struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// listing decodes the header the way readSafeTensorsHeader does and hashes it
// the way metadataHash does; ok is false when the header cannot be listed.
func listing(path string, metadata map[string]string) (tensors map[string]any, hash string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	var prefix [8]byte
	if _, err := io.ReadFull(f, prefix[:]); err != nil {
		return nil, "", false
	}
	n := binary.LittleEndian.Uint64(prefix[:])
	if n == 0 || n > maxHeader {
		return nil, "", false
	}
	body, err := io.ReadAll(io.LimitReader(f, int64(n)))
	if err != nil || uint64(len(body)) != n {
		return nil, "", false
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &raw) != nil {
		return nil, "", false
	}
	tensors = map[string]any{}
	entries := []logical{}
	for name, val := range raw {
		if name == "__metadata__" {
			continue
		}
		var e entry
		if json.Unmarshal(val, &e) != nil {
			continue
		}
		tensors[name] = map[string]any{"dtype": e.DType, "shape": e.Shape}
		entries = append(entries, logical{name, e.DType, e.Shape})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	b, err := json.Marshal(struct {
		Tensors  []logical         `json:"tensors"`
		Metadata map[string]string `json:"metadata,omitempty"`
	}{entries, metadata})
	if err != nil {
		return nil, "", false
	}
	return tensors, fmt.Sprintf("%016x", xxhash.Sum64(b)), true
}

func read(path string) {
	root, cleanup := place(path)
	defer cleanup()
	src, err := directorysource.NewFromPath(root)
	if err != nil {
		wire.Fail(err)
	}
	resolver, err := src.FileResolver(source.SquashedScope)
	if err != nil {
		wire.Fail(err)
	}
	pkgs, _, err := ai.NewSafeTensorsCataloger().Catalog(context.Background(), resolver)
	var found []pkg.SafeTensorsModelInfo
	for _, p := range pkgs {
		if md, ok := p.Metadata.(pkg.SafeTensorsModelInfo); ok {
			found = append(found, md)
		}
	}
	if err != nil || len(found) == 0 {
		reason := "no safetensors package in the catalog"
		if err != nil {
			reason = err.Error()
		}
		cleanup()
		wire.Reject(reason)
	}
	if len(found) != 1 {
		cleanup()
		wire.Fail(errors.New("more than one safetensors package for one file"))
	}
	md := found[0]
	var metadata map[string]string
	if len(md.UserMetadata) > 0 {
		metadata = map[string]string{}
		for _, kv := range md.UserMetadata {
			metadata[kv.Key] = kv.Value
		}
	}
	tensors, hash, ok := listing(path, metadata)
	cleanup()
	if !ok || hash != md.MetadataHash || uint64(len(tensors)) != md.TensorCount {
		wire.Unlisted("syft accepted a header this listing does not reproduce")
	}
	var meta any
	if metadata != nil {
		meta = metadata
	}
	wire.Accept(meta, tensors)
}

func main() {
	wire.Command{
		Program: "go_syft",
		Name:    "github.com/anchore/syft/syft/pkg/cataloger/ai (safetensors cataloger)",
		Version: version,
		Capabilities: map[string]any{
			"header_only":       true,
			"metadata_presence": false,
			"max_header_size":   maxHeader,
		},
		Read: read,
	}.Run()
}
