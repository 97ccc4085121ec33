// A command-protocol-2 reader over aprender's own safetensors parser.
//
//   aprst FILE        MappedSafeTensors::open (the parser `apr validate` and
//                     `apr import` run on a .safetensors file), then for every
//                     tensor get_tensor_raw, the checked read of its bytes
//   aprst --describe  name, version, capabilities
//
// Exit 0 = accepted, 1 = rejected (an `Err` the library returned, with its
// words as the reason); a panic (101) or a signal is a crash.  `apr validate`
// goes on to judge the numbers (NaN, Inf, all-zero, constant tensors, no
// tensors at all): model-quality gates on valid files, not the format's
// rules, so they are not applied here.

use aprender::serialization::safetensors::MappedSafeTensors;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::process::exit;

// get_tensor_raw reads these three and refuses every other dtype.
const READ_DTYPES: [&str; 3] = ["F16", "BF16", "F32"];
const WINDOW: usize = 1 << 20;
const WINDOWED_ABOVE: usize = 256 << 20;

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{:02x}", b))
        .collect()
}

// The suite's description of a tensor's bytes: the whole digest, or above
// 256 MiB the digests of three 1 MiB windows (start, middle, end).
fn describe_bytes(entry: &mut Map<String, Value>, data: &[u8]) {
    let n = data.len();
    entry.insert("nbytes".into(), json!(n));
    if n <= WINDOWED_ABOVE {
        entry.insert("sha256".into(), json!(sha256_hex(data)));
        return;
    }
    let mut starts = vec![0, (n / 2).saturating_sub(WINDOW / 2), n - WINDOW];
    starts.dedup();
    let windows: Vec<Value> = starts
        .into_iter()
        .map(|s| json!([s, sha256_hex(&data[s..s + WINDOW])]))
        .collect();
    entry.insert("windows".into(), Value::Array(windows));
}

fn answer(value: Value, code: i32) -> ! {
    println!("{}", value);
    exit(code)
}

fn rejected(reason: String) -> ! {
    answer(json!({"result": "rejected", "reason": reason}), 1)
}

fn read(path: &str) -> ! {
    let st = match MappedSafeTensors::open(path) {
        Ok(st) => st,
        Err(e) => rejected(e),
    };
    let mut tensors = Map::new();
    for name in st.tensor_names() {
        let raw = match st.get_tensor_raw(name) {
            Ok(raw) => raw,
            Err(e) => rejected(e),
        };
        // The dtype as the header names it (get_tensor_raw accepted it).
        let dtype = st.get_metadata(name).map(|m| m.dtype.clone());
        let mut entry = Map::new();
        entry.insert("dtype".into(), json!(dtype));
        entry.insert("shape".into(), json!(raw.shape));
        describe_bytes(&mut entry, &raw.bytes);
        tensors.insert(name.to_string(), Value::Object(entry));
    }
    // user_metadata() is a map either way: an absent __metadata__ reads as
    // {} (declared: metadata_presence false).
    answer(
        json!({"result": "accepted", "metadata": st.user_metadata(), "tensors": tensors}),
        0,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.as_slice() {
        [_, flag] if flag == "--describe" => answer(
            json!({
                "protocol": 2,
                "name": "aprender MappedSafeTensors",
                "version": env!("APRST_CRATE_VERSION"),
                "capabilities": {
                    "read_dtypes": READ_DTYPES,
                    "metadata_presence": false,
                },
            }),
            0,
        ),
        [_, path] => read(path),
        _ => {
            eprintln!("usage: aprst FILE | --describe");
            exit(2)
        }
    }
}
