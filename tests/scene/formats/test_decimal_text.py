"""The vectorized decimal reader against Python's own ``float`` (CPython's correctly
rounded ``strtod``) and numpy's ``np.fromstring``, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.scene.formats.decimal_text import floats_from_text, token_bounds
from tests.helpers.paths import CMU_DIR


def bits(values):
    return np.asarray(values, dtype=np.float64).view(np.int64)


def assert_reads_as_float(tokens, separators=None):
    """``tokens`` joined by ``separators`` read as ``[float(t) for t in tokens]``."""
    seps = separators or [" "] * len(tokens)
    text = "".join(s + t for s, t in zip(seps, tokens, strict=True)).encode() + b"\n"
    np.testing.assert_array_equal(bits(floats_from_text(text)), bits([float(t) for t in tokens]))


decimals = st.builds(
    lambda sign, whole, dot, frac: sign + whole + dot + frac,
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", max_size=18),
    st.sampled_from(["", "."]),
    st.text("0123456789", max_size=18),
).filter(lambda s: any(c.isdigit() for c in s) and (s[-1:].isdigit() or s.endswith(".")))
# The forms that come out of printf and repr: %g, %.Nf, repr, with exponents.
printed = st.builds(
    lambda x, form: form % x if form != "repr" else repr(x),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["%.4f", "%.6f", "%.15g", "%.17g", "%g", "%.3e", "repr"]),
)
separators = st.text(" \t\r\n\x0b\x0c", min_size=1, max_size=3)


@settings(max_examples=600, derandomize=True, deadline=None, database=None)
@given(st.lists(st.one_of(decimals, printed), min_size=1, max_size=40), st.data())
def test_random_decimals_read_bit_for_bit_as_float(tokens, data):
    seps = data.draw(st.lists(separators, min_size=len(tokens), max_size=len(tokens)))
    assert_reads_as_float(tokens, seps)


@settings(max_examples=600, derandomize=True, deadline=None, database=None)
@given(st.text("0123456789+-.eE", min_size=1, max_size=30))
def test_any_token_of_number_bytes_reads_as_float_or_is_refused(token):
    try:
        expected = float(token)
    except ValueError:
        with pytest.raises(ValueError, match="not a number"):
            floats_from_text(token.encode())
    else:
        assert bits(floats_from_text(token.encode())) == bits([expected])


@pytest.mark.parametrize(
    "token",
    [
        "0",
        "-0",
        "+0",
        "-0.0",
        "0.",
        ".5",
        "-.5",
        "5.",
        "007.2500",
        "-17.3198",
        "999999999999999",
        "9007199254740993",
        "0.1",
        "0.3",
        "123456789012345.",
        ".000000000000001",
        "0.0000000000000001",
        "1e5",
        "-1.5E-3",
        "1234567890123456789012345",
        "2.2250738585072014e-308",
        "4.9e-324",
        "1.7976931348623157e308",
    ],
)
def test_edges_of_the_fast_path_read_as_float(token):
    # -0 keeps its sign; 15 digits are the fast path's limit (16 and more go to float).
    assert_reads_as_float([token])


@pytest.mark.parametrize(
    "token",
    [
        "-",
        "+",
        ".",
        "-.",
        "1.2.3",
        "--1",
        "1-",
        "e5",
        "1e",
        "nan",
        "inf",
        "1_0",
        "0x10",
        "١",
        "1,5",
        "\x1c",
    ],
)
def test_non_numbers_are_refused(token):
    with pytest.raises(ValueError, match="not a number"):
        floats_from_text(f"1 {token} 2\n".encode())


def test_overflow_to_infinity_reads_as_float():
    # float() of a long finite-looking decimal can be inf: the reader returns it (callers
    # check finiteness) rather than refusing what float accepts.
    assert np.isinf(floats_from_text(b"1e400 -1e400")).all()


def test_token_bounds_cut_as_bytes_split():
    text = b"  1 \t-2.5\r\n\x0b3\x0c  x.y\n\n 44"
    starts, ends = token_bounds(np.frombuffer(text, dtype=np.uint8))
    assert [text[s:e] for s, e in zip(starts, ends, strict=True)] == text.split()
    assert floats_from_text(b" \n\t ").shape == (0,)


@pytest.mark.parametrize("name", ["01_01.bvh", "01_03.bvh", "Boxing_Toes.bvh"])
def test_cmu_motion_reads_as_np_fromstring_and_float(name):
    text = (CMU_DIR / name).read_bytes()
    motion = text.partition(b"MOTION")[2].split(b"\n", 3)[3]
    got = floats_from_text(motion)
    np.testing.assert_array_equal(bits(got), bits(np.fromstring(motion, sep=" ")))
    np.testing.assert_array_equal(bits(got), bits([float(t) for t in motion.split()]))
