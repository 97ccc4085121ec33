// npm `safetensors`: new SafeTensor(bytes), then every tensor.
//
//   STSPEC_MATRIX_ENV=.matrix/npm-safetensors node matrix/repro/open_npm_safetensors.mjs FILE
//
// Prints each tensor's dtype, shape and the length of the bytes it returns, then
// "accepted"; whatever it throws is left uncaught.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const { SafeTensor } = require("safetensors");

// A fresh buffer: the library reads N through `buffer.buffer` from offset 0.
const st = new SafeTensor(new Uint8Array(readFileSync(process.argv[2])));
for (const [name, info] of st.metadata) {
  const bytes = st.getTensor(name);
  console.log(`${name}: ${info.dtype} ${JSON.stringify(info.shape)}, ${bytes.byteLength} bytes`);
}
console.log("accepted");
