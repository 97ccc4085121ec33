// A small, strict safetensors reader in Go that speaks the conformance suite's
// command protocol 2 (docs/reference/command-protocol.md), with the standard
// library only:
//
//	go build -o reader-go reader.go
//	reader-go FILE          exit 0 + {"result": "accepted", ...}
//	                        or exit 1 + {"result": "rejected", "rule", "reason"}
//	reader-go --describe    {"protocol": 2, "name", "version", "capabilities"}
//
//	pytest conformance --impl="cmd:./reader-go"
//
// It is strict: it rejects every file that is not valid, tolerated ones
// included (leading whitespace, padding other than 0x20, unknown entry
// members, null metadata), naming the MAY rule only when the file breaks no
// MUST rule. The header goes through a JSON parser written for the format,
// not encoding/json, which keeps the last of two duplicate keys, matches
// member names case-insensitively, replaces lone surrogates with U+FFFD and
// reads 4.0 as an integer. Every other failure (an I/O error, a bug) prints no
// answer and exits 70, which the suite counts as a crash.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/bits"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

const (
	maxHeader = 100_000_000
	maxDepth  = 127
	// Tensors above 256 MiB are answered with the sha256 of three 1 MiB
	// windows (start, middle, end), as the protocol allows.
	hashLimit = 256 << 20
	window    = 1 << 20
)

// Bits per element of the 22 dtypes.
var dtypeBits = map[string]uint64{
	"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
	"F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32,
	"F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}

// rejection is a judgement on the file: a rule id and what differed.
type rejection struct {
	rule   string
	reason string
}

func reject(rule, format string, args ...any) {
	panic(rejection{rule, fmt.Sprintf(format, args...)})
}

// --- JSON ---------------------------------------------------------------------

type kind int

const (
	kObject kind = iota
	kArray
	kString
	kNumber
	kLiteral
)

type member struct {
	name  string
	value *value
}

type value struct {
	kind    kind
	text    string // a string's decoded text, a number's token, a literal
	members []member
	items   []*value
}

type parser struct {
	text []byte
	pos  int
}

func (p *parser) fail(rule, what string) {
	reject(rule, "%s at absolute offset %d", what, 8+p.pos)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) expect(b byte) {
	if p.pos >= len(p.text) || p.text[p.pos] != b {
		p.fail("JSON-SYNTAX", fmt.Sprintf("expected %q", b))
	}
	p.pos++
}

func (p *parser) parseValue(depth int) *value {
	if p.pos >= len(p.text) {
		p.fail("JSON-SYNTAX", "expected a value, found the end of the header")
	}
	switch c := p.text[p.pos]; {
	case c == '{':
		return p.parseObject(depth + 1)
	case c == '[':
		return p.parseArray(depth + 1)
	case c == '"':
		return &value{kind: kString, text: p.parseString()}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.parseNumber()
	default:
		for _, word := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.text[p.pos:min(p.pos+5, len(p.text))]), word) {
				p.pos += len(word)
				return &value{kind: kLiteral, text: word}
			}
		}
		p.fail("JSON-SYNTAX", fmt.Sprintf("unexpected byte 0x%02X", c))
		return nil
	}
}

func (p *parser) parseObject(depth int) *value {
	if depth > maxDepth {
		p.fail("JSON-DEPTH", fmt.Sprintf("nesting deeper than %d levels", maxDepth))
	}
	p.pos++ // '{'
	v := &value{kind: kObject}
	seen := map[string]bool{}
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == '}' {
		p.pos++
		return v
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != '"' {
			p.fail("JSON-SYNTAX", "expected a member name")
		}
		at := p.pos
		name := p.parseString()
		if seen[name] {
			p.pos = at
			p.fail("KEY-UNIQUE", fmt.Sprintf("member name %s appears twice", quote(name)))
		}
		seen[name] = true
		p.skipSpace()
		p.expect(':')
		p.skipSpace()
		v.members = append(v.members, member{name, p.parseValue(depth)})
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == ',' {
			p.pos++
			continue
		}
		p.expect('}')
		return v
	}
}

func (p *parser) parseArray(depth int) *value {
	if depth > maxDepth {
		p.fail("JSON-DEPTH", fmt.Sprintf("nesting deeper than %d levels", maxDepth))
	}
	p.pos++ // '['
	v := &value{kind: kArray}
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == ']' {
		p.pos++
		return v
	}
	for {
		p.skipSpace()
		v.items = append(v.items, p.parseValue(depth))
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == ',' {
			p.pos++
			continue
		}
		p.expect(']')
		return v
	}
}

