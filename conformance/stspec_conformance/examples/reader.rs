//! A small, strict safetensors reader in Rust that speaks the conformance
//! suite's command protocol 2 (docs/reference/command-protocol.md), with the
//! standard library only (no crates, so no Cargo.toml):
//!
//!     rustc --edition 2021 -O -o reader-rs reader.rs
//!     reader-rs FILE          exit 0 + {"result": "accepted", ...}
//!                             or exit 1 + {"result": "rejected", "rule", "reason"}
//!     reader-rs --describe    {"protocol": 2, "name", "version", "capabilities"}
//!
//!     pytest conformance --impl="cmd:./reader-rs"
//!
//! It is strict: it rejects every file that is not valid, tolerated ones
//! included (leading whitespace, padding other than 0x20, unknown entry
//! members, null metadata), naming the MAY rule only when the file breaks no
//! MUST rule. The header goes through a JSON parser written for the format
//! (duplicate keys, lone surrogates and integer tokens are the format's
//! business, not a general JSON library's), and SHA-256 is written out below
//! because the standard library has none. Every other failure (an I/O error,
//! a bug) prints no answer and exits 70, which the suite counts as a crash.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::FileExt;
use std::process::exit;

const MAX_HEADER: u64 = 100_000_000;
const MAX_DEPTH: usize = 127;
// Tensors above 256 MiB are answered with the sha256 of three 1 MiB windows
// (start, middle, end), as the protocol allows.
const HASH_LIMIT: u64 = 256 << 20;
const WINDOW: u64 = 1 << 20;

/// Bits per element of the 22 dtypes.
fn dtype_bits(name: &str) -> Option<u64> {
    Some(match name {
        "BOOL" | "U8" | "I8" | "F8_E5M2" | "F8_E4M3" | "F8_E8M0" | "F8_E4M3FNUZ" | "F8_E5M2FNUZ" => 8,
        "F4" => 4,
        "F6_E2M3" | "F6_E3M2" => 6,
        "I16" | "U16" | "F16" | "BF16" => 16,
        "I32" | "U32" | "F32" => 32,
        "C64" | "F64" | "I64" | "U64" => 64,
        _ => return None,
    })
}

/// A judgement on the file: a rule id and what differed.
struct Rejection {
    rule: &'static str,
    reason: String,
}

type Judged<T> = Result<T, Rejection>;

fn reject<T>(rule: &'static str, reason: String) -> Judged<T> {
    Err(Rejection { rule, reason })
}

// --- JSON ---------------------------------------------------------------------

enum Value {
    Object(Vec<(String, Value)>),
    Array(Vec<Value>),
    Str(String),
    Number(String), // the token, judged where an integer is required
    Literal(&'static str),
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn fail<T>(&self, rule: &'static str, what: &str) -> Judged<T> {
        reject(rule, format!("{what} at absolute offset {}", 8 + self.pos))
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Judged<()> {
        if self.peek() != Some(byte) {
            return self.fail("JSON-SYNTAX", &format!("expected '{}'", byte as char));
        }
        self.pos += 1;
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Judged<Value> {
        match self.peek() {
            None => self.fail("JSON-SYNTAX", "expected a value, found the end of the header"),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(c) => {
                for word in ["true", "false", "null"] {
                    if self.text[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return Ok(Value::Literal(word));
                    }
                }
                self.fail("JSON-SYNTAX", &format!("unexpected byte 0x{c:02X}"))
            }
        }
    }

    fn object(&mut self, depth: usize) -> Judged<Value> {
        if depth > MAX_DEPTH {
            return self.fail("JSON-DEPTH", &format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.pos += 1; // '{'
        let mut members = Vec::new();
        let mut seen = HashSet::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return self.fail("JSON-SYNTAX", "expected a member name");
            }
            let at = self.pos;
            let name = self.string()?;
            if !seen.insert(name.clone()) {
                self.pos = at;
                return self.fail("KEY-UNIQUE", &format!("member name {} appears twice", quote(&name)));
            }
            self.skip_space();
            self.expect(b':')?;
            self.skip_space();
            let value = self.value(depth)?;
            members.push((name, value));
            self.skip_space();
            if self.peek() == Some(b',') {
                self.pos += 1;
                continue;
            }
            self.expect(b'}')?;
            return Ok(Value::Object(members));
        }
    }

    fn array(&mut self, depth: usize) -> Judged<Value> {
        if depth > MAX_DEPTH {
            return self.fail("JSON-DEPTH", &format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value(depth)?);
            self.skip_space();
            if self.peek() == Some(b',') {
                self.pos += 1;
                continue;
            }
            self.expect(b']')?;
            return Ok(Value::Array(items));
        }
    }

    fn hex4(&mut self) -> Judged<u32> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return self.fail("JSON-SYNTAX", "\\u escape without four hex digits"),
            };
            code = code << 4 | u32::from(digit);
            self.pos += 1;
        }
        Ok(code)
    }

