"""look: show the model an image (a file, a matplotlib figure, a numpy array or a PIL image).

The image joins the result of the cell that calls look(), so the model sees it in its next request,
as it sees a cell's display() output. Images are made to fit what models take: at most 1568 px on the
long side and 3.75 MB (Pillow downscales when it is installed; without it a numpy array is shrunk by
taking every k-th pixel, and an image file is sent as it is when it already fits, or refused).
"""

import base64
import io
import math
import os
import struct
import zlib

from .. import calls
from ._text import FILE_CAP, open_regular, public, rel

MAX_SIDE = 1568  # longest side models look at without scaling it themselves (Anthropic's guidance)
MAX_BYTES = 3_750_000  # 5 MB of base64, the most Anthropic's API takes for one image
MAX_PIXELS_SIDE = 8000  # no provider takes an image with a side longer than this


@public
def look(image, max_side=MAX_SIDE):
    """look(image, max_side=1568): attach an image to this cell's result so you see it next.

    `image` is a file path (PNG, JPEG, GIF, WebP), image bytes, a matplotlib Figure or Axes (or the
    pyplot module: its current figure), a numpy array (H×W gray, H×W×3 RGB, H×W×4 RGBA; uint8, bool, or floats
    in 0..1), or a PIL Image. Big images are downscaled to `max_side` px on the long side and under
    3.75 MB. Prints what was attached, or says plainly that this model does not take images (then
    nothing is attached: describe the image with code instead). At most 8 images per cell.
    """
    from .. import protocol

    if isinstance(max_side, bool) or not isinstance(max_side, int) or not 16 <= max_side <= MAX_PIXELS_SIDE:
        raise ValueError(f"look(): max_side must be a whole number from 16 to {MAX_PIXELS_SIDE}, got {max_side!r}")
    if not protocol.connected():
        raise RuntimeError("look() shows an image to the model through a relm host; this kernel has none")
    label = _label(image)
    answer = calls.call("look.accepts", {})
    if not answer.get("accepts"):
        _check_source(image)
        print(
            f"[look: the model {answer.get('model')} does not take images, so {label} was not attached. "
            "Describe it with code instead (size, pixel statistics, text via OCR), or set "
            '"acceptsImages": true in config.json if this model does take images.]'
        )
        return None
    data, mime, size = _encode(image, max_side, label)
    try:
        answer = calls.call(
            "look.attach", {"mime": mime, "data": base64.b64encode(data).decode("ascii"), "label": label}
        )
    except calls.HostError as e:
        raise ValueError(str(e)) from None
    if not answer.get("attached"):
        print(f"[look: the model {answer.get('model')} does not take images, so {label} was not attached.]")
        return None
    dims = f"{size[0]}×{size[1]}, " if size else ""
    print(f"[look: {label} attached ({mime.split('/')[1].upper()}, {dims}{_kb(len(data))}); you see it with this cell's result]")
    return None


def _kb(n):
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1000))} KB"


def _label(image):
    if isinstance(image, (str, os.PathLike)):
        return rel(os.fspath(image))
    if _is_figure(image):
        return "the figure"
    kind = type(image).__name__
    shape = getattr(image, "shape", None)
    return f"the {kind} {tuple(shape)}" if shape is not None else f"the {kind}"


def _is_figure(obj):
    if getattr(obj, "__name__", "") == "matplotlib.pyplot":
        return True
    if hasattr(obj, "savefig") and hasattr(obj, "canvas"):
        return True
    # An Axes (what plt.subplots() and df.plot() return): its figure.
    return hasattr(obj, "get_figure") and hasattr(getattr(obj, "figure", None), "savefig")


def _check_source(image):
    """The argument's type is checked even when nothing will be sent: a mistake is still a mistake."""
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        if not os.path.isfile(path):
            if os.path.exists(path):
                open_regular(path).close()  # a FIFO, a device: NotAFile says what it is
            raise FileNotFoundError(f"look(): {path}: no such file (cwd is {os.getcwd()})")
        return
    if isinstance(image, (bytes, bytearray, memoryview)) or _is_figure(image) or _is_pil(image):
        return
    if hasattr(image, "__array_interface__") or hasattr(image, "__array__") or hasattr(image, "_repr_png_"):
        return
    raise TypeError(
        f"look() takes a file path, image bytes, a matplotlib figure, a numpy array or a PIL image, "
        f"not {type(image).__name__}"
    )


def _is_pil(obj):
    return type(obj).__module__.startswith("PIL.") and hasattr(obj, "size") and hasattr(obj, "mode")


def _pil():
    try:
        from PIL import Image

        return Image
    except ImportError:
        return None


# ---- sources -------------------------------------------------------------------------------------


def _encode(image, max_side, label):
    """(bytes, mime, (w, h) or None) of `image`, fitted to `max_side` and MAX_BYTES."""
    _check_source(image)
    if isinstance(image, (str, os.PathLike)):
        # Read whole: a sparse file of terabytes would fill the kernel's memory first (as for view()).
        with open_regular(os.fspath(image), FILE_CAP, ("look()", "make a smaller image of it first")) as f:
            return _from_bytes(f.read(), max_side, label)
    if isinstance(image, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(image), max_side, label)
    if _is_figure(image):
        return _from_figure(image, max_side, label)
    if _is_pil(image):
        return _from_pil(image, max_side, label)
    if hasattr(image, "__array_interface__") or hasattr(image, "__array__"):
        return _from_array(image, max_side, label)
    png = image._repr_png_()
    if not png:
        raise TypeError(f"look(): {label} has no PNG form")
    return _from_bytes(png, max_side, label)


