// npm `safetensors` 0.0.1 takes data_offsets on trust; subarray() clamps.
//
//   STSPEC_MATRIX_ENV=.matrix/npm-safetensors node matrix/repro/npm_safetensors_truncates.mjs
//
// A tensor F32[4] whose offsets run 12 bytes past the end of the file loads
// as 4 bytes: no error, a quarter of the data.  A file with __metadata__
// (every file torch or HF writes with metadata) throws a TypeError.
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const { SafeTensor } = require("safetensors");

function file(header, data) {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

const short = new SafeTensor(file({ w: { dtype: "F32", shape: [4], data_offsets: [0, 16] } }, new Uint8Array(4)));
console.log(`F32[4] with 4 of its 16 bytes in the file: loads ${short.getTensor("w").length} bytes, no error`);
try {
  new SafeTensor(file({ __metadata__: { format: "pt" }, w: { dtype: "U8", shape: [1], data_offsets: [0, 1] } }, new Uint8Array(1)));
  console.log("a file with __metadata__: loads");
} catch (error) {
  console.log(`a file with __metadata__: ${error.name}: ${error.message}`);
}
