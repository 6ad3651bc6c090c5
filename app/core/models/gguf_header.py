"""A GGUF file's header, walked without ``gguf.GGUFReader`` (Qt-free):
the metadata's scalars, short strings and short numeric arrays, the lengths
of the long arrays, and the tensor infos (names, shapes, types, offsets: no
tensor data) summed up into the parameter count and where the weights end.
``app.core.models.gguf_info`` turns it into a ``GGUFInfo``.

Why not ``gguf.GGUFReader``
---------------------------
``GGUFReader`` memory-maps the file and builds a numpy view of *every* field,
one per array element: the tokenizer's vocabulary and merges (~100 000 strings
for SmolLM2, ~400 000 for Llama 3) cost 2.0-2.3 s for the 98 MB SmolLM2 file
here, whatever the file's size. So this module parses the header itself,
using the ``gguf`` package's own constants and types (``GGUF_MAGIC``,
``GGUFValueType``, ``GGMLQuantizationType``, ``GGML_QUANT_SIZES``,
``LlamaFileType``, ``Keys``): it keeps the scalar and string values, skips
large arrays by their lengths alone, and reads the tensor infos to count the
parameters and to check that the file really holds all the weights it
declares (a truncated download is caught here, not by llama.cpp half-way
through a load). Only the header is read: the first bytes the caller read,
more if the metadata is larger, never the tensor data, so the time is the
same for a 100 MB and a 40 GB file. benchmarks/gguf_read.py, page cache warm:
11 ms for SmolLM2 (49k-token vocabulary) whether the file is 98 MB or 4 GB,
42 ms for a Llama-3-8B-sized header (128k tokens + 280k merges, 4.2 GB); the
time goes into skipping the tokenizer's strings.

The file is read with ``read()``, not memory-mapped: a file that shrinks while
mapped (a download being replaced) would kill the process with SIGBUS.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

from app.core.base.i18n import translate
from app.core.models.sizes import format_bytes

__all__ = ["GGUFHeader", "DamagedHeader", "PastEndOfFile", "Skipped", "header_version", "read_header"]

#: A header (metadata + tensor infos) larger than this is refused as damaged.
MAX_HEADER_BYTES = 512 * 1024 * 1024
#: Strings longer than this are skipped (a chat template is ~1-20 KB).
MAX_KEPT_STRING = 1024 * 1024
#: Arrays of numbers up to this length are kept (per-layer values), longer ones skipped.
MAX_KEPT_ARRAY = 4096
#: Larger counts than these are not a model's: the file is damaged.
MAX_KV_COUNT = 1_000_000
MAX_TENSOR_COUNT = 10_000_000
MAX_KEY_BYTES = 65_535
GGML_MAX_DIMS = 4


class DamagedHeader(Exception):
    """The header is not a valid GGUF header; the message says why (words
    for the user, to follow "its metadata holds")."""


class PastEndOfFile(Exception):
    """What is being read would end past the end of the file."""


@dataclass(frozen=True)
class GGUFHeader:
    """What the walk of one header found (see ``read_header``)."""

    tensor_count: int
    #: Every scalar and short string of the metadata, and short numeric arrays (lists).
    metadata: dict[str, Any]
    #: The length of every array of the metadata, the skipped ones too.
    array_lengths: dict[str, int]
    #: Counted from the tensor shapes.
    parameters: int
    #: Bytes from the start of the file to the end of the last tensor's data
    #: (the end of the header when there are no tensors).
    data_end: int
    #: Bytes of the tensors of 2 or more dimensions, by tensor type (the weights' types).
    bytes_by_type: dict[int, int]
    #: The tensor types the ``gguf`` package does not know.
    unknown_types: frozenset[int]


def header_version(buf: bytes | bytearray) -> tuple[int, bool]:
    """(the GGUF version, whether the file is little-endian) from its first
    8 bytes (after the magic); PastEndOfFile when ``buf`` is shorter."""
    if len(buf) < 8:
        raise PastEndOfFile()
    version = int.from_bytes(buf[4:8], "little")
    if version & 0xFFFF == 0 and version:  # a big-endian file (s390x builds)
        return int.from_bytes(buf[4:8], "big"), False
    return version, True


def read_header(f: Any, buf: bytearray, size: int, little: bool, constants: Any) -> GGUFHeader:
    """Walk the header of a version 2 or 3 file after its version field.
    ``f``: the file, positioned after the ``buf`` it has been read into
    (``buf`` grows, in place, when the header is larger); ``size``: the
    file's; ``constants``: ``gguf.constants``. Raises DamagedHeader or
    PastEndOfFile."""
    p = _Parser(f, buf, little, size, constants.GGUFValueType)
    p.off = 8
    tensor_count = p.read_u64()
    kv_count = p.read_u64()
    if kv_count > MAX_KV_COUNT:
        raise DamagedHeader(translate("GGUFInfo", "an impossible number of keys ({count})").format(count=kv_count))
    if tensor_count > MAX_TENSOR_COUNT:
        raise DamagedHeader(translate("GGUFInfo", "an impossible number of tensors ({count})").format(count=tensor_count))
    meta: dict[str, Any] = {}
    array_lengths: dict[str, int] = {}
    for _ in range(kv_count):
        key = p.read_str(limit=MAX_KEY_BYTES) or ""
        vtype = p.read_u32()
        value = p.read_value(vtype)
        if isinstance(value, Skipped):
            array_lengths[key] = value.count
        elif value is not None:
            meta[key] = value
            if isinstance(value, list):
                array_lengths[key] = len(value)

    # Tensor infos: name, n_dims, dims, type, offset.
    quant_sizes = constants.GGML_QUANT_SIZES
    qtypes = constants.GGMLQuantizationType
    known_types = {int(t): (t, quant_sizes.get(t)) for t in qtypes}
    parameters = 0
    data_end = 0
    by_type: dict[int, int] = {}
    unknown_types: set[int] = set()
    u64 = p.u64
    for _ in range(tensor_count):
        p.read_str(keep=False, limit=MAX_KEY_BYTES)
        n_dims = p.read_u32()
        if n_dims > GGML_MAX_DIMS:
            raise DamagedHeader(translate("GGUFInfo", "a tensor with {n} dimensions").format(n=n_dims))
        p.need(8 * n_dims + 12)
        n = 1
        for i in range(n_dims):
            n *= u64(buf, p.off + 8 * i)[0]
        p.off += 8 * n_dims
        ttype = p.read_u32()
        offset = p.read_u64()
        parameters += n
        known = known_types.get(ttype)
        if known is None or known[1] is None:
            unknown_types.add(ttype)
            continue
        block, type_size = known[1]
        nbytes = (n // block) * type_size
        data_end = max(data_end, offset + nbytes)
        if n_dims >= 2:
            by_type[ttype] = by_type.get(ttype, 0) + nbytes

    keys = constants.Keys
    alignment = meta.get(keys.General.ALIGNMENT, constants.GGUF_DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise DamagedHeader(translate("GGUFInfo", "an invalid alignment ({alignment})").format(alignment=repr(alignment)))
    data_start = -(-p.off // alignment) * alignment
    total_end = data_start + data_end if tensor_count else p.off

    return GGUFHeader(
        tensor_count=tensor_count,
        metadata=meta,
        array_lengths=array_lengths,
        parameters=parameters,
        data_end=total_end,
        bytes_by_type=by_type,
        unknown_types=frozenset(unknown_types),
    )


class _Parser:
    """Walks a GGUF header, reading the file as it goes: ``buf`` holds the
    file's first bytes and grows (in place) when the walk needs
    more (x2 at a time), up to MAX_HEADER_BYTES. Never reads much past what
    the header needs, never the tensor data of a big file."""

    def __init__(self, f: Any, buf: bytearray, little: bool, size: int, value_type: Any) -> None:
        self.f = f
        self.buf = buf
        self.end = len(buf)
        self.size = size  # the whole file's
        self.off = 0
        o = "<" if little else ">"
        self.u32 = struct.Struct(o + "I").unpack_from
        self.u64 = struct.Struct(o + "Q").unpack_from
        v = value_type  # gguf.GGUFValueType
        self.STRING, self.ARRAY = int(v.STRING), int(v.ARRAY)
        formats = {
            v.UINT8: "B", v.INT8: "b", v.UINT16: "H", v.INT16: "h", v.UINT32: "I", v.INT32: "i",
            v.FLOAT32: "f", v.BOOL: "?", v.UINT64: "Q", v.INT64: "q", v.FLOAT64: "d",
        }
        self.scalars = {int(t): struct.Struct(o + f) for t, f in formats.items()}

    def need(self, n: int) -> None:
        if self.off + n > self.end:
            self.reach(self.off + n)

    def reach(self, pos: int, guess: int = 0) -> None:
        """Make ``buf`` hold the file up to ``pos`` (exclusive), reading more:
        up to ``guess`` when given (where the caller expects to need), else
        twice as much as it holds."""
        if pos <= self.end:
            return
        if pos > self.size:
            raise PastEndOfFile()
        if pos > MAX_HEADER_BYTES:
            raise DamagedHeader(translate("GGUFInfo", "more than {size} of metadata").format(size=format_bytes(MAX_HEADER_BYTES)))
        target = min(self.size, MAX_HEADER_BYTES, max(pos, guess or self.end * 2))
        more = self.f.read(target - self.end)
        self.buf += more  # in place: the same bytearray object
        self.end = len(self.buf)
        if self.end < pos:  # the file shrank while being read
            self.size = self.end
            raise PastEndOfFile()

    def read_u32(self) -> int:
        self.need(4)
        (v,) = self.u32(self.buf, self.off)
        self.off += 4
        return int(v)

    def read_u64(self) -> int:
        self.need(8)
        (v,) = self.u64(self.buf, self.off)
        self.off += 8
        return int(v)

    def read_str(self, keep: bool = True, limit: int | None = None) -> str | None:
        n = self.read_u64()
        if limit is not None and n > limit:
            raise DamagedHeader(translate("GGUFInfo", "a name {n} bytes long").format(n=n))
        self.need(n)
        start = self.off
        self.off += n
        if not keep or n > MAX_KEPT_STRING:
            return None
        return self.buf[start:self.off].decode("utf-8", errors="replace")

    def skip_strings(self, count: int) -> None:
        """Skip ``count`` strings (the tokenizer's vocabulary): lengths only.
        The hot loop of a read (~65 ns a string; Llama 3 has 408,000): no
        bounds check in it, ``unpack_from`` raising ``struct.error`` past the
        end of ``buf`` says when to read more."""
        self.need(count * 8)
        buf, u64 = self.buf, self.u64
        start = off = self.off
        done = 0
        while done < count:
            try:
                for done in range(done, count):  # noqa: B007, B020 - resumes where the last buffer ran out (read after the loop)
                    (n,) = u64(buf, off)
                    off += n + 8
                done = count
            except struct.error:  # off + 8 is past the end of buf (off itself is not updated)
                # Read about what the rest of the array takes, at the average so far.
                average = (off - start) / done if done else 16
                self.reach(off + 8, off + int((count - done) * average * 1.1) + 65536)
        self.reach(off)
        self.off = off

    def read_value(self, vtype: int, depth: int = 0) -> Any:
        scalar = self.scalars.get(vtype)
        if scalar is not None:
            self.need(scalar.size)
            (v,) = scalar.unpack_from(self.buf, self.off)
            self.off += scalar.size
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return v
        if vtype == self.STRING:
            return self.read_str()
        if vtype == self.ARRAY:
            if depth > 2:
                raise DamagedHeader(translate("GGUFInfo", "arrays nested too deep"))
            item_type = self.read_u32()
            count = self.read_u64()
            return self.read_array(item_type, count, depth)
        raise DamagedHeader(translate("GGUFInfo", "an unknown value type ({type})").format(type=vtype))

    def read_array(self, item_type: int, count: int, depth: int) -> Any:
        """The array as a list when short and of numbers or strings, else
        ``Skipped(count)`` after skipping it."""
        scalar = self.scalars.get(item_type)
        if scalar is not None:
            size = count * scalar.size
            self.need(size)
            if count <= MAX_KEPT_ARRAY:
                values = list(struct.iter_unpack(scalar.format, self.buf[self.off:self.off + size]))
                self.off += size
                return [v[0] for v in values]
            self.off += size
            return Skipped(count)
        if item_type == self.STRING:
            if count <= 64:
                return [self.read_str() for _ in range(count)]
            self.skip_strings(count)
            return Skipped(count)
        if item_type == self.ARRAY:
            self.need(count * 12)
            for _ in range(count):
                self.read_value(self.ARRAY, depth + 1)
            return Skipped(count)
        raise DamagedHeader(translate("GGUFInfo", "an array of an unknown value type ({type})").format(type=item_type))


@dataclass(frozen=True)
class Skipped:
    """A large array that was skipped: only its length is known."""

    count: int
