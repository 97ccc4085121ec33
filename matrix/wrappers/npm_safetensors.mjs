// npm `safetensors` 0.0.1: new SafeTensor(bytes) parses the header
// (JSON.parse, no checks); getTensor(name) is a subarray of the buffer.
// It has no checks and no error type of its own: the SyntaxError of the
// JSON.parse it calls on the header is its refusal.  The engine's errors are
// not: a RangeError (V8's DataView bounds check on a file of 1-7 bytes) or a
// TypeError (it dereferences what is not there) is an unexpected exception,
// as in every row (docs/howto/read-the-results-matrix.md, "Errors and
// outcomes").  It reports no metadata (it treats __metadata__ as a tensor).
// It takes the whole file as one Uint8Array (loadSafeTensor makes one from a
// fetch), and a typed array on Node 20 holds at most 2^32 bytes
// (`buffer.constants.MAX_LENGTH`): that is its file-size limit, declared as
// max_file_size; a larger file cannot be handed to it and is refused
// unread.  Smaller ones are read in chunks (readFileSync stops at 2 GiB, a
// limit of Node's, not the library's).
import { constants } from "node:buffer";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { BeyondLimit, digest, readWhole, serve } from "./_protocol.mjs";

const require = createRequire(`${resolve(process.env.STSPEC_MATRIX_ENV ?? ".")}/`);
const { SafeTensor } = require("safetensors");
const { version } = require("safetensors/package.json");

function read(path) {
  // A fresh buffer: the library reads N through `buffer.buffer` from offset 0.
  const st = new SafeTensor(new Uint8Array(readWhole(path, constants.MAX_LENGTH)));
  const tensors = {};
  for (const [name, info] of st.metadata) {
    tensors[name] = { dtype: info.dtype, shape: info.shape, ...digest(st.getTensor(name)) };
  }
  return { metadata: null, tensors };
}

serve(
  { protocol: 2, name: "safetensors (npm)", version, capabilities: { max_file_size: constants.MAX_LENGTH } },
  read,
  (error) => error instanceof SyntaxError || error instanceof BeyondLimit,
);
