// @jax-js/loaders `safetensors.parse(bytes)`: JSON.parse of the header, then
// a typed-array view per tensor over the file's buffer (no other checks).
// Its own refusals are plain `Error`s and the SyntaxError of JSON.parse.  The
// engine's errors are unexpected exceptions, as in every row
// (docs/howto/read-the-results-matrix.md, "Errors and outcomes"): a
// RangeError (the typed-array constructor refusing an offset past the buffer
// or an unaligned one: the library never checks either), a TypeError (it
// dereferences what is not there).  F16 views are Float16Array, which Node 20
// does not have: there the wrapper declares no F16, and an F16 tensor's
// ReferenceError is an unexpected exception on a dtype it does not declare.
// parse takes an ArrayBuffer of any size: the file is read into one in
// chunks (readFileSync stops at 2 GiB, a limit of Node's, not the library's).
// Each tensor is a typed array over it, and a typed array on Node 20 has at
// most 2^32 elements (`buffer.constants.MAX_LENGTH`): a U8 tensor of more
// than 2^32 bytes is a RangeError in parse, declared as max_tensor_size.
import { constants } from "node:buffer";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { digest, readWhole, serve } from "./_protocol.mjs";

// Its ES module entry, as its users import it (the CommonJS one does not load
// on Node 20: it requires a path its dependency does not export).
const pkg = join(resolve(process.env.STSPEC_MATRIX_ENV ?? "."), "node_modules", "@jax-js", "loaders");
const { version, exports } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
const { safetensors } = await import(pathToFileURL(join(pkg, exports["."].import)).href);

// The dtypes its parse() knows (its DType type); F16 only with Float16Array.
const HAS_F16 = typeof globalThis.Float16Array === "function";
const DTYPES = ["BOOL", "U8", "I8", "I16", "U16", ...(HAS_F16 ? ["F16"] : []), "I32", "U32", "F32", "F64", "I64", "U64"];

function read(path) {
  // A fresh buffer, as a fetch's arrayBuffer() gives: alignment is the file's.
  const file = safetensors.parse(readWhole(path));
  const tensors = {};
  for (const [name, { dtype, shape, data }] of Object.entries(file.tensors)) {
    tensors[name] = { dtype, shape, ...digest(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) };
  }
  return { metadata: file.metadata ?? null, tensors };
}

serve(
  { protocol: 2, name: "@jax-js/loaders safetensors.parse", version, capabilities: { read_dtypes: DTYPES, max_tensor_size: constants.MAX_LENGTH } },
  read,
  (error) => error?.constructor === Error || error instanceof SyntaxError,
);