func (p *parser) hex4() rune {
	if p.pos+4 > len(p.text) {
		p.fail("JSON-SYNTAX", "truncated \\u escape")
	}
	var r rune
	for _, c := range p.text[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			p.fail("JSON-SYNTAX", "\\u escape without four hex digits")
		}
	}
	p.pos += 4
	return r
}

// parseString decodes a string; the header is already known to be UTF-8.
func (p *parser) parseString() string {
	p.pos++ // '"'
	var out strings.Builder
	for {
		if p.pos >= len(p.text) {
			p.fail("JSON-SYNTAX", "unterminated string")
		}
		c := p.text[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out.String()
		case c < 0x20:
			p.fail("JSON-SYNTAX", fmt.Sprintf("raw control character 0x%02X in a string", c))
		case c != '\\':
			out.WriteByte(c)
			p.pos++
			continue
		}
		at := p.pos
		p.pos++
		if p.pos >= len(p.text) {
			p.fail("JSON-SYNTAX", "unterminated escape")
		}
		e := p.text[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := p.hex4()
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				p.pos = at
				p.fail("JSON-SURROGATE", "lone low surrogate escape")
			case r >= 0xD800 && r <= 0xDBFF:
				if p.pos+2 > len(p.text) || p.text[p.pos] != '\\' || p.text[p.pos+1] != 'u' {
					p.pos = at
					p.fail("JSON-SURROGATE", "high surrogate escape not followed by a low one")
				}
				p.pos += 2
				low := p.hex4()
				if low < 0xDC00 || low > 0xDFFF {
					p.pos = at
					p.fail("JSON-SURROGATE", "high surrogate escape not followed by a low one")
				}
				r = utf16.DecodeRune(r, low)
			}
			out.WriteRune(r)
		default:
			p.pos = at
			p.fail("JSON-SYNTAX", fmt.Sprintf("bad escape \\%c", e))
		}
	}
}

func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// parseNumber checks the RFC 8259 grammar and keeps the token.
func (p *parser) parseNumber() *value {
	start := p.pos
	if p.text[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.text) && p.text[p.pos] == '0' {
		p.pos++
	} else if p.digits() == 0 {
		p.fail("JSON-SYNTAX", "a number without digits")
	}
	if p.pos < len(p.text) && p.text[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			p.fail("JSON-SYNTAX", "a fraction without digits")
		}
	}
	if p.pos < len(p.text) && (p.text[p.pos] == 'e' || p.text[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.text) && (p.text[p.pos] == '+' || p.text[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			p.fail("JSON-SYNTAX", "an exponent without digits")
		}
	}
	return &value{kind: kNumber, text: string(p.text[start:p.pos])}
}

// --- header structure -----------------------------------------------------------

type tensor struct {
	name       string
	dtype      string
	shape      []uint64
	begin, end uint64
}

// u64 reads a shape dimension or an offset: a plain integer token up to
// 2^64-1 (what names it, built only for a rejection).
func u64(v *value, what func() string) uint64 {
	if strings.ContainsAny(v.text, "-.eE") {
		reject("NUM-INTEGER", "%s is %s, not a plain non-negative integer", what(), v.text)
	}
	n, err := strconv.ParseUint(v.text, 10, 64)
	if err != nil {
		reject("NUM-RANGE", "%s (%d digits) exceeds 2^64-1", what(), len(v.text))
	}
	return n
}

func checkMetadata(v *value) (map[string]string, []string) {
	if v.kind != kObject {
		reject("META-OBJECT", "__metadata__ is not an object")
	}
	meta := map[string]string{}
	keys := []string{}
	for _, m := range v.members {
		if m.value.kind != kString {
			reject("META-STRING", "metadata value %s is not a string", quote(m.name))
		}
		meta[m.name] = m.value.text
		keys = append(keys, m.name)
	}
	return meta, keys
}

