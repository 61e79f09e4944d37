"""The image codecs with TF 1.x's signatures (tf.image.* and their tf.io.* aliases) over
ops_codec.def's ops: decode_jpeg, decode_and_crop_jpeg, extract_jpeg_shape, decode_png,
decode_bmp, decode_gif, decode_image, encode_jpeg, encode_png, is_jpeg.

decode_image is TF 2.x's compat.v1 function, one DecodeImage op (TF 1.15 built a tf.cond
over Substr checks and the per-format decoders, GIF's included, which tfc lacks); a dtype other
than uint8, uint16 and float32 decodes at uint16 and goes through convert_image_dtype, and with
expand_animations=False the shape is set to rank 3, as TF does.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import gen


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    return gen.apply("DecodeJpeg", name, contents=contents, channels=channels, ratio=ratio,
                     fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                     acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    return gen.apply("DecodeAndCropJpeg", name, contents=contents, crop_window=crop_window, channels=channels,
                     ratio=ratio, fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                     acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    return gen.apply("ExtractJpegShape", name, contents=contents, output_type=output_type)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    return gen.apply("DecodePng", name, contents=contents, channels=channels, dtype=dtype)


def decode_bmp(contents, channels=0, name=None):
    return gen.apply("DecodeBmp", name, contents=contents, channels=channels)


def decode_gif(contents, name=None):
    return gen.apply("DecodeGif", name, contents=contents)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    from tfc.ops import image_ops
    with ops.name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes.as_dtype(dtype)
        decode_as = dtype if dtype in (dtypes.float32, dtypes.uint8, dtypes.uint16) else dtypes.uint16
        image = gen.apply("DecodeImage", None, contents=contents, channels=channels,
                          expand_animations=expand_animations, dtype=decode_as)
        if decode_as != dtype:
            image = image_ops.convert_image_dtype(image, dtype)
        if not expand_animations:
            image.set_shape([None, None, channels if channels else None])
        return image


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 (TF's name)
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    return gen.apply("EncodeJpeg", name, image=image, format=format, quality=quality, progressive=progressive,
                     optimize_size=optimize_size, chroma_downsampling=chroma_downsampling,
                     density_unit=density_unit, x_density=x_density, y_density=y_density,
                     xmp_metadata=xmp_metadata)


def encode_png(image, compression=-1, name=None):
    return gen.apply("EncodePng", name, image=image, compression=compression)


def is_jpeg(contents, name=None):
    """Whether contents starts with JPEG's FF D8 FF (Substr and Equal, as TF's)."""
    from tfc.ops import math_ops, string_ops
    with ops.name_scope(name, "is_jpeg"):
        substr = string_ops.substr(contents, 0, 3)
        return math_ops.equal(substr, b"\xff\xd8\xff", name=name)


NAMES = ("decode_jpeg decode_and_crop_jpeg extract_jpeg_shape decode_png decode_bmp decode_gif decode_image encode_jpeg "
         "encode_png is_jpeg").split()
