"""Whitespace-separated decimal numbers read from bytes with numpy, exactly as ``float``.

One idea: a token ``[+-]digits[.digits]`` with at most 15 digits is the integer of its
digits (its *mantissa*, below 10**15 < 2**53) over ``10**k`` (``k`` its digits after the
dot, at most 15 < 22). Both are exact doubles, so their one IEEE division is the correctly
rounded value of the decimal: Clinger's fast path, the first thing every correct
``strtod`` (CPython's ``float`` among them) tries. Every other token (an exponent, more
digits, an infinity) is read by ``float`` itself, one by one.

The mantissas come from byte-wide numpy passes over the text and one table lookup and
running sum per byte; there is no Python loop per token. Read in chunks of 256 KB with
one :class:`Scratch`, the 100,000-frame BVH's numbers take about a third of the CPU time of
``np.fromstring`` (whose C loop calls a ``strtod`` per token), in buffers of 27 bytes per
byte of the chunk plus per-token arrays (``docs/performance.md``, "The 100,000-frame
BVH").
"""

from __future__ import annotations

import numpy as np

#: The bytes that separate tokens: ASCII whitespace, as ``bytes.split()``.
WHITESPACE = b" \t\n\r\x0b\x0c"
#: The bytes a token may have for ``float`` to be asked about it at all.
NUMBER_BYTES = b"0123456789+-.eE"

_MAX_DIGITS = 15  # 10**15 < 2**53: the mantissa is an exact double
_MAX_LENGTH = 24  # longer tokens go to float (keeps the per-token fields below from overflowing)

# Each byte of a token adds one value to the token's 64-bit sum: a digit d with p digits
# after it in its token adds d * 10**p (bits 0-49: the mantissa, when at most 15 digits);
# a dot with k digits after it adds 1 << 56 (the count of dots) plus k << 50 (bits 50-55);
# any other byte (a sign, a letter) adds 2 << 56, so the count field says "not plain" (a
# sign in first place is taken back out). With at most 24 bytes a token's fields cannot
# carry past bit 62, so a field of 0 or 1 means no byte but digits and at most one dot.
_DOT = 1 << 56
_K_SHIFT = 50
_MANTISSA = (1 << _K_SHIFT) - 1


def _byte_values() -> np.ndarray:
    """``(16 * 256,)`` int64: the value a byte adds, at ``(digits after it) << 8 | byte``."""
    values = np.full((_MAX_DIGITS + 1, 256), 2 * _DOT, dtype=np.int64)
    values[:, list(WHITESPACE)] = 0
    for p in range(_MAX_DIGITS + 1):
        values[p, 48:58] = np.arange(10, dtype=np.int64) * 10**p
        values[p, ord(".")] = _DOT + (p << _K_SHIFT)
    return values.ravel()


_VALUES = _byte_values()
# 10**k at k, -10**k at 16 + k: the sign goes with the division (-0 / 10**k is -0.0).
_POWERS = np.concatenate([10.0 ** np.arange(16), -(10.0 ** np.arange(16))])


class Scratch:
    """Per-byte buffers kept from one chunk to the next: a fresh array per chunk costs the
    kernel a page fault per 4 KB (measured: 280,000 faults, 40 % of the CPU time of the
    100,000-frame BVH's numbers when each chunk allocated its own)."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, n: int, dtype) -> np.ndarray:
        """A ``(n,)`` array of ``dtype`` (contents undefined), the same memory each call."""
        have = self._arrays.get(name)
        if have is None or len(have) < n:
            grown = n + n // 8  # chunks cut on line ends differ by about a line
            have = self._arrays[name] = np.empty(grown, dtype=dtype)
        return have[:n]


def token_bounds(raw: np.ndarray, scratch: Scratch | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each token of ``raw``, ``(n,)`` int64 each.

    ``raw`` is ``(B,)`` uint8 text; tokens are the runs of bytes other than
    :data:`WHITESPACE`, as ``bytes.split()`` cuts them.
    """
    work = scratch or Scratch()
    n = len(raw)
    space = work.get("space", n + 2, np.bool_)  # whitespace, with a space on either side
    space[0] = space[n + 1] = True
    shifted = np.subtract(raw, 9, out=work.get("bytes", n, np.uint8))
    np.less(shifted, 5, out=space[1 : n + 1])  # \t \n \v \f \r
    blank = np.equal(raw, 32, out=work.get("flag", n + 1, np.bool_)[:n])
    space[1 : n + 1] |= blank
    # Whitespace changes to a token at a token's start, back at its end (exclusive).
    change = np.not_equal(space[1:], space[:-1], out=work.get("flag", n + 1, np.bool_))
    edges = np.flatnonzero(change)
    return edges[0::2].copy(), edges[1::2].copy()


