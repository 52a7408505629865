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
