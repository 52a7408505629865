"""Files moved over the protocol, for kernels that share no disk with the host (relm.remote).

Handled on the protocol's reader thread, so they work while a cell runs (a cell blocked in rlm() whose
request carries a pickle the host must fetch first):
  file_write {id, path, data (base64), append?} -> file {id} | file {id, error}
  file_read {id, path, offset, length}           -> file {id, data (base64), size} | file {id, error}
  file_remove {id, path}                         -> file {id}
Paths are absolute (the host builds them under the scratch directory the ready message named).
"""

import base64
import os

from .protocol import write_all

KINDS = ("file_write", "file_read", "file_remove")


def handle(msg, send):
    reply = {"type": "file", "id": msg.get("id")}
    path = msg.get("path")
    try:
        kind = msg["type"]
        if kind == "file_write":
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if msg.get("append") else os.O_TRUNC)
            fd = os.open(path, flags, 0o600)
            try:
                write_all(fd, base64.b64decode(msg.get("data") or ""))
            finally:
                os.close(fd)
        elif kind == "file_read":
            with open(path, "rb") as f:
                reply["size"] = os.fstat(f.fileno()).st_size
                f.seek(int(msg.get("offset") or 0))
                reply["data"] = base64.b64encode(f.read(int(msg.get("length") or 0))).decode("ascii")
        else:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
    except Exception as e:  # noqa: BLE001 - the host waits for an answer whatever went wrong
        reply["error"] = f"{getattr(e, 'strerror', None) or type(e).__name__}: {path}"
    send(reply)
