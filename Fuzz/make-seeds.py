#!/usr/bin/env python3
"""Writes the seed corpora of the HTTPParser, URLCanonicalization, ChunkInflate, FilterJSON and
ConnectionStateMachine fuzz targets (Fuzz/<target>/seeds/), so they can be regenerated and reviewed: `Fuzz/make-seeds.py`.
ImageSniffing's seeds come from its test suite (Tests/ImageSniffingTests/SeedExportTests.swift).
Inputs that the fuzzer found (crash-*, timeout-*) are kept in seeds/ under their own names; this
script leaves files it does not write alone."""
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(ROOT, target, "seeds")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as file:
        file.write(data)


# HTTPParser: 3 control bytes (split position, piece size), then the stream.
def http(name, stream, split=7, piece=3):
    write("HTTPParser", name, struct.pack(">HB", split, piece) + stream)


http("get", b"GET /fetch?url=http%3A%2F%2Fexample.com%2Fa.png HTTP/1.1\r\nHost: larder\r\nAccept: */*\r\n\r\n")
http("pipelined", b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\nHEAD /cache HTTP/1.1\r\nHost: a\r\n\r\n", split=40)
http("content-length", b"PUT /filters HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n{\"name\":1}x")
http("chunked", b"POST /filters HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"4;ext=1\r\n{\"na\r\n5\r\nme\":1\r\n0\r\nX-Trailer: t\r\n\r\n", split=60, piece=1)
http("expect-continue", b"POST /filters HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n[]")
http("http10", b"\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
http("absolute-form", b"GET http://larder:8080/healthz?x=1 HTTP/1.1\r\nHost: larder:8080\r\n\r\n")
http("asterisk", b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n")
http("obs-fold", b"GET / HTTP/1.1\r\nHost: a\r\nX-Long: one\r\n two\r\n\r\n")
http("bare-lf", b"GET / HTTP/1.1\nHost: a\n\n")
http("obs-text", b"GET / HTTP/1.1\r\nHost: a\r\nUser-Agent: caf\xc3\xa9 \xff\r\n\r\n")
http("duplicate-length", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
http("length-and-chunked", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
http("gzip-chunked", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")
http("nul-in-value", b"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\x00b\r\n\r\n")
http("cr-in-value", b"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\rInjected: b\r\n\r\n")
http("space-before-colon", b"GET / HTTP/1.1\r\nHost : a\r\n\r\n")
http("bad-version", b"GET / HTTP/2.0\r\nHost: a\r\n\r\n")
http("bad-escape", b"GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n")
http("connect", b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
http("huge-chunk", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n")
http("long-line", b"GET /" + b"a" * 300 + b" HTTP/1.1\r\nHost: a\r\n\r\n")
http("many-fields", b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(10)) + b"\r\n")

# URLCanonicalization: 1 option byte (bit 0 ignoreQuery, bit 1 dropParams), then the url parameter.
def url(name, text, options=0):
    write("URLCanonicalization", name, bytes([options]) + text)


url("plain", b"http://example.com/a.png")
url("default-port", b"HTTPS://Example.COM:443/%7euser/./a/../b.jpg?b=2&a=1#frag")
url("port", b"http://example.com:8080")
url("query-dropped", b"https://shop.example/item?id=3&utm_source=x&fbclid=y&keep=1", options=2)
url("query-ignored", b"https://shop.example/item?id=3", options=1)
url("encoded-plus", b"http://example.com/a%2bb?utm_%73ource=1&x=a+b", options=2)
url("ipv6", b"http://[2001:db8::1]:81/x")
url("ipv4-numeric", b"http://2130706433/")
url("dot-segments", b"http://example.com/a/b/../../../c/./d/..")
url("non-ascii", "http://example.com/caf\u00e9?q=\u00fc".encode())
url("bad-percent", b"http://example.com/%zz%4")
url("userinfo", b"http://user:pass@example.com/")
url("zone", b"http://[fe80::1%25eth0]/")
url("crlf", b"http://example.com/a\r\nX-Injected: 1")
url("encoded-crlf", b"http://example.com/a%0d%0aX-Injected:%201%00")
url("empty-host", b"http:///path")
url("ftp", b"ftp://example.com/")
url("port-zero", b"http://example.com:0/")
url("port-big", b"http://example.com:65536/")

# ChunkInflate: byte 0 mode, bytes 1-2 a number, then the data.
def chunk(name, mode, number, data):
    write("ChunkInflate", name, bytes([mode]) + struct.pack(">H", number) + data)


def raw_deflate(pieces, level=6):
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    out = []
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        out.append(compressor.compress(piece) + compressor.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH))
    return out


text = b"Larder keeps what its filter chain admits. " * 20
first, last = raw_deflate([text[:512], text[512:]])
chunk("stored-middle", 0, 512, first)
chunk("stored-last", 2, len(text) - 512, last)
chunk("stored-whole", 2, len(text), raw_deflate([text])[0])
chunk("stored-empty-last", 2, 0, raw_deflate([b""])[0])
chunk("stored-uncompressed-block", 2, 5, b"\x01\x05\x00\xfa\xffhello")
chunk("stored-bomb", 2, 16, raw_deflate([b"\0" * 65536], 9)[0])
chunk("stored-truncated", 0, 512, first[:-9])
chunk("stored-trailing-bytes", 2, len(text) - 512, last + b"\x00\x01")
chunk("roundtrip-text", 1 | (5 << 2), 99, text)
chunk("roundtrip-one-byte-chunks", 1, 0, b"abcabcabcabc")
chunk("roundtrip-empty", 1, 0, b"")
chunk("roundtrip-binary", 1 | (8 << 2), 255, bytes(range(256)) * 3)

# FilterJSON: a JSON document.
def filters(name, text):
    write("FilterJSON", name, text.encode())


filters("webkit-images", """{ "name": "webkit-images",
  "match": { "schemes": ["http", "https"],
             "extensions": ["jpg", "jpeg", "png", "gif", "tif", "bmp", "ico"],
             "headers": { "User-Agent": { "contains": "AppleWebKit" } } },
  "action": "cache", "validate": "image", "ttl": 604800 }""")
filters("every-field", """{"name":"all.fields_1","enabled":false,"match":{"schemes":["HTTPS"],"hosts":["*.Example.com"],
 "extensions":["JPG"],"pathPrefix":"/img/","headers":{"Accept":{"prefix":"image/"},"X-A":{"equals":"1"}}},
 "action":"bypass","contentTypes":["Image/*","text/html"],"maxBytes":1048576,"validate":"image",
 "allowSVG":true,"ttl":60,"minTtl":10,"maxTtl":3600,"staleIfError":300,"staleWhileRevalidate":30,
 "ignoreQuery":true,"dropParams":["utm_*","fbclid"],"ignoreNoStore":true}""")
filters("deny", """{"name":"no-internal","match":{"hosts":["*.internal"]},"action":"deny"}""")
filters("chain", """{"version":3,"filters":[{"name":"a","action":"bypass"},{"name":"b","match":{"pathPrefix":"/x"}}]}""")
filters("bare-array", """[{"name":"a"},{"name":"b","dropParams":["*"]}]""")
filters("duplicate-name", """[{"name":"a"},{"name":"a"}]""")
filters("no-name", """{"match":{}}""")
filters("escapes", """{"name":"esc","match":{"headers":{"X-A":{"contains":"\\u00e9\\n\\"\\\\\\ud83d\\ude00"}}}}""")
filters("numbers", """[1, -0, 1.0e+2, 12345678901234567890, 0.5E-3, true, false, null, "s", [], {}]""")
filters("duplicate-member", """{"name":"a","name":"b"}""")
filters("deep", "[" * 64 + "]" * 64)
filters("bad-surrogate", """{"name":"\\ud800"}""")
filters("unknown-field", """{"name":"a","bogus":1}""")
filters("out-of-range", """{"name":"a","ttl":-1,"maxBytes":1e3}""")

# ConnectionStateMachine: 4 configuration bytes (pipeline bound, read buffer, timeouts, refused start),
# then events (Fuzz/ConnectionStateMachine/FuzzEntry.swift): 0 compose a fragment (its index follows),
# 4 send n bytes, 6 send all, 7 half-close, 8 respond (bit 0 closing, bit 1 streams), 9 deliver a piece,
# 10 the client stops reading (0) or reads (1), 11 advance the clock by n x 50 ms, 13 answer inline,
# 14 0 drain, 1 abort, 2 fail the next read.
GET, CLOSE, HTTP10, HTTP10_KEEP, POST, EXPECT_HEAD, BODY, CHUNKED, EXPECT_WITH_BODY, HEAD = range(10)
BAD_VERSION, DUPLICATE_LENGTH, CRLF, GARBAGE, PARTIAL_HEAD, HEAD_REST, TOO_LARGE = range(10, 17)


def connection(name, events, pipelined=3, buffer=5, timeouts=0x55, refused=False):
    write("ConnectionStateMachine", name, bytes([pipelined - 1, buffer, timeouts, 0 if refused else 1]) + events)


def compose(*indexes):
    return b"".join(bytes([0, index]) for index in indexes)


SEND_ALL = bytes([6])


def respond(closing=False, streams=False):
    return bytes([8, (1 if closing else 0) | (2 if streams else 0)])


connection("keep-alive", compose(GET, HEAD) + SEND_ALL + respond() + respond())
connection("pipelined-paused", compose(GET, POST, GET, HTTP10_KEEP) + SEND_ALL + respond() * 4, pipelined=1, buffer=1)
connection("expect-continue", compose(EXPECT_HEAD) + SEND_ALL + compose(BODY) + SEND_ALL + respond())
connection("expect-behind-pipeline", compose(GET, EXPECT_HEAD) + SEND_ALL + respond() + compose(BODY) + SEND_ALL
           + respond())
connection("expect-with-body", compose(EXPECT_WITH_BODY, GET) + SEND_ALL + respond() + respond())
connection("streamed", compose(GET) + SEND_ALL + respond(streams=True) + bytes([9, 0, 9, 3, 9, 4]))
connection("chunked-upload", compose(CHUNKED, CLOSE) + bytes([4, 30, 4, 30, 6]) + respond() + respond())
connection("blocked-writes", bytes([10, 0]) + compose(GET) + SEND_ALL + respond() + bytes([11, 100, 10, 1]))
connection("write-timeout", bytes([10, 0]) + compose(GET) + SEND_ALL + respond() + bytes([11, 255]))
connection("malformed", compose(GET, BAD_VERSION, GET) + SEND_ALL + respond())
connection("duplicate-length", compose(DUPLICATE_LENGTH) + SEND_ALL)
connection("garbage", compose(CRLF, GARBAGE) + SEND_ALL)
connection("too-large", compose(TOO_LARGE) + SEND_ALL)
connection("slow-head", compose(PARTIAL_HEAD) + SEND_ALL + bytes([11, 30]) + compose(HEAD_REST) + bytes([4, 3, 11, 200]))
connection("drain-busy", compose(GET, GET) + SEND_ALL + bytes([14, 0]) + respond() + respond())
connection("drain-idle", compose(GET) + SEND_ALL + respond() + bytes([14, 0]) + compose(GET) + SEND_ALL + respond())
connection("half-close", compose(GET, GET) + SEND_ALL + bytes([7]) + respond() + respond())
connection("http10", compose(HTTP10, GET) + SEND_ALL + respond())
connection("inline", bytes([13, 7]) + compose(GET, GET) + SEND_ALL + bytes([9, 1, 9, 2]))
connection("abort", compose(GET) + SEND_ALL + respond(streams=True) + bytes([14, 1]) + respond())
connection("read-fails", bytes([14, 2]) + compose(GET) + SEND_ALL)
connection("refused", compose(GET) + SEND_ALL, refused=True)
connection("closing-response", compose(GET, GET) + SEND_ALL + respond(closing=True) + compose(GET) + SEND_ALL)
