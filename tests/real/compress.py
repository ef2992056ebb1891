#!/usr/bin/env python3
"""The "compression" socket type against real peers, run under ualg-run.

Streams made by Python's zlib (raw deflate), the lz4 CLI (legacy frames
hold plain LZ4 blocks), lzop (its blocks are LZO1X-1) and the zstd CLI
decode to their input; what we make, they decode.  Input streams in
parts with MSG_MORE, output is read in small pieces; corrupt streams fail
with EBADMSG and streams expanding past 1 MiB with EFBIG, with no output.
Ends with "N passed, N failed".
"""
import errno
import os
import socket
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, tfm  # noqa: E402

LIMIT = 1 << 20
TEXT = b"".join(b"line %d of a text that repeats itself, as text does\n" % (i % 97) for i in range(4000))


def op_socket(alg):
    t = tfm("compression", alg)
    op, _ = t.accept()
    t.close()
    return op


def run(alg, data, compress, parts=3, piece=4096):
    """(output, errno or 0): data in parts with MSG_MORE, output in pieces."""
    op = op_socket(alg)
    try:
        mode = socket.ALG_OP_ENCRYPT if compress else socket.ALG_OP_DECRYPT
        step = max(1, len(data) // parts)
        chunks = [data[i:i + step] for i in range(0, len(data), step)] or [b""]
        for i, c in enumerate(chunks):
            more = socket.MSG_MORE if i < len(chunks) - 1 else 0
            if i == 0:
                op.sendmsg_afalg([c], op=mode, flags=more)
            else:
                op.sendmsg([c], [], more)
        out = b""
        while True:
            b = op.recv(piece)
            out += b
            if len(b) < piece:
                break
        return out, 0
    except OSError as e:
        return b"", e.errno
    finally:
        op.close()


def cli(cmd, data):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


def lz4_block(data, level="-1"):
    out = cli(["lz4", "-l", "-c", level, "-"], data)
    assert struct.unpack("<I", out[:4])[0] == 0x184C2102
    size = struct.unpack("<I", out[4:8])[0]
    return out[8:8 + size]


def lz4_unblock(block):
    return cli(["lz4", "-d", "-c", "-"], struct.pack("<II", 0x184C2102, len(block)) + block)


def lzop_file(data):
    return cli(["lzop", "-1", "-c", "-"], data)


def lzop_block(f):
    """The first block of an lzop file (header as lzop 1.04 writes it)."""
    off = 9 + 2 + 2 + 2 + 2
    flags = struct.unpack(">I", f[off:off + 4])[0]
    off += 4 + (4 if flags & 0x800 else 0) + 4 + 8
    off += 1 + f[off] + 4
    usize, csize = struct.unpack(">II", f[off:off + 8])
    off += 8 + (4 if flags & 0x1 else 0) + (4 if flags & 0x100 else 0)
    if csize < usize:
        off += (4 if flags & 0x2 else 0) + (4 if flags & 0x200 else 0)
    return usize, f[off:off + csize]


def lzop_wrap(usize, block):
    """An lzop file of one LZO1X-1 block and no checksums, for lzop -d."""
    hdr = struct.pack(">HHHBBI", 0x1040, 0x2080, 0x0940, 1, 1, 0) + struct.pack(">IIIB", 0o100644, 0, 0, 0)
    magic = b"\x89LZO\x00\r\n\x1a\n"
    return magic + hdr + struct.pack(">I", zlib.adler32(hdr)) + struct.pack(">II", usize, len(block)) + block + b"\0\0\0\0"


def peers():
    d = zlib.compressobj(6, zlib.DEFLATED, -15)
    d11 = zlib.compressobj(9, zlib.DEFLATED, -11)
    usize, lzo = lzop_block(lzop_file(TEXT[:200000]))
    return [
        ("deflate", "Python zlib, wbits -15", d.compress(TEXT) + d.flush(), TEXT),
        ("deflate", "Python zlib, wbits -11", d11.compress(TEXT) + d11.flush(), TEXT),
        ("lz4", "lz4 -l", lz4_block(TEXT), TEXT),
        ("lz4", "lz4 -l -9", lz4_block(TEXT, "-9"), TEXT),
        ("lzo", "lzop -1", lzo, TEXT[:usize]),
        ("zstd", "zstd -3", cli(["zstd", "-q", "-c", "-"], TEXT), TEXT),
        ("zstd", "zstd -19", cli(["zstd", "-q", "-19", "-c", "-"], TEXT), TEXT),
    ]


def peer_decodes(alg, stream):
    if alg == "deflate":
        return zlib.decompressobj(-15).decompress(stream)
    if alg == "lz4":
        return lz4_unblock(stream)
    if alg == "lzo":
        return cli(["lzop", "-d", "-c", "-"], lzop_wrap(len(TEXT[:200000]), stream))
    return cli(["zstd", "-q", "-d", "-c", "-"], stream)


def bombs():
    zeros = bytes(64 << 20)
    d = zlib.compressobj(9, zlib.DEFLATED, -15)
    return [
        ("deflate", d.compress(zeros) + d.flush()),
        ("zstd", cli(["zstd", "-q", "-c", "-"], zeros)),
        ("lz4", lz4_block(bytes(4 << 20))),
    ]


def main():
    for alg, src, stream, plain in peers():
        out, e = run(alg, stream, False)
        check("%s: decodes %s's %d-byte stream (input in parts, output in 4 KiB reads)"
              % (alg, src, len(stream)), e == 0 and out == plain)
        cut, e = run(alg, stream[:len(stream) * 2 // 3], False)
        check("%s: %s's stream cut short is EBADMSG, no output" % (alg, src), e == errno.EBADMSG and cut == b"")
    for alg in ("deflate", "lz4", "lzo", "zstd"):
        plain = TEXT[:200000]
        out, e = run(alg, plain, True, parts=5, piece=1000)
        ok = e == 0 and len(out) < len(plain)
        try:
            ok = ok and peer_decodes(alg, out) == plain
        except subprocess.CalledProcessError:
            ok = False
        check("%s: compresses %d bytes to %d that its peer decodes" % (alg, len(plain), len(out)), ok)
        back, e = run(alg, out, False, parts=1, piece=LIMIT)
        check("%s: and decodes them back in one read" % alg, e == 0 and back == plain)
        out, e = run(alg, b"", True)
        back, e2 = run(alg, out, False)
        check("%s: empty input compresses (%d bytes) and decodes back to nothing" % (alg, len(out)),
              e == 0 and e2 == 0 and len(out) > 0 and back == b"")
        out, e = run(alg, b"", False)
        check("%s: decompressing nothing is EBADMSG" % alg, e == errno.EBADMSG and out == b"")
        garbage = bytes(range(256)) * 8
        out, e = run(alg, garbage, False)
        check("%s: 2 KiB of garbage is EBADMSG, no output" % alg, e == errno.EBADMSG and out == b"")
    for alg, stream in bombs():
        out, e = run(alg, stream, False, parts=1)
        check("%s: a %d-byte stream that expands past 1 MiB is EFBIG, no output" % (alg, len(stream)),
              e == errno.EFBIG and out == b"")
    # Semantics: a bad operation, a read before the last part, two
    # requests on one op socket.
    op = op_socket("deflate")
    try:
        op.sendmsg_afalg([b"x"], op=2)
        check("ALG_SET_OP 2 on a compression socket is EINVAL", False)
    except OSError as e:
        check("ALG_SET_OP 2 on a compression socket is EINVAL", e.errno == errno.EINVAL)
    op.sendmsg_afalg([b"abc"], op=socket.ALG_OP_ENCRYPT, flags=socket.MSG_MORE)
    try:
        op.recv(100, socket.MSG_DONTWAIT)
        check("a read before the last part would wait (EAGAIN)", False)
    except OSError as e:
        check("a read before the last part would wait (EAGAIN)", e.errno == errno.EAGAIN)
    op.sendmsg([b"def"])
    first = op.recv(4096)
    op.sendmsg_afalg([b"second request"], op=socket.ALG_OP_ENCRYPT)
    second = op.recv(4096)
    check("two requests on one op socket", zlib.decompress(first, -15) == b"abcdef" and
          zlib.decompress(second, -15) == b"second request")
    op.close()
    finish()


if __name__ == "__main__":
    main()
