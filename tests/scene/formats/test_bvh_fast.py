"""The BVH reader's fast path (a plain MOTION section read from the bytes in chunks) against
its line-by-line path, on the CMU clips: the same scene bit for bit, the same refusals
naming the same lines, and temporaries bounded by the chunk, not the clip."""

import tracemalloc

import numpy as np
import pytest

from app.scene.errors import SceneError
from app.scene.formats import bvh
from app.scene.formats.bvh import load_bvh, parse_bvh
from tests.helpers.paths import CMU_DIR
from tests.scene.formats.test_bvh import SMALL

CLIPS = ["01_01.bvh", "01_03.bvh", "Boxing_Toes.bvh"]


def slow(monkeypatch):
    """Force the line-by-line path."""
    monkeypatch.setattr(bvh, "_fast_motion", lambda *a: None)


def bits(scene):
    """Every key array of the scene as raw 64-bit patterns (-0.0 is not 0.0 here)."""
    out = []
    for bone in scene.bones:
        for keys in (bone.translation_keys, bone.rotation_keys):
            if keys is not None:
                out += [keys.frames.view(np.int64), keys.values.view(np.int64)]
    return out


def motion_of(path):
    text = path.read_bytes()
    found = bvh._MOTION.search(text)
    return text, found.end()


@pytest.mark.parametrize("name", CLIPS)
def test_cmu_clips_read_the_same_on_both_paths(name, monkeypatch):
    path = CMU_DIR / name
    fast = load_bvh(path)
    text, begin = motion_of(path)
    taken = bvh._fast_motion(text, begin, 96, len(fast.bones))
    # Boxing_Toes has a motion line more than it declares: only the slow path reports it.
    assert (taken is not None) == (name != "Boxing_Toes.bvh")
    slow(monkeypatch)
    line_by_line = load_bvh(path)
    assert fast == line_by_line and fast.messages == line_by_line.messages
    for a, b in zip(bits(fast), bits(line_by_line), strict=True):
        np.testing.assert_array_equal(a, b)


def test_small_chunks_cut_on_line_ends_read_the_same(monkeypatch):
    path = CMU_DIR / "01_01.bvh"
    whole = load_bvh(path)
    monkeypatch.setattr(bvh, "_CHUNK", 100)  # a chunk per line or two
    chunked = load_bvh(path)
    for a, b in zip(bits(whole), bits(chunked), strict=True):
        np.testing.assert_array_equal(a, b)
    text, begin = motion_of(path)
    assert bvh._fast_motion(text, begin, 96, 31) is not None


def many_frames(frames: int, edit_frame=None, edit=None) -> str:
    """SMALL with ``frames`` motion lines (cycling its two), line ``edit_frame`` edited."""
    head, _, _ = SMALL.partition("Frames: 2")
    rows = ["0 0 0 10 20 30 5 40 50 60", "1 1 1 0 0 90 -5 0 0 0"]
    lines = [rows[k % 2] for k in range(frames)]
    if edit_frame is not None:
        lines[edit_frame] = edit(lines[edit_frame])
    return head + f"Frames: {frames}\nFrame Time: 0.04\n" + "\n".join(lines) + "\n"


FIRST_ROW_LINE = 19  # SMALL's first motion line


@pytest.mark.parametrize(
    "edit, why",
    [
        (lambda s: s.replace("40", "4e16"), "beyond the bound of +-1e+15"),
        (lambda s: s.replace("40", "-1e400"), "must be finite"),
        (lambda s: s.replace("40", "nan"), "must be finite"),
        (lambda s: s.replace("40", "4O"), "expected numbers"),
        # \x1c separates lines for str.splitlines (the line-by-line path's view of the text).
        (lambda s: s.replace("40", "4\x1c0"), "expected 10 numbers"),
        (lambda s: s + " 7", "expected 10 numbers"),
        (lambda s: s.replace(" 40", ""), "expected 10 numbers"),
    ],
)
@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_a_bad_motion_line_far_into_the_clip_is_named(edit, why, chunk, monkeypatch):
    # The fast path leaves anything irregular to the line-by-line path, which names the
    # line, whichever chunk the line fell in.
    monkeypatch.setattr(bvh, "_CHUNK", chunk)
    frame = 776  # an even frame: the row with "40"
    with pytest.raises(SceneError) as info:
        parse_bvh(many_frames(1000, frame, edit), "bad.bvh")
    assert info.value.path == f"line {FIRST_ROW_LINE + frame}", str(info.value)
    assert why in str(info.value)


