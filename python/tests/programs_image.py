"""TF 1.x programs of the image geometry API (image_ops.py): resize_images / resize with every
method (ResizeMethod's ints and the names), resize_bicubic / resize_area, crop_and_resize,
non_max_suppression and its _padded, _with_scores and _overlaps forms, and the gradients of
the resizes and of crop_and_resize: node names and op types, values on fixed inputs, and the
errors of bad arguments. Recorded by gen_expectations.py into expectations_image.json.
Floats are rounded to 4 decimals.
"""
import numpy as np

from programs import _ops, _val


def _r(v, decimals=4):
    if isinstance(v, (list, tuple)):
        return [_r(x, decimals) for x in v]
    a = np.asarray(v)
    if a.dtype.kind == "f":
        r = _val(v)
        r["value"] = np.round(a.astype(np.float64), decimals).tolist()
        return r
    return _val(v)


def _run(tf, ts):
    with tf.Session() as s:
        return s.run(ts)


def _img(tf):
    return tf.constant(np.arange(2 * 3 * 5 * 2, dtype=np.float32).reshape(2, 3, 5, 2) * 1.5 - 7)


def resize_methods(tf):
    x = _img(tf)
    M = tf.image.ResizeMethod
    r = [tf.image.resize_images(x, [4, 7], method=M.BICUBIC), tf.image.resize_images(x, [2, 3], method=M.AREA),
         tf.image.resize_images(x, [5, 3], method=M.AREA, align_corners=True),
         tf.image.resize_images(x[0], [4, 4], method=M.BICUBIC, align_corners=True),
         tf.image.resize(x, [3, 8], method="bicubic"), tf.image.resize(x, [2, 2], method="area"),
         tf.image.resize(x, [4, 4], method="nearest"), tf.image.resize(x, [4, 4], method="bilinear"),
         tf.image.resize_bicubic(x, [5, 6], half_pixel_centers=True), tf.image.resize_area(x, [2, 4]),
         tf.image.resize_images(tf.cast(tf.abs(x), tf.uint8), [4, 6], method=M.BICUBIC)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def resize_unknown_method(tf):
    tf.image.resize_images(tf.ones([1, 2, 2, 1]), [4, 4], method=7)


def crops(tf):
    x = _img(tf)
    boxes = tf.constant([[0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.2, -0.3]])
    r = [tf.image.crop_and_resize(x, boxes, [0, 1, 1], [3, 4]),
         tf.image.crop_and_resize(x, boxes, [1, 0, 1], [2, 2], method="nearest", extrapolation_value=-1.0,
                                  name="nearest"),
         tf.image.crop_and_resize(x, boxes, crop_size=[1, 1], box_indices=[0, 0, 1])]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def crop_box_index_out_of_range(tf):
    r = tf.image.crop_and_resize(_img(tf), [[0, 0, 1, 1.0]], [2], [2, 2])
    _run(tf, r)


def _boxes(tf):
    rng = np.random.RandomState(5)
    c = rng.uniform(0, 1, (12, 2))
    hw = rng.uniform(0.1, 0.5, (12, 2))
    b = np.concatenate([c - hw / 2, c + hw / 2], 1).astype(np.float32)
    s = rng.uniform(0, 1, 12).astype(np.float32)
    s[4] = s[7]
    return tf.constant(b), tf.constant(s)


def suppressions(tf):
    b, s = _boxes(tf)
    ov = tf.constant(np.random.RandomState(6).uniform(0, 1, (12, 12)).astype(np.float32))
    r = [tf.image.non_max_suppression(b, s, 6), tf.image.non_max_suppression(b, s, 10, 0.3, 0.4, name="nms"),
         tf.image.non_max_suppression_with_scores(b, s, 8, 0.5, 0.1, soft_nms_sigma=0.5),
         tf.image.non_max_suppression_with_scores(b, s, 5),
         tf.image.non_max_suppression_overlaps(ov, s, 5, 0.6)]
    flat = []
    for t in r:
        flat += list(t) if isinstance(t, tuple) else [t]
    return {"ops": _ops(tf), "names": [t.name for t in flat], "shapes": [str(t.shape) for t in flat],
            "values": _r(_run(tf, flat))}


def combined_suppression(tf):
    rng = np.random.RandomState(9)
    c = rng.uniform(-0.1, 1.1, (2, 6, 1, 2))
    boxes = tf.constant(np.concatenate([c - 0.2, c + 0.2], 3).astype(np.float32))
    scores = tf.constant(rng.uniform(0, 1, (2, 6, 3)).astype(np.float32))
    r = list(tf.image.combined_non_max_suppression(boxes, scores, 2, 5, 0.4, 0.1)) + list(
        tf.image.combined_non_max_suppression(boxes, scores, 1, 8, pad_per_class=True, clip_boxes=False))
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def suppression_padded(tf):
    """Values only: 2.x's non_max_suppression_padded builds another graph (1.15's is the V4
    op) that selects the same boxes here."""
    b, s = _boxes(tf)
    r = tf.image.non_max_suppression_padded(b, s, 8, 0.3, 0.2, pad_to_max_output_size=True)
    r2 = tf.image.non_max_suppression_padded(b, s, 8, 0.3, 0.2)
    return {"values": _r(_run(tf, list(r) + list(r2)))}


def suppression_bad_threshold(tf):
    b, s = _boxes(tf)
    _run(tf, tf.image.non_max_suppression(b, s, 3, iou_threshold=1.5))


def gradients(tf):
    x = _img(tf)
    boxes = tf.constant([[0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]])
    ys = [tf.image.resize_bilinear(x, [4, 7]), tf.image.resize_nearest_neighbor(x, [2, 3], half_pixel_centers=True),
          tf.image.resize_bicubic(x, [4, 3], align_corners=True), tf.image.crop_and_resize(x, boxes, [0, 1], [3, 3])]
    w = [tf.constant(np.linspace(-1, 1, int(np.prod(y.shape.as_list()))).reshape(y.shape.as_list()), tf.float32)
         for y in ys]
    g = tf.gradients(ys, [x, boxes], grad_ys=w)
    return {"ops": _ops(tf), "names": [t.name for t in g], "values": _r(_run(tf, g), 3)}


PROGRAMS = [resize_methods, resize_unknown_method, crops, crop_box_index_out_of_range, suppressions,
            combined_suppression, suppression_padded, suppression_bad_threshold, gradients]

def _combined_115(e):
    """1.15 hands max_total_size to the op (2.x converts it first, a Const named "Const")."""
    ops = e["result"]["ops"]
    for scope in ("combined_non_max_suppression", "combined_non_max_suppression_1"):
        i = ops.index([scope + "/Const", "Const"])
        del ops[i]
        j = ops.index([scope + "/CombinedNonMaxSuppression/max_output_size_per_class", "Const"])
        ops.insert(j + 1, [scope + "/CombinedNonMaxSuppression/max_total_size", "Const"])


TF115 = {
    "combined_suppression": _combined_115,
    # 1.15's text (2.x added the method)
    "resize_unknown_method": {"error": ["ValueError", "Resize method is not implemented."]},
}
