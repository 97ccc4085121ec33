// safetensors 0.2.8 (the crate): SafeTensors::deserialize, then every tensor.
//
//     cargo new --bin repro && cd repro
//     cargo add safetensors@=0.2.8
//     cp ../open_hf_rust_0_2_8.rs src/main.rs
//     cargo run --release --quiet -- FILE
//
// Reads FILE whole (the crate's README maps it with memmap2; deserialize
// sees the same bytes either way) and lists each tensor's dtype, shape and
// byte count through `tensors()`, as a loader does, then prints "accepted".
// A refusal is printed as the crate's error; a panic is left to unwind.

use safetensors::tensor::SafeTensors;

fn main() {
    let path = std::env::args().nth(1).expect("usage: open_hf_rust_0_2_8 FILE");
    let bytes = std::fs::read(&path).expect("read FILE");
    let tensors = match SafeTensors::deserialize(&bytes) {
        Ok(tensors) => tensors,
        Err(error) => {
            println!("rejected: {:?}", error);
            std::process::exit(1)
        }
    };
    for (name, view) in tensors.tensors().iter().take(20) {
        let (dtype, shape) = (view.dtype(), view.shape());
        println!("{}: {:?} {:?}, {} bytes", name, dtype, shape, view.data().len());
    }
    println!("accepted");
}