def floats_from_tokens(
    data,
    raw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    out: np.ndarray | None = None,
    scratch: Scratch | None = None,
) -> np.ndarray:
    """The value of each token, bit for bit ``float(token)``.

    Parameters
    ----------
    data : bytes-like
        The text (``raw`` is its uint8 view; ``data`` is sliced for the tokens that go to
        ``float``).
    raw : (B,) uint8
    starts, ends : (n,) int64
        The tokens, from :func:`token_bounds` of ``raw``.
    out : (n,) float64, optional
        Where to write the values.
    scratch : Scratch, optional
        Buffers to reuse (a caller reading chunk after chunk passes the same one).

    Returns
    -------
    (n,) float64

    Raises
    ------
    ValueError
        A token is not a number ``float`` reads, or has a byte outside
        :data:`NUMBER_BYTES` (``float`` would also take ``"1_0"``, ``"nan"`` or ``"∞"``).
    """
    values = np.empty(len(starts)) if out is None else out
    if len(starts) == 0:
        return values
    work = scratch or Scratch()
    first = int(starts[0])
    m = len(raw) - first
    digit = np.less(
        np.subtract(raw, 48, out=work.get("bytes", len(raw), np.uint8)),
        10,
        out=work.get("flag", len(raw), np.bool_),
    )
    digits_to = np.cumsum(digit, dtype=np.int32, out=work.get("int32", len(raw), np.int32))
    digits_at_end = digits_to[ends - 1]  # digits in raw[: i + 1], at each token's last byte
    n_digits = digits_at_end - digits_to[starts] + digit[starts]
    # Each byte from the first token on: the digits after it in its token (the bytes
    # between tokens count as part of the token before them: whitespace adds nothing).
    # digits_at_end spread over each token's bytes: a running sum of its steps.
    after = work.get("after", m, np.int32)
    after[:] = 0
    after[starts - first] = np.diff(digits_at_end, prepend=0)
    np.cumsum(after, out=after)
    after -= digits_to[first:]
    after &= 15  # more than 15 digits after a byte: its token is not plain (float reads it)
    after <<= 8
    after |= raw[first:]
    index = work.get("index", m, np.intp)
    index[:] = after  # take() is several times faster with intp indices
    added = _VALUES.take(index, out=work.get("added", m, np.int64))
    # Each token's sum as a difference of running sums (whitespace adds 0). int64 wraps,
    # so the difference is exact for every token whose own sum is below 2**63: all of at
    # most 24 bytes (24 * 2 << 56 at most); longer ones are not plain anyway.
    np.cumsum(added, out=added)
    sums = added[ends - first - 1]
    sums[1:] -= added[starts[1:] - first - 1]
    lead = raw[starts]
    sums -= ((lead == ord("-")) | (lead == ord("+"))) * (2 * _DOT)
    dots = sums >> 56
    plain = (dots >= 0) & (dots <= 1) & (n_digits >= 1) & (n_digits <= _MAX_DIGITS)
    plain &= ends - starts <= _MAX_LENGTH
    power = (sums >> _K_SHIFT) & 15
    power |= (lead == ord("-")) << 4
    np.divide(sums & _MANTISSA, _POWERS.take(power), out=values)
    for i in np.flatnonzero(~plain):
        token = bytes(data[starts[i] : ends[i]])
        try:
            if token.translate(None, NUMBER_BYTES):
                raise ValueError
            values[i] = float(token)
        except ValueError:
            raise ValueError(f"not a number: {token!r}") from None
    return values


def floats_from_text(data) -> np.ndarray:
    """``(n,)`` float64: every whitespace-separated token of ``data`` (bytes-like), read as
    ``float`` reads it; ``ValueError`` as :func:`floats_from_tokens`. Reads ``data`` in one
    piece: callers with megabytes of text cut it into chunks on whitespace."""
    raw = np.frombuffer(data, dtype=np.uint8)
    starts, ends = token_bounds(raw)
    return floats_from_tokens(data, raw, starts, ends)
