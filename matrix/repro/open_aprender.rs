// aprender-core 0.72.3: MappedSafeTensors::open, then every tensor's bytes.
//
//     cargo new --bin repro && cd repro
//     cargo add aprender-core@=0.72.3
//     cp ../open_aprender.rs src/main.rs
//     cargo run --release --quiet -- FILE
//
// `MappedSafeTensors::open` is the parser `apr validate` and `apr import`
// run on a .safetensors file; `get_tensor_raw` is its checked read of one
// tensor's bytes (F32, F16 and BF16; it refuses other dtypes).  Lists each
// tensor, then prints "accepted"; a refusal is printed as the library's
// error, and a panic is left to unwind.

use aprender::serialization::safetensors::MappedSafeTensors;

fn main() {
    let path = std::env::args().nth(1).expect("usage: open_aprender FILE");
    let tensors = match MappedSafeTensors::open(&path) {
        Ok(tensors) => tensors,
        Err(error) => {
            println!("rejected: {}", error);
            std::process::exit(1)
        }
    };
    for name in tensors.tensor_names() {
        match tensors.get_tensor_raw(name) {
            Ok(raw) => {
                let (dtype, shape) = (&raw.dtype, &raw.shape);
                println!("{}: {:?} {:?}, {} bytes", name, dtype, shape, raw.bytes.len())
            }
            Err(error) => {
                println!("rejected: {}", error);
                std::process::exit(1)
            }
        }
    }
    println!("accepted");
}