    /// Decodes a string; the header is already known to be UTF-8.
    fn string(&mut self) -> Judged<String> {
        self.pos += 1; // '"'
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return self.fail("JSON-SYNTAX", "unterminated string");
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    // escapes add only whole scalar values to valid UTF-8
                    return Ok(String::from_utf8(out).expect("UTF-8 checked before parsing"));
                }
                0..=0x1F => return self.fail("JSON-SYNTAX", &format!("raw control character 0x{c:02X} in a string")),
                b'\\' => {}
                _ => {
                    out.push(c);
                    self.pos += 1;
                    continue;
                }
            }
            let at = self.pos;
            self.pos += 1;
            let Some(e) = self.peek() else {
                return self.fail("JSON-SYNTAX", "unterminated escape");
            };
            self.pos += 1;
            let decoded = match e {
                b'"' | b'\\' | b'/' => char::from(e),
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let high = self.hex4()?;
                    let code = match high {
                        0xDC00..=0xDFFF => {
                            self.pos = at;
                            return self.fail("JSON-SURROGATE", "lone low surrogate escape");
                        }
                        0xD800..=0xDBFF => {
                            if !self.text[self.pos..].starts_with(b"\\u") {
                                self.pos = at;
                                return self.fail("JSON-SURROGATE", "high surrogate escape not followed by a low one");
                            }
                            self.pos += 2;
                            let low = self.hex4()?;
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                self.pos = at;
                                return self.fail("JSON-SURROGATE", "high surrogate escape not followed by a low one");
                            }
                            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                        }
                        _ => high,
                    };
                    char::from_u32(code).expect("surrogates excluded above")
                }
                _ => {
                    self.pos = at;
                    return self.fail("JSON-SYNTAX", &format!("bad escape \\{}", char::from(e)));
                }
            };
            let mut buf = [0; 4];
            out.extend_from_slice(decoded.encode_utf8(&mut buf).as_bytes());
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// Checks the RFC 8259 grammar and keeps the token.
    fn number(&mut self) -> Judged<Value> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if self.digits() == 0 {
            return self.fail("JSON-SYNTAX", "a number without digits");
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return self.fail("JSON-SYNTAX", "a fraction without digits");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return self.fail("JSON-SYNTAX", "an exponent without digits");
            }
        }
        let token = std::str::from_utf8(&self.text[start..self.pos]).expect("ASCII digits");
        Ok(Value::Number(token.to_owned()))
    }
}

// --- header structure -----------------------------------------------------------

struct Tensor {
    name: String,
    dtype: String,
    shape: Vec<u64>,
    begin: u64,
    end: u64,
}

/// A shape dimension or an offset: a plain integer token up to 2^64-1
/// (`what` names it, built only for a rejection).
fn u64_of(token: &str, what: impl Fn() -> String) -> Judged<u64> {
    if token.contains(['-', '.', 'e', 'E']) {
        return reject("NUM-INTEGER", format!("{} is {token}, not a plain non-negative integer", what()));
    }
    match token.parse::<u64>() {
        Ok(n) => Ok(n),
        Err(_) => reject("NUM-RANGE", format!("{} ({} digits) exceeds 2^64-1", what(), token.len())),
    }
}