func checkEntry(name string, v *value, tolerate func(string, string)) tensor {
	if v.kind != kObject {
		reject("ENTRY-OBJECT", "member %s is not a tensor entry object", quote(name))
	}
	fields := map[string]*value{}
	for _, m := range v.members {
		switch m.name {
		case "dtype", "shape", "data_offsets":
			fields[m.name] = m.value
		default:
			tolerate("ENTRY-UNKNOWN", fmt.Sprintf("tensor %s has the unknown member %s", quote(name), quote(m.name)))
		}
	}
	for _, field := range []string{"dtype", "shape", "data_offsets"} {
		if fields[field] == nil {
			reject("ENTRY-FIELDS", "tensor %s has no %s", quote(name), field)
		}
	}
	t := tensor{name: name}
	dtype := fields["dtype"]
	if _, known := dtypeBits[dtype.text]; dtype.kind != kString || !known {
		reject("DTYPE-NAME", "the dtype of %s is not one of the 22 names", quote(name))
	}
	t.dtype = dtype.text
	shape := fields["shape"]
	if shape.kind != kArray {
		reject("SHAPE-ARRAY", "the shape of %s is not an array", quote(name))
	}
	for _, dim := range shape.items {
		if dim.kind != kNumber {
			reject("SHAPE-ARRAY", "the shape of %s holds a non-number", quote(name))
		}
	}
	offsets := fields["data_offsets"]
	if offsets.kind != kArray || len(offsets.items) != 2 || offsets.items[0].kind != kNumber || offsets.items[1].kind != kNumber {
		reject("OFFSETS-PAIR", "data_offsets of %s is not an array of two integers", quote(name))
	}
	for i, dim := range shape.items {
		t.shape = append(t.shape, u64(dim, func() string { return fmt.Sprintf("dimension %d of %s", i, quote(name)) }))
	}
	t.begin = u64(offsets.items[0], func() string { return "begin of " + quote(name) })
	t.end = u64(offsets.items[1], func() string { return "end of " + quote(name) })
	// The bit count, exactly: zero if any dimension is zero, else a product
	// that must stay within 2^64-1.
	count := dtypeBits[t.dtype]
	for _, dim := range t.shape {
		if dim == 0 {
			count = 0
			break
		}
	}
	if count != 0 {
		for _, dim := range t.shape {
			hi, lo := bits.Mul64(count, dim)
			if hi != 0 {
				reject("SIZE-OVERFLOW", "the bit count of %s exceeds 2^64-1", quote(name))
			}
			count = lo
		}
	}
	if count%8 != 0 {
		reject("SIZE-BITS", "%s is %d bits, not whole bytes", quote(name), count)
	}
	if t.begin > t.end {
		reject("OFFSETS-ORDER", "data_offsets [%d, %d] of %s run backwards", t.begin, t.end, quote(name))
	}
	if t.end-t.begin != count/8 {
		reject("SIZE-MATCH", "%s needs %d bytes, its offsets give %d", quote(name), count/8, t.end-t.begin)
	}
	return t
}

func checkLayout(tensors []tensor, length uint64) {
	for _, t := range tensors {
		if t.end > length {
			reject("LAYOUT-BOUNDS", "%s ends at %d, past the byte buffer (%d bytes)", quote(t.name), t.end, length)
		}
	}
	sorted := append([]tensor(nil), tensors...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].begin != sorted[j].begin {
			return sorted[i].begin < sorted[j].begin
		}
		return sorted[i].end < sorted[j].end
	})
	var cursor uint64
	for _, t := range sorted {
		if t.begin > cursor {
			reject("LAYOUT-HOLE", "buffer bytes %d..%d belong to no tensor", cursor, t.begin)
		}
		if t.begin < cursor {
			reject("LAYOUT-OVERLAP", "%s begins at %d, inside another tensor (which ends at %d)", quote(t.name), t.begin, cursor)
		}
		cursor = t.end
	}
	if cursor != length {
		reject("LAYOUT-TRAILING", "%d bytes follow the last tensor", length-cursor)
	}
}

// --- reading --------------------------------------------------------------------

type answer struct {
	meta     map[string]string
	metaKeys []string
	hasMeta  bool
	tensors  []tensor
	start    int64 // absolute offset of the byte buffer
}