def test_numbers_beyond_the_fast_path_are_still_read_exactly():
    # Exponents, 16+ digits and "+" go to float one by one; the scene is the same as with
    # plain decimals of the same values.
    odd = many_frames(3, 1, lambda s: "1e0 +1 1.000000000000000000 0e5 0 9E1 -5 0 0 0")
    scene = parse_bvh(odd)
    np.testing.assert_array_equal(scene.bone("root").translation_keys.values[1], [1, 1, 1])
    assert scene == parse_bvh(many_frames(3))


def test_what_float_reads_beyond_plain_decimals_is_left_to_the_line_by_line_path():
    # "1_0" is 10 to Python's float (and to numpy's str conversion, the line-by-line
    # path's): the fast path does not guess, the result is what the slow path reads.
    scene = parse_bvh(many_frames(1000, 776, lambda s: s.replace("40", "1_0")))
    want = parse_bvh(many_frames(1000, 776, lambda s: s.replace("40", "10")))
    assert scene == want


def test_invalid_utf8_in_the_motion_is_named_and_in_names_is_replaced(tmp_path):
    text = many_frames(5).encode()
    bad, odd = tmp_path / "bad.bvh", tmp_path / "odd.bvh"
    bad.write_bytes(text.replace(b"1 1 1 0 0 90", b"1 1 \xff 0 0 90", 1))
    with pytest.raises(SceneError, match="expected numbers") as info:
        load_bvh(bad)
    assert info.value.path == f"line {FIRST_ROW_LINE + 1}" and info.value.file == str(bad)
    odd.write_bytes(text.replace(b"JOINT arm", b"JOINT \xffarm"))
    assert load_bvh(odd).bones[1].name == "\ufffdarm"


def test_fast_path_temporaries_are_bounded_by_the_chunk(tmp_path):
    from tools.make_scale_scenes import write_long_bvh

    path = write_long_bvh(tmp_path / "long.bvh", frames=40_000)
    text, begin = motion_of(path)
    result_bytes = 40_000 * 96 * 8
    tracemalloc.start()
    try:
        taken = bvh._fast_motion(text, begin, 96, 31)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert taken is not None and taken[2].shape == (40_000, 96)
    # The text is ~30 MB; one chunk's buffers are 27 bytes per byte of it, its per-token
    # arrays about 16 (decimal_text): a few megabytes, whatever the clip's length.
    assert len(text) > 25e6
    assert peak - result_bytes < 60 * bvh._CHUNK, (peak - result_bytes) / bvh._CHUNK


@pytest.mark.parametrize("axes", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "ZX", "Y"])
def test_channel_quaternions_match_scipy_and_the_general_product(axes, monkeypatch):
    from scipy.spatial.transform import Rotation

    from app.scene.formats import bvh_rotations
    from app.scene.math import quat

    monkeypatch.setattr(bvh_rotations, "FRAME_BLOCK", 300)  # several blocks
    rng = np.random.default_rng(7)
    angles = rng.uniform(-400, 400, (1000, 2 * len(axes))).round(4)
    columns = {
        0: [(a, 2 * r) for r, a in enumerate(axes)],
        5: [(a, 2 * r + 1) for r, a in enumerate(axes)],
    }
    got = bvh_rotations.quats_from_channels(angles, columns)
    for joint, cols in columns.items():
        picked = angles[:, [c for _, c in cols]]
        want = Rotation.from_euler(axes, picked, degrees=True).as_quat(scalar_first=True)
        np.testing.assert_allclose(np.abs(np.sum(got[joint] * want, axis=1)), 1, atol=1e-14)
        # The product of the axis quaternions one by one, as quat.mul: the same values
        # (array_equal: a zero may differ in sign).
        product = None
        for a, c in cols:
            axis = {"X": [1, 0, 0], "Y": [0, 1, 0], "Z": [0, 0, 1]}[a]
            h = 0.5 * np.radians(angles[:, c])
            qc = np.column_stack([np.cos(h), np.sin(h)[:, None] * axis])
            product = qc if product is None else quat.mul(product, qc)
        np.testing.assert_array_equal(got[joint], quat.normalize(product))