fn check_metadata(value: &Value) -> Judged<Vec<(String, String)>> {
    let Value::Object(members) = value else {
        return reject("META-OBJECT", "__metadata__ is not an object".into());
    };
    let mut meta = Vec::new();
    for (key, item) in members {
        let Value::Str(text) = item else {
            return reject("META-STRING", format!("metadata value {} is not a string", quote(key)));
        };
        meta.push((key.clone(), text.clone()));
    }
    Ok(meta)
}

fn check_entry(name: &str, value: &Value, tolerated: &mut Option<Rejection>) -> Judged<Tensor> {
    let Value::Object(members) = value else {
        return reject("ENTRY-OBJECT", format!("member {} is not a tensor entry object", quote(name)));
    };
    let (mut dtype, mut shape, mut offsets) = (None, None, None);
    for (field, item) in members {
        match field.as_str() {
            "dtype" => dtype = Some(item),
            "shape" => shape = Some(item),
            "data_offsets" => offsets = Some(item),
            _ => tolerate(
                tolerated,
                "ENTRY-UNKNOWN",
                format!("tensor {} has the unknown member {}", quote(name), quote(field)),
            ),
        }
    }
    let (Some(dtype), Some(shape), Some(offsets)) = (dtype, shape, offsets) else {
        return reject("ENTRY-FIELDS", format!("tensor {} lacks dtype, shape or data_offsets", quote(name)));
    };
    let (dtype, bits) = match dtype {
        Value::Str(text) if dtype_bits(text).is_some() => (text.clone(), dtype_bits(text).unwrap_or(0)),
        _ => return reject("DTYPE-NAME", format!("the dtype of {} is not one of the 22 names", quote(name))),
    };
    let Value::Array(dims) = shape else {
        return reject("SHAPE-ARRAY", format!("the shape of {} is not an array", quote(name)));
    };
    let mut dim_tokens = Vec::new();
    for dim in dims {
        let Value::Number(token) = dim else {
            return reject("SHAPE-ARRAY", format!("the shape of {} holds a non-number", quote(name)));
        };
        dim_tokens.push(token);
    }
    let (begin, end) = match offsets {
        Value::Array(pair) => match pair.as_slice() {
            [Value::Number(begin), Value::Number(end)] => (begin, end),
            _ => return reject("OFFSETS-PAIR", format!("data_offsets of {} is not two integers", quote(name))),
        },
        _ => return reject("OFFSETS-PAIR", format!("data_offsets of {} is not an array", quote(name))),
    };
    let mut shape = Vec::new();
    for (i, token) in dim_tokens.into_iter().enumerate() {
        shape.push(u64_of(token, || format!("dimension {i} of {}", quote(name)))?);
    }
    let begin = u64_of(begin, || format!("begin of {}", quote(name)))?;
    let end = u64_of(end, || format!("end of {}", quote(name)))?;
    // The bit count, exactly: zero if any dimension is zero, else a product
    // that must stay within 2^64-1.
    let mut count = if shape.contains(&0) { 0 } else { bits };
    if count != 0 {
        for &dim in &shape {
            count = match count.checked_mul(dim) {
                Some(product) => product,
                None => return reject("SIZE-OVERFLOW", format!("the bit count of {} exceeds 2^64-1", quote(name))),
            };
        }
    }
    if count % 8 != 0 {
        return reject("SIZE-BITS", format!("{} is {count} bits, not whole bytes", quote(name)));
    }
    if begin > end {
        return reject("OFFSETS-ORDER", format!("data_offsets [{begin}, {end}] of {} run backwards", quote(name)));
    }
    if end - begin != count / 8 {
        return reject(
            "SIZE-MATCH",
            format!("{} needs {} bytes, its offsets give {}", quote(name), count / 8, end - begin),
        );
    }
    Ok(Tensor { name: name.to_owned(), dtype, shape, begin, end })
}

