#!/usr/bin/env python3
"""Write a corpus of small valid images, made with Pillow, for the ImageSniffing tests.

Usage: make-image-corpus.py OUTPUT_DIR

Writes the images into OUTPUT_DIR and a manifest, OUTPUT_DIR/manifest.tsv, with one line per file:
name, format (ImageFormat raw value), width, height, separated by tabs. Formats Pillow cannot write
(HEIC, CUR, ...) are crafted by the Swift tests themselves. Requires Pillow (pip install Pillow);
exits with status 3 when it is missing so the tests can say so.
"""
import io
import os
import random
import sys

try:
    from PIL import Image, features
except ImportError:
    sys.stderr.write("Pillow is not installed (pip install Pillow)\n")
    sys.exit(3)


def noise(mode, size, seed):
    rng = random.Random(seed)
    image = Image.new("RGB", size)
    image.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(size[0] * size[1])])
    return image.convert(mode)


def gradient(mode, size):
    width, height = size
    image = Image.new("RGB", size)
    image.putdata([(x * 255 // max(width - 1, 1), y * 255 // max(height - 1, 1), (x + y) % 256)
                   for y in range(height) for x in range(width)])
    return image.convert(mode)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = []

    def save(name, fmt, image, pil_format, **options):
        path = os.path.join(out, name)
        image.save(path, pil_format, **options)
        manifest.append((name, fmt, image.size[0], image.size[1]))

    # PNG: every colour type, low and high bit depths, ancillary chunks, several IDATs.
    save("rgb.png", "png", gradient("RGB", (37, 19)), "PNG")
    save("rgba.png", "png", gradient("RGBA", (8, 8)), "PNG")
    save("grey.png", "png", gradient("L", (5, 3)), "PNG")
    save("grey-alpha.png", "png", gradient("LA", (6, 4)), "PNG")
    save("bilevel.png", "png", gradient("1", (17, 9)), "PNG")
    save("palette.png", "png", gradient("P", (10, 10)), "PNG")
    save("grey16.png", "png", gradient("I;16", (4, 4)), "PNG")
    from PIL import PngImagePlugin
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "made for the ImageSniffing tests")
    save("text-chunk.png", "png", gradient("RGB", (3, 2)), "PNG", pnginfo=info)
    save("many-idat.png", "png", noise("RGB", (200, 200), 1), "PNG", compress_level=0)

    # JPEG: baseline and progressive, grey, CMYK, subsamplings, restart markers.
    save("baseline.jpg", "jpeg", gradient("RGB", (33, 17)), "JPEG", quality=80)
    save("progressive.jpg", "jpeg", noise("RGB", (40, 30), 2), "JPEG", progressive=True)
    save("grey.jpg", "jpeg", gradient("L", (16, 16)), "JPEG")
    save("cmyk.jpg", "jpeg", gradient("CMYK", (8, 8)), "JPEG")
    save("444.jpg", "jpeg", noise("RGB", (9, 11), 3), "JPEG", subsampling=0, optimize=True)
    try:
        save("restart.jpg", "jpeg", noise("RGB", (64, 48), 4), "JPEG", restart_marker_blocks=1)
    except (TypeError, ValueError, OSError):
        manifest[:] = [entry for entry in manifest if entry[0] != "restart.jpg"]

    # GIF: 87a still, 89a with transparency, animation with local colour tables.
    save("still.gif", "gif", gradient("P", (20, 10)), "GIF")
    save("transparent.gif", "gif", gradient("P", (7, 5)), "GIF", transparency=0)
    frames = [noise("P", (16, 16), seed) for seed in range(3)]
    path = os.path.join(out, "animated.gif")
    frames[0].save(path, "GIF", save_all=True, append_images=frames[1:], duration=50, loop=0)
    manifest.append(("animated.gif", "gif", 16, 16))

    # BMP: 1, 8, 24 and 32 bits, with row padding.
    save("rgb.bmp", "bmp", gradient("RGB", (13, 7)), "BMP")
    save("bilevel.bmp", "bmp", gradient("1", (9, 9)), "BMP")
    save("palette.bmp", "bmp", gradient("P", (5, 5)), "BMP")
    save("grey.bmp", "bmp", gradient("L", (3, 6)), "BMP")
    save("rgba.bmp", "bmp", gradient("RGBA", (4, 4)), "BMP")

    # TIFF: raw, LZW, PackBits, grey, two pages, big-endian where Pillow can.
    save("raw.tiff", "tiff", gradient("RGB", (10, 10)), "TIFF")
    save("lzw.tiff", "tiff", noise("RGB", (12, 8), 5), "TIFF", compression="tiff_lzw")
    save("packbits.tiff", "tiff", gradient("L", (20, 3)), "TIFF", compression="packbits")
    pages = [gradient("RGB", (6, 6)), gradient("L", (3, 3))]
    path = os.path.join(out, "two-pages.tiff")
    pages[0].save(path, "TIFF", save_all=True, append_images=pages[1:])
    manifest.append(("two-pages.tiff", "tiff", 6, 6))
    try:
        save("big-endian.tiff", "tiff", gradient("RGB", (5, 4)), "TIFF", big_endian=True)
        with open(os.path.join(out, "big-endian.tiff"), "rb") as f:
            if f.read(2) != b"MM":
                os.remove(os.path.join(out, "big-endian.tiff"))
                manifest.pop()
    except (TypeError, ValueError, OSError, KeyError):
        manifest[:] = [entry for entry in manifest if entry[0] != "big-endian.tiff"]

    # ICO: PNG images and DIB images, several sizes (the largest is reported).
    save("png-images.ico", "ico", gradient("RGBA", (32, 32)), "ICO", sizes=[(16, 16), (32, 32)])
    save("dib-images.ico", "ico", gradient("RGBA", (24, 24)), "ICO", sizes=[(8, 8), (24, 24)], bitmap_format="bmp")

    # WebP: lossy (VP8), lossless (VP8L), lossy with alpha (VP8X + ALPH), animated (VP8X + ANMF).
    if features.check("webp"):
        save("lossy.webp", "webp", noise("RGB", (30, 20), 6), "WEBP", quality=50)
        save("lossless.webp", "webp", gradient("RGB", (17, 13)), "WEBP", lossless=True)
        translucent = gradient("RGB", (9, 7))
        translucent.putalpha(gradient("L", (9, 7)))
        save("alpha.webp", "webp", translucent, "WEBP", quality=60)
        frames = [noise("RGB", (12, 10), seed) for seed in range(3)]
        path = os.path.join(out, "animated.webp")
        frames[0].save(path, "WEBP", save_all=True, append_images=frames[1:], duration=40, loop=0)
        manifest.append(("animated.webp", "webp", 12, 10))

    # AVIF, where this Pillow has the encoder.
    if features.check("avif"):
        save("still.avif", "avif", gradient("RGB", (24, 16)), "AVIF", quality=50)
        translucent = gradient("RGB", (9, 7))
        translucent.putalpha(gradient("L", (9, 7)))
        save("alpha.avif", "avif", translucent, "AVIF", quality=50)
        frames = [noise("RGB", (10, 8), seed) for seed in range(2)]
        path = os.path.join(out, "animated.avif")
        frames[0].save(path, "AVIF", save_all=True, append_images=frames[1:], duration=40, quality=50)
        manifest.append(("animated.avif", "avif", 10, 8))

    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        for name, fmt, width, height in manifest:
            f.write(f"{name}\t{fmt}\t{width}\t{height}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