def test_fuzzed_clips_give_the_same_scene_or_refusal_on_both_paths(tmp_path, monkeypatch):
    """The fuzzer's BVH mutations (its bases are the CMU clips cut to 40 frames), each file
    read on the fast path and on the line-by-line path: the same scene bit for bit, or the
    same refusal with the same line."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.helpers import fuzzing

    clips = [n for n in fuzzing.bases() if n.endswith(".bvh")]
    taken = []

    def fast_motion(*args, real=bvh._fast_motion):
        result = real(*args)
        taken.append(result is not None)
        return result

    def outcome(path, fast):
        monkeypatch.setattr(bvh, "_fast_motion", fast_motion if fast else lambda *a: None)
        try:
            scene = load_bvh(path)
        except SceneError as e:
            return str(e)
        return scene, bits(scene)

    @settings(
        max_examples=300,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        st.sampled_from(clips),
        st.lists(
            st.tuples(st.sampled_from(fuzzing.BVH_KINDS), st.integers(0, 2**32 - 1)),
            min_size=1,
            max_size=3,
        ),
    )
    def one(name, steps):
        path = tmp_path / name
        path.write_bytes(fuzzing.mutate(name, steps))
        a, b = outcome(path, True), outcome(path, False)
        if isinstance(a, str) or isinstance(b, str):
            assert a == b
        else:
            assert a[0] == b[0] and a[0].messages == b[0].messages
            for x, y in zip(a[1], b[1], strict=True):
                np.testing.assert_array_equal(x, y)

    one()
    # Not vacuous: some mutated files still have a plain motion section the fast path read,
    # many do not (the mutations below aim at the numbers themselves).
    assert sum(taken) >= 5 and len(taken) - sum(taken) >= 30, (sum(taken), len(taken))

    @settings(
        max_examples=300,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        st.integers(0, 39),
        st.integers(0, 95),
        st.text("0123456789+-.eE_ \t\rxn", min_size=0, max_size=12),
    )
    def number(row, column, token):
        text = fuzzing.bases()["01_01.bvh"].decode()
        head, _, motion = text.partition("MOTION\n")
        lines = motion.split("\n")
        values = lines[2 + row].split()
        values[column] = token
        lines[2 + row] = " ".join(values)
        path = tmp_path / "one.bvh"
        path.write_text(head + "MOTION\n" + "\n".join(lines))
        a, b = outcome(path, True), outcome(path, False)
        if isinstance(a, str) or isinstance(b, str):
            assert a == b
        else:
            for x, y in zip(a[1], b[1], strict=True):
                np.testing.assert_array_equal(x, y)

    taken.clear()
    number()
    assert sum(taken) >= 25 and len(taken) - sum(taken) >= 100, (sum(taken), len(taken))


def test_a_line_longer_than_any_plain_one_is_left_to_the_line_by_line_path():
    # Megabytes of spaces in one line would make one chunk of the fast path that large
    # (its buffers are 45 bytes per byte): the line-by-line path reads it instead.
    padded = many_frames(3, 1, lambda s: s.replace(" ", " " * 400_000, 1))
    text = padded.encode()
    assert bvh._fast_motion(text, bvh._MOTION.search(text).end(), 10, 2) is None
    assert parse_bvh(padded) == parse_bvh(many_frames(3))
    assert bvh._fast_motion(many_frames(3).encode(), 0, 10, 2) is None  # no MOTION header
    plain = many_frames(3).encode()
    assert bvh._fast_motion(plain, bvh._MOTION.search(plain).end(), 10, 2) is not None