fn check_layout(tensors: &[Tensor], length: u64) -> Judged<()> {
    for t in tensors {
        if t.end > length {
            return reject(
                "LAYOUT-BOUNDS",
                format!("{} ends at {}, past the byte buffer ({length} bytes)", quote(&t.name), t.end),
            );
        }
    }
    let mut sorted: Vec<&Tensor> = tensors.iter().collect();
    sorted.sort_by_key(|t| (t.begin, t.end));
    let mut cursor = 0;
    for t in sorted {
        if t.begin > cursor {
            return reject("LAYOUT-HOLE", format!("buffer bytes {cursor}..{} belong to no tensor", t.begin));
        }
        if t.begin < cursor {
            return reject(
                "LAYOUT-OVERLAP",
                format!("{} begins at {}, inside another tensor (which ends at {cursor})", quote(&t.name), t.begin),
            );
        }
        cursor = t.end;
    }
    if cursor != length {
        return reject("LAYOUT-TRAILING", format!("{} bytes follow the last tensor", length - cursor));
    }
    Ok(())
}

/// Keeps the first MAY rule the file breaks; reported only if it breaks no MUST rule.
fn tolerate(tolerated: &mut Option<Rejection>, rule: &'static str, reason: String) {
    if tolerated.is_none() {
        *tolerated = Some(Rejection { rule, reason: reason + " (tolerated; this reader is strict)" });
    }
}

// --- reading --------------------------------------------------------------------

struct Answer {
    metadata: Option<Vec<(String, String)>>,
    tensors: Vec<Tensor>,
    start: u64, // absolute offset of the byte buffer
}

fn read_exact_at(file: &File, buf: &mut [u8], at: u64) {
    if let Err(error) = file.read_exact_at(buf, at) {
        crash(&format!("reading {} bytes at {at}: {error}", buf.len()));
    }
}

fn read_file(file: &File) -> Judged<Answer> {
    let size = match file.metadata() {
        Ok(meta) => meta.len(),
        Err(error) => crash(&error.to_string()),
    };
    if size < 8 {
        return reject("FILE-PREFIX", format!("the file is {size} bytes, shorter than the 8-byte prefix"));
    }
    let mut prefix = [0; 8];
    read_exact_at(file, &mut prefix, 0);
    let n = u64::from_le_bytes(prefix);
    if n > MAX_HEADER {
        return reject("HEADER-LIMIT", format!("N = {n} exceeds 100,000,000"));
    }
    if 8 + n > size {
        return reject("HEADER-BOUNDS", format!("8 + N = {} exceeds the file length {size}", 8 + n));
    }
    let mut text = vec![0; n as usize];
    read_exact_at(file, &mut text, 8);
    if std::str::from_utf8(&text).is_err() {
        return reject("HEADER-UTF8", "the header is not well-formed UTF-8".into());
    }
    let mut tolerated = None;
    let mut p = Parser { text: &text, pos: 0 };
    p.skip_space();
    if p.peek() != Some(b'{') {
        return p.fail("HEADER-OBJECT", "the header does not hold a JSON object");
    }
    if p.pos > 0 {
        tolerate(&mut tolerated, "HEADER-LEADING-WS", "whitespace before the header object".into());
    }
    let Value::Object(members) = p.value(0)? else {
        unreachable!("the value starts with '{{'")
    };
    while let Some(c) = p.peek() {
        match c {
            b' ' => {}
            b'\t' | b'\n' | b'\r' => tolerate(
                &mut tolerated,
                "HEADER-PADDING",
                format!("padding other than 0x20 at absolute offset {}", 8 + p.pos),
            ),
            _ => return p.fail("HEADER-TRAILING", &format!("byte 0x{c:02X} after the header object")),
        }
        p.pos += 1;
    }
    let mut answer = Answer { metadata: None, tensors: Vec::new(), start: 8 + n };
    for (name, value) in &members {
        if name == "__metadata__" {
            if let Value::Literal("null") = value {
                tolerate(&mut tolerated, "META-NULL", "__metadata__ is null".into());
            } else {
                answer.metadata = Some(check_metadata(value)?);
            }
            continue;
        }
        answer.tensors.push(check_entry(name, value, &mut tolerated)?);
    }
    check_layout(&answer.tensors, size - 8 - n)?;
    match tolerated {
        Some(rejection) => Err(rejection),
        None => Ok(answer),
    }
}

