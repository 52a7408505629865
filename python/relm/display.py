"""Images produced by the running cell (display() or a final expression with an image/png repr)."""

import base64

images = []


def begin_cell():
    images.clear()


def add_png(data):
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = base64.b64encode(bytes(data)).decode("ascii")
    elif isinstance(data, str):
        data = data.strip()
    else:
        return False
    images.append(data)
    return True


def show(data, announce=False):
    """Keeps a display's image/png (said in the output when `announce`: display(), not a cell's last
    value), else prints its text/plain."""
    if add_png(data.get("image/png")):
        if announce:
            print(f"[image {len(images)}: image/png]")
    elif data.get("text/plain") is not None:
        print(data["text/plain"])