def _sniff(data):
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _dims(data, mime):
    """(width, height) from the header, or None when it cannot be read without a decoder."""
    try:
        if mime == "image/png":
            return struct.unpack(">II", data[16:24])
        if mime == "image/gif":
            return struct.unpack("<HH", data[6:10])
        if mime == "image/jpeg":
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    return None
                marker = data[i + 1]
                length = struct.unpack(">H", data[i + 2 : i + 4])[0]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return (w, h)
                i += 2 + length
    except struct.error:
        return None
    return None


def _from_bytes(data, max_side, label):
    mime = _sniff(data)
    if mime is None:
        raise ValueError(f"look(): {label} is not a PNG, JPEG, GIF or WebP image")
    size = _dims(data, mime)
    fits = len(data) <= MAX_BYTES and size is not None and max(size) <= max_side
    if fits:
        return data, mime, size
    Image = _pil()
    if Image is not None:
        return _from_pil(Image.open(io.BytesIO(data)), max_side, label)
    if len(data) <= MAX_BYTES and (size is None or max(size) <= MAX_PIXELS_SIDE):
        # Over max_side but within what models take: sent as it is (the model scales it itself).
        return data, mime, size
    why = f"{_kb(len(data))}" + (f", {size[0]}×{size[1]} px" if size else "")
    raise ValueError(
        f"look(): {label} is too big to send as it is ({why}; the limit is {_kb(MAX_BYTES)} and "
        f"{MAX_PIXELS_SIDE} px) and Pillow is not installed to downscale it. Install it (pip install "
        "pillow), or load it as a numpy array and pass that"
    )


def _from_figure(fig, max_side, label):
    if getattr(fig, "__name__", "") == "matplotlib.pyplot":
        fig = fig.gcf()
    elif not hasattr(fig, "savefig"):
        fig = fig.figure
    w_in, h_in = fig.get_size_inches()
    # A dpi that makes the long side at most max_side pixels (figures are usually 6.4×4.8 in).
    dpi = min(150.0, max_side / max(w_in, h_in, 0.1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return _from_bytes(buf.getvalue(), max_side, label)


def _from_pil(img, max_side, label):
    img = img.copy()
    if img.mode not in ("RGB", "RGBA", "L", "LA"):
        img = img.convert("RGBA" if "A" in img.getbands() or "transparency" in img.info else "RGB")
    img.thumbnail((max_side, max_side))
    for fmt, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg")):
        if fmt == "JPEG" and img.mode not in ("RGB", "L"):
            img = img.convert("RGB")
        buf = io.BytesIO()
        img.save(buf, format=fmt, **({"quality": 85} if fmt == "JPEG" else {"optimize": True}))
        if buf.tell() <= MAX_BYTES:
            return buf.getvalue(), mime, img.size
    raise ValueError(f"look(): {label} is over {_kb(MAX_BYTES)} even downscaled to {img.size[0]}×{img.size[1]}")


def _from_array(arr, max_side, label):
    import numpy as np

    a = np.asarray(arr)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] in (3, 4))) or a.size == 0:
        raise ValueError(f"look(): {label} must be H×W (gray), H×W×3 (RGB) or H×W×4 (RGBA), got shape {a.shape}")
    a = _to_uint8(a, np, label)
    Image = _pil()
    if Image is not None:
        return _from_pil(Image.fromarray(a), max_side, label)
    step = max(1, math.ceil(max(a.shape[:2]) / max_side))
    while True:
        small = np.ascontiguousarray(a[::step, ::step])
        data = _png(small)
        if len(data) <= MAX_BYTES:
            return data, "image/png", (small.shape[1], small.shape[0])
        step *= 2


def _to_uint8(a, np, label):
    if a.dtype == np.uint8:
        return a
    if a.dtype == bool:
        return a.astype(np.uint8) * 255
    if np.issubdtype(a.dtype, np.floating):
        finite = a[np.isfinite(a)]
        top = float(finite.max()) if finite.size else 0.0
        scaled = a * 255.0 if top <= 1.0 else a
        return np.clip(np.nan_to_num(scaled), 0, 255).astype(np.uint8)
    if np.issubdtype(a.dtype, np.integer):
        return np.clip(a, 0, 255).astype(np.uint8)
    raise TypeError(f"look(): {label} has dtype {a.dtype}; give numbers (uint8, bool, or floats in 0..1)")


def _png(a):
    """A PNG of a uint8 array with the standard library only (zlib), for kernels without Pillow."""
    import numpy as np

    h, w = a.shape[:2]
    color = {2: 0, 3: {3: 2, 4: 6}.get(a.shape[2] if a.ndim == 3 else 0)}[a.ndim]
    rows = a.reshape(h, -1)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


EXPORTS = {"look": look}