// --- SHA-256 (FIPS 180-4) -----------------------------------------------------------

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    filled: usize,
    length: u64,
}

impl Sha256 {
    fn new() -> Self {
        let state = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ];
        Sha256 { state, block: [0; 64], filled: 0, length: 0 }
    }

    fn compress(&mut self) {
        let mut w = [0u32; 64];
        for (i, chunk) in self.block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.length += data.len() as u64;
        while !data.is_empty() {
            let take = (64 - self.filled).min(data.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled == 64 {
                self.compress();
                self.filled = 0;
            }
        }
    }

    fn hex(mut self) -> String {
        let bits = self.length.wrapping_mul(8);
        self.update(&[0x80]);
        while self.filled != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        self.state.iter().fold(String::new(), |mut out, word| {
            let _ = write!(out, "{word:08x}");
            out
        })
    }
}

fn sha256_at(file: &File, start: u64, length: u64) -> String {
    let mut hash = Sha256::new();
    let mut buf = vec![0; length.min(WINDOW) as usize];
    let mut done = 0;
    while done < length {
        let size = (length - done).min(WINDOW) as usize;
        read_exact_at(file, &mut buf[..size], start + done);
        hash.update(&buf[..size]);
        done += size as u64;
    }
    hash.hex()
}

fn digest(file: &File, start: u64, n: u64) -> String {
    if n <= HASH_LIMIT {
        return format!("\"sha256\":\"{}\"", sha256_at(file, start, n));
    }
    let mut starts = vec![0, (n / 2).saturating_sub(WINDOW / 2), n - WINDOW];
    starts.dedup();
    let windows: Vec<String> = starts
        .iter()
        .map(|&s| format!("[{s},\"{}\"]", sha256_at(file, start + s, WINDOW.min(n - s))))
        .collect();
    format!("\"windows\":[{}]", windows.join(","))
}

// --- output ---------------------------------------------------------------------

/// A JSON string: the header was valid UTF-8, so only the quote, the
/// backslash and control characters need escapes.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\0'..='\u{1f}' | '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

fn accepted(file: &File, answer: &Answer) -> String {
    let metadata = match &answer.metadata {
        None => "null".to_owned(),
        Some(pairs) => {
            let items: Vec<String> = pairs.iter().map(|(k, v)| format!("{}:{}", quote(k), quote(v))).collect();
            format!("{{{}}}", items.join(","))
        }
    };
    let tensors: Vec<String> = answer
        .tensors
        .iter()
        .map(|t| {
            let dims: Vec<String> = t.shape.iter().map(u64::to_string).collect();
            let digest = digest(file, answer.start + t.begin, t.end - t.begin);
            format!("{}:{{\"dtype\":\"{}\",\"shape\":[{}],{digest}}}", quote(&t.name), t.dtype, dims.join(","))
        })
        .collect();
    format!("{{\"result\":\"accepted\",\"metadata\":{metadata},\"tensors\":{{{}}}}}", tensors.join(","))
}

/// Not a judgement on the file but a failure: no answer, so the suite counts a crash.
fn crash(message: &str) -> ! {
    eprintln!("reader-rs: {message}");
    exit(70)
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        crash("cannot write the answer");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--describe" => {
            say(r#"{"protocol":2,"name":"reader.rs (Rust example)","version":"1.0.0","capabilities":{}}"#);
        }
        [path] if !path.starts_with("--") => {
            let file = File::open(path).unwrap_or_else(|error| crash(&format!("{path}: {error}")));
            match read_file(&file) {
                Ok(answer) => say(&accepted(&file, &answer)),
                Err(rejection) => {
                    say(&format!(
                        "{{\"result\":\"rejected\",\"rule\":\"{}\",\"reason\":{}}}",
                        rejection.rule,
                        quote(&rejection.reason)
                    ));
                    exit(1);
                }
            }
        }
        _ => {
            eprintln!("usage: reader-rs FILE | --describe");
            exit(2);
        }
    }
}
