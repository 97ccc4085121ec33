// @jax-js/loaders: safetensors.parse on a file's bytes, then every tensor.
//
//   STSPEC_MATRIX_ENV=.matrix/jax-js-loaders node matrix/repro/open_jax_loaders.mjs FILE
//
// Prints each tensor's dtype, shape and the byte length of the view it returns,
// then "accepted"; whatever it throws is left uncaught.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = join(resolve(process.env.STSPEC_MATRIX_ENV ?? "."), "node_modules", "@jax-js", "loaders");
const { exports } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
const { safetensors } = await import(pathToFileURL(join(pkg, exports["."].import)).href);

const file = safetensors.parse(new Uint8Array(readFileSync(process.argv[2])));
for (const [name, { dtype, shape, data }] of Object.entries(file.tensors)) {
  console.log(`${name}: ${dtype} ${JSON.stringify(shape)}, ${data.byteLength} bytes at ${data.byteOffset}`);
}
console.log("accepted");
