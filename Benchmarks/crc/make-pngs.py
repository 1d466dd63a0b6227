#!/usr/bin/env python3
"""Write the PNG files the CRC benchmark validates (Pillow, fixed seed).

Usage: make-pngs.py OUTPUT_DIR

icon.png: 64x64 RGBA gradient (a few KiB, a handful of chunks); screenshot.png: 1280x800 RGB, flat
areas and text-like strokes; photo.png: 1920x1080 RGB, blurred noise over a gradient (a photograph's
entropy, some MiB in 64 KiB IDAT chunks, as Pillow and libpng write them).
"""
import os
import random
import sys

try:
    from PIL import Image, ImageDraw, ImageFilter
except ImportError:
    sys.stderr.write("Pillow is not installed (pip install Pillow)\n")
    sys.exit(3)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(7)

    icon = Image.new("RGBA", (64, 64))
    icon.putdata([(x * 4 ^ rng.randrange(16), y * 4 ^ rng.randrange(16), (x + y) * 2, 255 - x)
                  for y in range(64) for x in range(64)])
    icon.save(os.path.join(out, "icon.png"))

    screenshot = Image.new("RGB", (1280, 800), (246, 246, 248))
    draw = ImageDraw.Draw(screenshot)
    for row in range(60, 780, 18):
        x = 40
        while x < 1200:
            width = rng.randrange(8, 60)
            draw.rectangle([x, row, x + width, row + 9], fill=(rng.randrange(20, 90),) * 3)
            x += width + rng.randrange(5, 14)
    screenshot.save(os.path.join(out, "screenshot.png"))

    width, height = 1920, 1080
    noise = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    base = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    photo = Image.blend(base, noise.filter(ImageFilter.GaussianBlur(1.2)), 0.6)
    photo.save(os.path.join(out, "photo.png"))


if __name__ == "__main__":
    main()
