#!/usr/bin/env python3
"""Write the origin files of Benchmarks/fetch/run.sh: bodies shaped like what a cache in front of an
ordinary web origin is asked for, so that the origin's compression and Vary behave as they do in use.

Usage: make-bodies.py OUTPUT_DIR KIND:BYTES:FILE [KIND:BYTES:FILE ...]

KIND is one of
  text  English-like prose (words of Zipf-like frequencies, sentences, paragraphs): compresses as real
        text does (gzip to about a third at 64 KiB), which random bytes never do;
  json  an API answer: an array of records with ids, names, e-mail addresses, dates, tags and nested
        objects, the mix of repeated keys and varied values that real JSON compresses like;
  jpeg  a baseline JPEG of a photo-like picture (smooth light, shapes, sensor noise), its dimensions
        searched until the file is within 4% of BYTES, the way an image CDN's thumbnails are sized;
  bin   random bytes (incompressible; a stand-in for archives, video segments and the like).
Every file is made from a fixed seed, so that two runs serve the same bytes. Text and JSON stop at BYTES
exactly (JSON at the last whole record that fits, then closed). Requires Pillow for jpeg (it is in
scripts/python-requirements.txt); exits with status 3 when it is missing.
"""
import io
import json
import os
import random
import sys

# Common English words, most frequent first; drawn with Zipf-like weights so the text has real text's
# skewed word distribution (what makes deflate's Huffman codes pay off), not a uniform one.
WORDS = """the of and to a in is it you that he was for on are with as his they be at one have this from
or had by hot word but what some we can out other were all there when up use your how said an each she
which do their time if will way about many then them write would like so these her long make thing see
him two has look more day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live where after back
little only round man year came show every good me give our under name very through just form sentence
great think say help low line differ turn cause much mean before move right boy old too same tell does
set three want air well also play small end put home read hand port large spell add even land here must
big high such follow act why ask men change went light kind off need house picture try us again animal
point mother world near build self earth father head stand own page should country found answer school
grow study still learn plant cover food sun four between state keep eye never last let thought city tree
cross farm hard start might story saw far sea draw left late run while press close night real life few
north open seem together next white children begin got walk example ease paper group always music those
both mark often letter until mile river car feet care second book carry took science eat room friend
began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl
usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song
measure door product black short numeral class wind question happen complete ship area half rock order
fire south problem piece told knew pass since top whole king space heard best hour better true during
hundred five remember step early hold west ground interest reach fast verb sing listen six table travel
less morning ten simple several vowel toward war lay against pattern slow center love person money serve
appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry
dark machine note wait plan figure star box noun field rest correct able pound done beauty drive stood
contain front teach week final gave green oh quick develop ocean warm free minute strong special mind
behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object
decide surface deep moon island foot system busy test record boat common gold possible plane stead dry
wonder laugh thousand ago ran check game shape equate miss brought heat snow tire bring yes distant fill
east paint language among""".split()


def text(size, rng):
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    out = []
    length = 0
    while length < size:
        paragraph = []
        for _ in range(rng.randint(3, 7)):
            words = rng.choices(WORDS, weights, k=rng.randint(6, 22))
            sentence = " ".join(words)
            paragraph.append(sentence[0].upper() + sentence[1:] + rng.choice(".....?!"))
        block = " ".join(paragraph) + "\n\n"
        out.append(block)
        length += len(block)
    return "".join(out).encode()[:size]


def json_document(size, rng):
    first = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Dennis", "Margaret", "Donald", "Frances"]
    last = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Thompson", "Ritchie", "Hamilton", "Knuth"]
    tags = ["new", "sale", "featured", "limited", "eco", "imported", "handmade", "bestseller", "gift"]
    cities = ["Lisbon", "Osaka", "Toronto", "Nairobi", "Oslo", "Lima", "Perth", "Gdansk", "Austin"]
    head, tail = '{"page":1,"items":[', '],"next":"/v1/items?page=2"}'
    records = []
    length = len(head) + len(tail)
    while True:
        i = len(records) + 1
        name = f"{rng.choice(first)} {rng.choice(last)}"
        record = json.dumps({
            "id": 100000 + i * 7 + rng.randint(0, 6),
            "sku": f"SKU-{rng.randint(0, 999999):06d}",
            "name": name,
            "email": f"{name.lower().replace(' ', '.')}{rng.randint(1, 99)}@example.com",
            "created_at": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                          f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
            "price": round(rng.uniform(1, 500), 2),
            "currency": "EUR",
            "in_stock": rng.random() > 0.3,
            "tags": rng.sample(tags, rng.randint(0, 3)),
            "image": f"https://cdn.example.com/images/{i:06d}.jpg",
            "seller": {"id": rng.randint(1, 5000), "city": rng.choice(cities),
                       "rating": round(rng.uniform(3, 5), 1)},
        }, separators=(",", ":"))
        if length + len(record) + 1 > size:
            break
        records.append(record)
        length += len(record) + 1
    document = (head + ",".join(records) + tail).encode()
    # Pads with spaces after the last record (valid JSON whitespace) so the file is exactly `size`.
    return document[:-len(tail)] + b" " * (size - len(document)) + tail.encode()


def jpeg(size, rng):
    try:
        from PIL import Image, ImageDraw, ImageFilter
    except ImportError:
        sys.stderr.write("Pillow is not installed (pip install Pillow)\n")
        sys.exit(3)

    def picture(width, height):
        # Smooth light across the frame, a few soft shapes and fine noise: what a photo's 8x8 blocks look
        # like to the encoder. Flat colours would encode far smaller than a photo of the same size.
        seed = random.Random(11)
        image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
        draw = ImageDraw.Draw(image)
        for _ in range(12):
            x, y = seed.randrange(width), seed.randrange(height)
            r = seed.randint(width // 12 + 1, width // 4 + 2)
            draw.ellipse((x - r, y - r, x + r, y + r),
                         fill=(seed.randrange(256), seed.randrange(256), seed.randrange(256)))
        image = image.filter(ImageFilter.GaussianBlur(max(1, width // 80)))
        noise = Image.effect_noise((width, height), 24).convert("RGB")
        return Image.blend(image, noise, 0.12)

    def encoded(width):
        out = io.BytesIO()
        picture(width, width * 3 // 4).save(out, "JPEG", quality=82, optimize=True)
        return out.getvalue()

    low, high = 16, 4096
    best = encoded(low)
    while low <= high:
        width = (low + high) // 2
        data = encoded(width)
        if abs(len(data) - size) < abs(len(best) - size):
            best = data
        if len(data) < size:
            low = width + 1
        else:
            high = width - 1
    if abs(len(best) - size) > size * 0.04:
        sys.stderr.write(f"no JPEG within 4% of {size} bytes (closest {len(best)})\n")
        sys.exit(1)
    return best


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    makers = {"text": text, "json": json_document, "jpeg": jpeg, "bin": lambda size, rng: rng.randbytes(size)}
    for spec in sys.argv[2:]:
        kind, size, name = spec.split(":", 2)
        if kind not in makers:
            sys.stderr.write(f"unknown body kind {kind!r} in {spec!r}\n")
            return 2
        with open(os.path.join(sys.argv[1], name), "wb") as out:
            out.write(makers[kind](int(size), random.Random(f"{kind}:{size}")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
