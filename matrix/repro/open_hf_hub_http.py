"""huggingface_hub: ``parse_safetensors_file_metadata`` over HTTP, on loopback.

    .matrix/hf-hub-py-http/venv/bin/python matrix/repro/open_hf_hub_http.py FILE

Serves FILE from a ``ThreadingHTTPServer`` on 127.0.0.1 as the Hub does (206
with ``Content-Range`` for a Range request, the range clamped to the file,
416 past its end) and calls the client's remote header reader on it.  Prints
what it returns, then "accepted"; whatever it raises is left uncaught.
"""

import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from huggingface_hub import HfApi

DATA = Path(sys.argv[1]).read_bytes()


class Hub(BaseHTTPRequestHandler):
    """The one file, with the Hub's Range semantics."""

    def log_message(self, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        """206 with Content-Range, clamped to the file; 416 past its end."""
        size = len(DATA)
        asked = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        start = int(asked.group(1)) if asked else 0
        end = min(int(asked.group(2) or size - 1), size - 1) if asked else size - 1
        if start >= size:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(206 if asked else 200)
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.wfile.write(DATA[start : end + 1])


server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
threading.Thread(target=server.serve_forever, daemon=True).start()
api = HfApi(endpoint=f"http://127.0.0.1:{server.server_address[1]}", token=False)
parsed = api.parse_safetensors_file_metadata("local/model", "model.safetensors")
for name, info in list(parsed.tensors.items())[:20]:
    print(f"{name}: {info.dtype} {info.shape} {info.data_offsets}")
print(f"metadata: {str(parsed.metadata)[:200]}")
print("accepted")
