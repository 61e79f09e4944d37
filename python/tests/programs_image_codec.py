"""TF 1.x programs of the image codecs (ops/image_codec_ops.py): node names and op types, static
shapes, encoded bytes and decoded pixels on a fixed image, and the errors of bad input.
Recorded by gen_expectations.py into expectations_image_codec.json.

decode_image is TF 2.x's compat.v1 function (one DecodeImage op); TF 1.15 built it from a
tf.cond over Substr checks, so its node lists would differ there by design.
"""
import numpy as np

from programs import _ops, _val


def _run(tf, ts, feed=None):
    with tf.Session() as s:
        return s.run(ts, feed)


def _first_line(tf, t, feed=None):
    try:
        _run(tf, t, feed)
    except tf.errors.OpError as e:
        lines = [x for x in str(e).split("\n") if x and not x.startswith(("Graph execution error",
                                                                            "Detected at node", "  ", "Node:"))]
        return [type(e).__name__, lines[0]]
    return None


def _image(h, w, c):
    y, x = np.mgrid[0:h, 0:w]
    chans = [(np.sin(x / (2.0 + k) + k) + np.cos(y / (3.0 + k))) * 60 + 128 for k in range(c)]
    return np.clip(np.stack(chans, -1), 0, 255).astype(np.uint8)


IMG = _image(9, 14, 3)


def codec_round_trips(tf):
    img = tf.constant(IMG, name="img")
    png = tf.image.encode_png(img)
    jpg = tf.image.encode_jpeg(img, quality=90, name="jpg")
    gray = tf.io.encode_jpeg(img[:, :, :1], format="grayscale", progressive=True)
    r = [tf.image.decode_png(png), tf.io.decode_jpeg(jpg), tf.image.decode_jpeg(jpg, channels=1, ratio=2),
         tf.image.decode_jpeg(jpg, dct_method="INTEGER_ACCURATE", fancy_upscaling=False),
         tf.io.decode_image(gray), tf.image.extract_jpeg_shape(jpg), tf.io.extract_jpeg_shape(gray, tf.int64),
         tf.image.decode_and_crop_jpeg(jpg, [1, 2, 5, 6], name="crop"), tf.image.is_jpeg(jpg), tf.io.is_jpeg(png)]
    return {"ops": _ops(tf), "shapes": [str(t.shape) for t in r], "bytes": _val(_run(tf, [png, jpg, gray])),
            "values": _val(_run(tf, r))}


def decode_image_dtypes(tf):
    img = tf.constant(IMG, name="img")
    png = tf.image.encode_png(img)
    r = [tf.image.decode_image(png), tf.image.decode_image(png, dtype=tf.float32),
         tf.image.decode_image(png, dtype=tf.uint16, channels=1), tf.image.decode_image(png, dtype=tf.int32),
         tf.image.decode_image(png, channels=4, expand_animations=False),
         tf.io.decode_png(png, dtype=tf.uint16), tf.io.decode_bmp(tf.constant(BMP))]
    out = _run(tf, r)
    out[1] = np.round(out[1].astype(np.float64), 6)
    return {"ops": _ops(tf), "shapes": [str(t.shape) for t in r], "values": _val(out)}


# A 2x3 24-bit bottom-up BMP (rows padded to 4 bytes).
BMP = (b"BM" + (54 + 24).to_bytes(4, "little") + b"\0\0\0\0" + (54).to_bytes(4, "little") +
       (40).to_bytes(4, "little") + (3).to_bytes(4, "little") + (2).to_bytes(4, "little") + b"\1\0\x18\0" +
       b"\0" * 24 + bytes([10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0]))


# A two-frame 4x3 GIF (Pillow's; the second frame has a transparent index).
GIF = (b"GIF89a\x04\x00\x03\x00\x81\x00\x00\x002\xc8\x00\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x00\x05\x00"
       b"\x00\x00,\x00\x00\x00\x00\x04\x00\x03\x00\x00\x08\x08\x00\x01\x08\x1cHP`@\x00!\xf9\x04\x01\x05\x00\x02"
       b"\x00,\x00\x00\x00\x00\x04\x00\x03\x00\x81\xff\x00\x00\n2\xa0\x00\x00\x00\x00\x00\x00\x08\x0b\x00\x03\x08"
       b"\x14\x08\x00\xc0@\x81\x01\x01\x00;")


def gifs(tf):
    g = tf.constant(GIF, name="gif")
    r = [tf.image.decode_gif(g), tf.io.decode_gif(g, name="frames"), tf.image.decode_image(g),
         tf.image.decode_image(g, expand_animations=False)]
    return {"ops": _ops(tf), "shapes": [str(t.shape) for t in r], "values": _val(_run(tf, r)),
            "still_only": _first_line(tf, tf.image.decode_png(g))}


def codec_errors(tf):
    p = tf.placeholder(tf.string, [], name="p")
    img = tf.constant(IMG, name="img")
    return {"junk": _first_line(tf, tf.image.decode_jpeg(p), {p: b"junk bytes"}),
            "empty": _first_line(tf, tf.image.decode_png(p), {p: b""}),
            "truncated": _first_line(tf, tf.image.decode_jpeg(p), {p: _run(tf, tf.image.encode_jpeg(img))[:300]}),
            "shape": _first_line(tf, tf.image.extract_jpeg_shape(p), {p: b"\x89PNG"}),
            "bmp_as_png": _first_line(tf, tf.image.decode_png(p), {p: BMP}),
            "crop": _first_line(tf, tf.image.decode_and_crop_jpeg(p, [0, 0, 10, 2]),
                                {p: _run(tf, tf.image.encode_jpeg(img))}),
            "quality": _first_line(tf, tf.image.encode_jpeg(img, quality=101)),
            "grayscale": _first_line(tf, tf.image.encode_jpeg(img, format="grayscale"))}


def decode_jpeg_bad_rank(tf):
    tf.image.decode_jpeg(tf.constant([b"a", b"b"]))


PROGRAMS = [codec_round_trips, decode_image_dtypes, gifs, codec_errors, decode_jpeg_bad_rank]


def _err(cls, msg):
    return {"error": [cls, msg]}


TF115 = {
    # 1.15's shape error text (2.x prints the NodeDef)
    "decode_jpeg_bad_rank": _err("ValueError", "Shape must be rank 0 but is rank 1 for 'DecodeJpeg' (op: 'DecodeJpeg') "
                                               "with input shapes: [2]."),
}
