// A command-protocol-2 wrapper around the Hugging Face `safetensors` crate.
//
//   stcli FILE          read: SafeTensors::deserialize over a memmap2 map (as the
//                       crate's README does), one JSON answer on stdout
//   stcli --write OUT   write: the request on stdin, serialize_to_file
//   stcli --describe    name, version, capabilities
//
// Exit 0 = accepted/written, 1 = rejected/refused (with the JSON answer),
// anything else (a panic is 101) is a crash.  The crate version comes from the
// build script (STCLI_CRATE_VERSION); the dtypes it declares are those the
// crate's own `Dtype` deserialises, so each version declares its own.
// Before 0.3 the crate's writer has another shape (feature `api_0_2`, see
// `write`); its reader is the same call.

use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::process::exit;

// SPEC's dtype names; a crate version reads and writes those its Dtype knows.
const SPEC_DTYPES: [&str; 22] = [
    "BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
    "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64",
    "F64", "I64", "U64",
];

fn known_dtypes() -> Vec<&'static str> {
    SPEC_DTYPES
        .iter()
        .copied()
        .filter(|name| serde_json::from_value::<Dtype>(json!(name)).is_ok())
        .collect()
}

const WINDOW: usize = 1 << 20;
const WINDOWED_ABOVE: usize = 256 << 20;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

// Large tensors are described by three 1 MiB windows (the suite's definition),
// so a 4 GiB tensor is not hashed whole.
fn digest(data: &[u8]) -> (&'static str, Value) {
    let n = data.len();
    if n <= WINDOWED_ABOVE {
        return ("sha256", Value::String(sha256_hex(data)));
    }
    let mut starts = vec![0, (n / 2).saturating_sub(WINDOW / 2), n.saturating_sub(WINDOW)];
    starts.sort_unstable();
    starts.dedup();
    let windows = starts
        .into_iter()
        .map(|s| json!([s, sha256_hex(&data[s..s + WINDOW.min(n - s)])]))
        .collect();
    ("windows", Value::Array(windows))
}

fn answer(value: Value, code: i32) -> ! {
    println!("{}", value);
    exit(code)
}

fn read(path: &str) -> ! {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("open: {}", e);
            exit(2)
        }
    };
    // An mmap failure is the environment's, not a verdict on the file.
    let map = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => m,
        Err(e) => {
            eprintln!("mmap: {}", e);
            exit(3)
        }
    };
    let st = match SafeTensors::deserialize(&map) {
        Ok(st) => st,
        Err(e) => answer(json!({"result": "rejected", "reason": format!("{:?}", e)}), 1),
    };
    let metadata = match SafeTensors::read_metadata(&map) {
        Ok((_, m)) => m.metadata().clone(),
        Err(e) => answer(json!({"result": "rejected", "reason": format!("{:?}", e)}), 1),
    };
    let mut tensors = Map::new();
    for (name, view) in st.tensors() {
        let data = view.data();
        let (key, value) = digest(data);
        let mut entry = Map::new();
        entry.insert("dtype".into(), Value::String(format!("{:?}", view.dtype())));
        entry.insert("shape".into(), json!(view.shape()));
        entry.insert("nbytes".into(), json!(data.len()));
        entry.insert(key.into(), value);
        tensors.insert(name, Value::Object(entry));
    }
    answer(
        json!({"result": "accepted", "metadata": metadata, "tensors": tensors}),
        0,
    )
}

fn refuse(reason: String) -> ! {
    answer(json!({"result": "refused", "reason": reason}), 1)
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

fn write(out: &str) -> ! {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        exit(2)
    }
    // A request serde_json cannot decode (a lone surrogate escape) never
    // reaches the crate: the protocol's answer is a refusal with the reason.
    let request: Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => refuse(format!("cannot decode the request: {}", e)),
    };
    let metadata: Option<HashMap<String, String>> = match &request["metadata"] {
        Value::Null => None,
        v => match serde_json::from_value(v.clone()) {
            Ok(m) => Some(m),
            Err(e) => refuse(format!("metadata: {}", e)),
        },
    };
    let mut owned: Owned = Vec::new();
    if let Some(tensors) = request["tensors"].as_object() {
        for (name, t) in tensors {
            let dtype: Dtype = match serde_json::from_value(t["dtype"].clone()) {
                Ok(d) => d,
                Err(e) => refuse(format!("{}: dtype: {}", name, e)),
            };
            let shape: Vec<usize> = match serde_json::from_value(t["shape"].clone()) {
                Ok(s) => s,
                Err(e) => refuse(format!("{}: shape: {}", name, e)),
            };
            let data = match t["hex"].as_str().and_then(unhex) {
                Some(d) => d,
                None => refuse(format!("{}: hex", name)),
            };
            owned.push((name.clone(), dtype, shape, data));
        }
    }
    match serialize(&owned, metadata, out) {
        Ok(()) => answer(json!({"result": "written"}), 0),
        Err(reason) => refuse(reason),
    }
}

type Owned = Vec<(String, Dtype, Vec<usize>, Vec<u8>)>;

// From 0.3 on: TensorView::new checks the bytes against dtype x shape, and
// serialize_to_file (a crate-root function) takes the views as a list; before
// 0.6 it takes the metadata by reference (rust_crate.sh selects the feature).
#[cfg(not(feature = "api_0_2"))]
fn serialize(
    owned: &Owned,
    metadata: Option<HashMap<String, String>>,
    out: &str,
) -> Result<(), String> {
    let mut views = Vec::new();
    for (name, dtype, shape, data) in owned {
        match TensorView::new(*dtype, shape.clone(), data) {
            Ok(v) => views.push((name.clone(), v)),
            Err(e) => return Err(format!("{}: {:?}", name, e)),
        }
    }
    #[cfg(feature = "metadata_by_ref")]
    let metadata = &metadata;
    safetensors::serialize_to_file(views, metadata, std::path::Path::new(out))
        .map_err(|e| format!("{:?}", e))
}

// 0.2: TensorView::new takes any bytes (the writer's own check compares them
// with dtype x shape), and tensor::serialize_to_file takes ordered maps.
#[cfg(feature = "api_0_2")]
fn serialize(
    owned: &Owned,
    metadata: Option<HashMap<String, String>>,
    out: &str,
) -> Result<(), String> {
    let views: std::collections::BTreeMap<String, TensorView> = owned
        .iter()
        .map(|(name, dtype, shape, data)| {
            (name.clone(), TensorView::new(*dtype, shape.clone(), data))
        })
        .collect();
    let metadata = metadata.map(|m| m.into_iter().collect());
    safetensors::tensor::serialize_to_file(&views, &metadata, std::path::Path::new(out))
        .map_err(|e| format!("{:?}", e))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.as_slice() {
        // serialize_to_file writes the canonical layout (SPEC 9.1), except
        // __metadata__ keys in HashMap order, which changes from run to run:
        // the crate claims the canonical-writer class, as the suite's HF
        // adapter does, so that deviation shows as a failure, not as n/a.
        [_, flag] if flag == "--describe" => answer(
            json!({
                "protocol": 2,
                "name": "safetensors (Rust crate)",
                "version": env!("STCLI_CRATE_VERSION"),
                "capabilities": {
                    "write": true,
                    "canonical": true,
                    "read_dtypes": known_dtypes(),
                    "write_dtypes": known_dtypes(),
                },
            }),
            0,
        ),
        [_, flag, out] if flag == "--write" => write(out),
        [_, path] => read(path),
        _ => {
            eprintln!("usage: stcli FILE | --write OUT | --describe");
            exit(2)
        }
    }
}