func readFile(f *os.File) answer {
	info, err := f.Stat()
	if err != nil {
		panic(err)
	}
	size := uint64(info.Size())
	if size < 8 {
		reject("FILE-PREFIX", "the file is %d bytes, shorter than the 8-byte prefix", size)
	}
	var prefix [8]byte
	if _, err := f.ReadAt(prefix[:], 0); err != nil {
		panic(err)
	}
	n := binary.LittleEndian.Uint64(prefix[:])
	if n > maxHeader {
		reject("HEADER-LIMIT", "N = %d exceeds 100,000,000", n)
	}
	if 8+n > size {
		reject("HEADER-BOUNDS", "8 + N = %d exceeds the file length %d", 8+n, size)
	}
	text := make([]byte, n)
	if _, err := f.ReadAt(text, 8); err != nil {
		panic(err)
	}
	if !utf8.Valid(text) {
		reject("HEADER-UTF8", "the header is not well-formed UTF-8")
	}
	// A MAY rule the file breaks; reported only if it breaks no MUST rule.
	var tolerated *rejection
	tolerate := func(rule, reason string) {
		if tolerated == nil {
			tolerated = &rejection{rule, reason + " (tolerated; this reader is strict)"}
		}
	}
	p := &parser{text: text}
	p.skipSpace()
	if p.pos >= len(text) || text[p.pos] != '{' {
		p.fail("HEADER-OBJECT", "the header does not hold a JSON object")
	}
	if p.pos > 0 {
		tolerate("HEADER-LEADING-WS", "whitespace before the header object")
	}
	header := p.parseValue(0)
	for ; p.pos < len(text); p.pos++ {
		switch text[p.pos] {
		case ' ':
		case '\t', '\n', '\r':
			tolerate("HEADER-PADDING", fmt.Sprintf("padding other than 0x20 at absolute offset %d", 8+p.pos))
		default:
			p.fail("HEADER-TRAILING", fmt.Sprintf("byte 0x%02X after the header object", text[p.pos]))
		}
	}
	var a answer
	for _, m := range header.members {
		if m.name == "__metadata__" {
			if m.value.kind == kLiteral && m.value.text == "null" {
				tolerate("META-NULL", "__metadata__ is null")
				continue
			}
			a.meta, a.metaKeys = checkMetadata(m.value)
			a.hasMeta = true
			continue
		}
		a.tensors = append(a.tensors, checkEntry(m.name, m.value, tolerate))
	}
	checkLayout(a.tensors, size-8-n)
	if tolerated != nil {
		panic(*tolerated)
	}
	a.start = int64(8 + n)
	return a
}

// One buffer for every tensor: a header may list a million of them.
var hashBuffer = make([]byte, window)

func sha256At(f *os.File, start int64, length uint64) string {
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, start, int64(length)), hashBuffer); err != nil {
		panic(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digest(f *os.File, start int64, n uint64) string {
	if n <= hashLimit {
		return `"sha256":"` + sha256At(f, start, n) + `"`
	}
	middle := uint64(0)
	if n/2 > window/2 {
		middle = n/2 - window/2
	}
	starts := []uint64{0, middle, n - window}
	var parts []string
	for i, s := range starts {
		if i > 0 && s == starts[i-1] {
			continue
		}
		size := min(uint64(window), n-s)
		parts = append(parts, fmt.Sprintf(`[%d,"%s"]`, s, sha256At(f, start+int64(s), size)))
	}
	return `"windows":[` + strings.Join(parts, ",") + `]`
}

// --- output ---------------------------------------------------------------------

// quote writes a JSON string: the header was valid UTF-8, so only the quote,
// the backslash and control characters need escapes.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7F:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func accepted(f *os.File, a answer) string {
	var b strings.Builder
	b.WriteString(`{"result":"accepted","metadata":`)
	if !a.hasMeta {
		b.WriteString("null")
	} else {
		b.WriteByte('{')
		for i, k := range a.metaKeys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(k) + ":" + quote(a.meta[k]))
		}
		b.WriteByte('}')
	}
	b.WriteString(`,"tensors":{`)
	for i, t := range a.tensors {
		if i > 0 {
			b.WriteByte(',')
		}
		dims := make([]string, len(t.shape))
		for j, d := range t.shape {
			dims[j] = strconv.FormatUint(d, 10)
		}
		fmt.Fprintf(&b, `%s:{"dtype":"%s","shape":[%s],%s}`, quote(t.name), t.dtype,
			strings.Join(dims, ","), digest(f, a.start+int64(t.begin), t.end-t.begin))
	}
	b.WriteString("}}")
	return b.String()
}

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "--describe" {
		fmt.Println(`{"protocol":2,"name":"reader.go (Go example)","version":"1.0.0","capabilities":{}}`)
		return
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "--") {
		fmt.Fprintln(os.Stderr, "usage: reader-go FILE | --describe")
		os.Exit(2)
	}
	f, err := os.Open(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(70)
	}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if rej, ok := r.(rejection); ok {
			fmt.Printf(`{"result":"rejected","rule":"%s","reason":%s}`+"\n", rej.rule, quote(rej.reason))
			os.Exit(1)
		}
		// not a judgement on the file but a failure: no answer, a crash
		fmt.Fprintln(os.Stderr, r)
		os.Exit(70)
	}()
	a := readFile(f)
	fmt.Println(accepted(f, a))
}
