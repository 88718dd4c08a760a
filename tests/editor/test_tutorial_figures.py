"""Every figure the foot roll, tumbling box, build-a-foot-roll and humanoid tutorials quote,
recomputed from their scenes: each is formatted as the text prints it and must be there, so
a change to a scene (or to the solver) that moves a figure fails here until the text says
the new one.
"""

import dataclasses
import importlib.util
import re

import numpy as np
import pytest

from app.editor.tutorials import load_tutorials
from app.scene.constraints.multi_parent import edits as multi_parent_edits
from app.scene.constraints.multi_parent.steps import steps
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math.transforms import transform_points
from app.scene.rig.key_edits import move_keys
from app.scene.rig.keys import sample
from app.scene.rig.skinning import bind
from tests.helpers.paths import ROOT

TUTORIALS = {t.id: t for t in load_tutorials()}


def text_of(tutorial_id: str) -> str:
    return " ".join(TUTORIALS[tutorial_id].markdown().split())  # line breaks as spaces


def says(text: str, phrase: str) -> None:
    assert phrase in text, f"the text should say {phrase!r}"


def with_pivots(scene, pivots):
    c = scene.constraints[0]
    return dataclasses.replace(scene, constraints=[dataclasses.replace(c, pivots=tuple(pivots))])


def with_settings(scene, **settings):
    c = scene.constraints[0]
    return dataclasses.replace(scene, constraints=[dataclasses.replace(c, **settings)])


def turning(pivot, frames) -> np.ndarray:
    """Whether ``pivot`` turns between each frame and the next, ``(F - 1,)``."""
    q = np.array([sample(pivot.rotation, pivot.rotation_keys, np.asarray(f)) for f in frames])
    return np.abs(np.diff(q, axis=0)).max(axis=1) > 1e-12


def cm(metres: float) -> str:
    return f"{100 * metres:.2f} cm"


def cm1(metres: float) -> str:
    return f"{100 * metres:.1f}"


# --- foot roll ---------------------------------------------------------------------------

FOOT_SCENE = ROOT / "resources" / "scenes" / "foot_roll.json"


def test_foot_roll_figures():
    text = text_of("foot_roll")
    scene = load_scene(FOOT_SCENE)
    frames = np.arange(scene.frame_start, scene.frame_end + 1.0)
    foot = scene.bone_index("foot")
    c = scene.constraints[0]
    names = [p.name for p in c.pivots]
    base = bake(scene, frames)
    heads = base.heads[:, foot]
    # 1. never more than two pivots turn at a time
    count = np.sum([turning(p, frames) for p in c.pivots], axis=0)
    assert count.max() == 2 and "never more than two of them turn at a time" in text
    # 2. between frames 19 and 20 only heel and swing turn; their arrows are the only ones
    assert "a quarter of a frame" in text and c.substeps == 4
    st = steps(c, scene, 20.0, c.space)
    moving = [
        n
        for n, size in zip(st.pivot_names, np.linalg.norm(st.contributions, axis=-1).max(0))
        if size > 0
    ]
    assert moving == ["heel", "swing"]
    says(text, "Between frames 19 and 20 only `heel` and `swing` turn")
    # 3. swing moved up three times comes first; nothing changes, to the last bit
    assert names.index("swing") == 3 and "press *Move Up* three times" in text
    moved = c
    for _ in range(3):
        moved = multi_parent_edits.with_pivot_moved(moved, "swing", -1)
    assert [p.name for p in moved.pivots][0] == "swing"
    reordered = bake(dataclasses.replace(scene, constraints=[moved]), frames)
    assert np.array_equal(reordered.bone_to_world, base.bone_to_world)
    says(text, "Nothing changes, at any frame, to the last bit")
    # 4. the ball from 0.13 to 0.15 (unkeyed): frames 0-12 do not move, each ball roll adds
    ball = c.pivots[names.index("ball")]
    assert ball.position_keys is None and ball.position[2] == 0.13
    says(text, "from 0.13 to 0.15, two centimetres toward the toe")
    pivots = [
        dataclasses.replace(p, position=(*p.position[:2], 0.15)) if p is ball else p
        for p in c.pivots
    ]
    apart = np.linalg.norm(bake(with_pivots(scene, pivots), frames).heads[:, foot] - heads, axis=1)
    rolls = turning(ball, frames)
    first = int(np.argmax(rolls))  # the first frame the ball turns from
    assert np.all(apart[: first + 1] == 0) and apart[first + 1] > 0
    says(text, f"The first {first + 1} frames (0 to {first}, before the ball first turns)")
    starts = np.flatnonzero(np.diff(np.concatenate([[0], rolls.astype(int)])) == 1)
    ends = np.flatnonzero(np.diff(np.concatenate([rolls.astype(int), [0]])) == -1) + 1
    spans = ", ".join(f"{a}–{b}" for a, b in zip(starts, ends))
    says(text, f"each of the four ball rolls (frames {spans})")
    assert len(starts) == 4
    gains = [apart[b] - apart[a] for a, b in zip(starts, ends)]
    assert len({f"{g * 100:.2f}"[:-1] for g in gains}) == 1  # the same gain each time
    says(text, f"{100 * gains[0]:.2f} cm further than before")
    # no jump: each frame adds a share of a roll's gain, spread over the roll's frames
    assert np.abs(np.diff(apart)).max() < 0.3 * gains[0]
    says(text, "without a jump from one frame to the next")
    still = ~np.concatenate([[False], rolls])  # frames not reached by a ball turn
    assert np.allclose(np.diff(apart)[~rolls], 0, atol=1e-12) and still.any()
    says(text, f"{cm(apart[45])} at frame 45, {cm(apart[-1])} at the end")
    # 5. substeps and integrators
    assert "from 4 to 1, then 16" in text
    exact = bake(with_settings(scene, integrator="exact"), frames).heads[-1, foot]
    twist = bake(with_settings(scene, integrator="twist"), frames).heads[-1, foot]
    assert np.linalg.norm(twist - exact) < 1e-14
    says(text, "`twist` agrees with it to 1e-14 m")
    off = [
        np.linalg.norm(bake(with_settings(scene, substeps=n), frames).heads[-1, foot] - exact)
        for n in (1, 4, 16)
    ]
    assert off[0] > off[1] > off[2]
    says(
        text,
        f"{cm(off[0])} from the exact limit with 1 substep, {cm(off[1])} with 4 and "
        f"{cm(off[2])} with 16",
    )
    # 6. object space walks along +X; world space sideways and under the floor
    world = bake(scene, frames, "world").heads[:, foot]
    walk = heads[-1] - heads[0]
    assert abs(walk[2]) < 1e-9 and walk[0] > 0
    says(text, f"walks {walk[0]:.2f} m forward")
    side = world[-1] - world[0]
    assert abs(side[0]) < 1e-9
    says(
        text,
        f"it walks {side[2]:.2f} m off to the side, its ankle {-world[-1, 1]:.2f} m "
        "below the floor",
    )
    yaw = np.degrees(np.arctan2(*base.bone_to_world[0, foot, [0, 2], 2]))
    assert round(yaw) == 90 and "The foot is turned 90° to walk along +X" in text


def test_foot_roll_scrubbing_backwards_gives_the_same_pose():
    from app.scene.evaluate import Evaluator

    scene = load_scene(FOOT_SCENE)
    forwards = bake(scene, np.arange(0, 97.0)).bone_to_world
    evaluator = Evaluator(scene)
    backwards = np.array(
        [evaluator.evaluate([float(f)]).bone_to_world[0] for f in range(96, -1, -13)]
    )
    np.testing.assert_array_equal(backwards, forwards[96::-13])
    assert "Scrubbing backwards gives the same pose as playing forwards" in text_of("foot_roll")


# --- tumbling box ------------------------------------------------------------------------

BOX_SCENE = ROOT / "resources" / "scenes" / "tumbling_box.json"
CORNERS = np.array([[x, y, z] for x in (-0.25, 0.25) for y in (-0.25, 0.25) for z in (-0.5, 0.5)])


def test_tumbling_box_figures():
    from app.scene.analysis.curves import accumulated_turn_deg
    from app.scene.math import quat

    text = text_of("tumbling_box")
    scene = load_scene(BOX_SCENE)
    frames = np.arange(scene.frame_start, scene.frame_end + 1.0)
    box = scene.bone_index("box")
    c = scene.constraints[0]
    base = bake(scene, frames)
    m, centre = base.bone_to_world[:, box], base.heads[:, box]
    assert np.allclose(np.abs(CORNERS).max(0), [0.25, 0.25, 0.5])  # the box's half sizes
    # 1. quarter circles about the edges, 0.56 m away; heights; linear keys; 4-frame rests
    tips = []
    for p in c.pivots:
        for a, b in zip(p.rotation_keys.frames[:-1], p.rotation_keys.frames[1:]):
            if not np.allclose(
                p.rotation_keys.values[list(p.rotation_keys.frames).index(a)],
                p.rotation_keys.values[list(p.rotation_keys.frames).index(b)],
            ):
                tips.append((int(a), int(b), p))
    tips.sort(key=lambda t: t[0])
    assert len(tips) == 8
    radius = set()
    for a, b, p in tips:
        edge = transform_points(m[a : b + 1], np.array(p.position))
        assert np.allclose(edge, edge[0], atol=1e-12)  # the edge stays put: no sliding
        r = np.linalg.norm(centre[a : b + 1] - edge[0], axis=1)
        assert np.allclose(r, r[0], atol=1e-12)  # a circle about it
        radius.add(f"{r[0]:.2f}")
        speed = np.linalg.norm(np.diff(centre[a : b + 1], axis=0), axis=1)
        assert np.allclose(speed, speed[0], atol=1e-12)  # evenly spaced dots
        assert all(k == "linear" for k in p.rotation_keys.interpolation)
    assert radius == {"0.56"} and "(0.56 m away" in text
    says(text, "0.5 m × 1 m side")
    rests = {b2 - b1 for (_, b1, _), (b2, _, _) in zip(tips[:-1], tips[1:])}
    assert rests == {4} and "four frames' dots pile onto one point" in text
    heights = centre[:, 1]
    for a, b, _ in tips:  # the height rises and falls once per tip
        h = heights[a : b + 1]
        top = int(np.argmax(h))
        assert 0 < top < len(h) - 1
        assert np.all(np.diff(h[: top + 1]) > 0) and np.all(np.diff(h[top:]) < 0)
    says(text, "its height rises and falls once per tip")
    says(text, f"climbs from {heights[0]:.2f} m to {heights.max():.2f} m over each edge")
    says(text, f"comes down to {heights[tips[0][1]]:.2f} m standing or {heights[0]:.2f} m lying")
    # 2. the turn: 90 per tip, 720 over the shot; world and object part from frame 1
    turn = accumulated_turn_deg(quat.quat_from_matrix(m[:, :3, :3]))
    for a, b, _ in tips:
        assert turn[b] - turn[a] == pytest.approx(90, abs=1e-6)
    says(text, f"{turn[-1]:.0f} degrees over the shot's eight tips")
    world = bake(scene, frames, "world")
    apart = np.abs(world.bone_to_world[:, box] - m).max(axis=(1, 2))
    first = int(np.argmax(apart > 1e-9))
    says(text, f"part from frame {first}, as soon as it tips")
    # 3. the handover: arrows at frames 12, 14 and 17
    for frame, expected in ((12, ["edge_a"]), (14, []), (17, ["edge_b"])):
        st = steps(c, scene, float(frame), c.space)
        size = np.linalg.norm(st.contributions, axis=-1).max(axis=0)
        assert [n for n, s in zip(st.pivot_names, size) if s > 0] == expected, frame
    says(text, "go to frame 12, Alt+S, Alt+Right")
    says(text, "At frame 17 only `edge_b`'s arrow is drawn")
    # 4. edge_b's key 16 slid to 6: both turn from 6 to 12, it lands 8.2 cm short; any order
    names = [p.name for p in c.pivots]
    b = c.pivots[names.index("edge_b")]
    slid = dataclasses.replace(b, rotation_keys=move_keys(b.rotation_keys, [16.0], -10))
    pivots = [slid if p is b else p for p in c.pivots]
    both = bake(with_pivots(scene, pivots), frames)
    together = turning(slid, frames) & turning(c.pivots[names.index("edge_a")], frames)
    assert np.flatnonzero(together).tolist() == list(range(6, 12))
    says(text, "drag its diamond at frame 16 to frame 6")
    says(text, "(frames 6 to 12)")
    short = centre[-1, 0] - both.heads[-1, box, 0]
    says(text, f"lands {100 * short:.1f} cm short of where it did")
    first_up = multi_parent_edits.with_pivot_moved(
        with_pivots(scene, pivots).constraints[0], "edge_b", -1
    )
    reordered = bake(dataclasses.replace(scene, constraints=[first_up]), frames)
    assert np.array_equal(reordered.bone_to_world, both.bone_to_world)
    assert "every frame stays the same to the last bit" in text
    # 5. spaces
    yaw = np.degrees(np.arctan2(*m[0, [0, 2], 2]))
    assert round(yaw) == 90 and "The box starts yawed by 90 degrees" in text
    says(text, f"tumbles it along its length, {centre[-1, 0] - centre[0, 0]:.0f} m along +X")
    w = world.heads[:, box]
    assert abs(w[-1, 0] - w[0, 0]) < 1e-9
    says(text, f"sideways ({w[-1, 2] - w[0, 2]:.0f} m along +Z)")
    lowest = min(transform_points(f, CORNERS)[:, 1].min() for f in world.bone_to_world[:, box])
    assert min(transform_points(f, CORNERS)[:, 1].min() for f in m) > -1e-9  # never under
    says(text, f"its lowest corner {-lowest:.2f} m under it")


# --- bring your own character ------------------------------------------------------------


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_humanoid_figures(qapp):
    from app.editor.document import Document

    text = text_of("humanoid_gltf")
    tool = _tool("add_foot_roll")
    document = Document.from_file(TUTORIALS["humanoid_gltf"].scene)
    scene = document.scene
    says(text, f"{len(scene.bones)} joints")
    vertices = sum(len(m.positions) for m in scene.meshes)
    says(text, f"a skinned body of about {round(vertices, -2):,} vertices")
    assert max(m.weights.shape[1] for m in scene.meshes) == 4 and "up to four bones" in text
    foot = scene.bone_index("foot.L")
    m0 = bake(scene, [0.0]).bone_to_world[0, foot]
    out = np.degrees(np.arctan2(m0[0, 2], m0[2, 2]))
    says(text, f"The foot is turned out {out:.0f}°")
    # the tool does what steps 2 and 3 say, with the same numbers
    keys = dict(tool.KEYS)
    says(
        text,
        f"at frame {keys['ball'][0][0]} key it at rest (K), at frame "
        f"{keys['ball'][1][0]} turn it {keys['ball'][1][1]}° about X",
    )
    says(
        text,
        f"key it again at {keys['ball'][2][0]} (K) and back to rest (0) at {keys['ball'][3][0]}",
    )
    (t0, _), (t1, toe), (t2, _), (t3, _) = keys["toe"]
    says(text, f"the toe ({toe}° from frame {t1} to {t2}, rest at {t0} and {t3})")
    (h0, _), (h1, heel), (h2, _) = keys["heel"]
    says(text, f"the heel ({heel:g}° at frame {h1}, rest at {h0} and {h2})".replace("-", "−"))
    name = tool.add_foot_roll(document)
    scene = document.scene
    c = scene.constraint(name)
    assert [p.name for p in c.pivots] == ["heel", "ball", "toe"]
    for p in c.pivots:  # where the builder put them, as the text gives them (3 decimals)
        says(text, "(" + ", ".join(f"{round(v, 3) + 0.0:g}" for v in p.position) + ")")
    frames = np.arange(scene.frame_start, scene.frame_end + 1.0)
    result = bake(scene, frames)
    m = result.bone_to_world[:, scene.bone_index(c.body)]
    height = {p.name: transform_points(m, np.array(p.position))[:, 1] for p in c.pivots}
    up = {n: h - h[2] for n, h in height.items()}  # from where it stands at frame 2
    says(text, f"the heel rises about the ball ({cm1(up['heel'][12])} cm by frame 12)")
    # 4. the spaces: about the foot's X the sole stays level, about the world's it tips
    across = {
        space: bake(scene, [12.0], space).bone_to_world[0, scene.bone_index(c.body), :3, 0]
        for space in ("world", "object")
    }
    tilt = {space: np.degrees(np.arcsin(x[1] / np.linalg.norm(x))) for space, x in across.items()}
    assert abs(tilt["object"]) < 1e-6
    says(text, f"the foot tips sideways (its sole {abs(tilt['world']):.1f}° off level at frame 12)")
    says(text, f"(the heel {cm1(up['heel'][24])} cm up at frame 24)")
    says(text, f"(the toe tip {cm1(up['toe'][40])} cm up at frame 40)")
    # the ankle on the control, and the skin there
    gap = np.linalg.norm(result.heads[:, foot] - m[:, :3, 3], axis=1)
    says(text, f"({gap.max():.1e} off at most on all {len(frames)} frames".replace("e-0", "e-"))
    (mesh,) = scene.meshes
    world = bind(mesh, scene.bone_names()).deform(result.bone_to_world, normals=False)
    calf_foot = [mesh.joints.index(n) for n in ("calf.L", "foot.L")]
    both = np.all(
        [np.where(mesh.joint_indices == j, mesh.weights, 0).sum(1) > 0.05 for j in calf_foot],
        axis=0,
    )
    tri = mesh.indices
    edges = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    edges = edges[both[edges[:, 0]] & both[edges[:, 1]]]
    length = np.linalg.norm(world[:, edges[:, 0]] - world[:, edges[:, 1]], axis=-1)
    says(text, f"they stretch at most {100 * (length / length[0]).max() - 100:.0f} %")


# --- build a foot roll from nothing ------------------------------------------------------


def test_build_foot_roll_starts_from_new():
    text = text_of("build_foot_roll")
    tutorial = TUTORIALS["build_foot_roll"]
    assert tutorial.starts_from_new and "File ▸ New (Ctrl+N)" in text
    assert re.search(r"this text stays open", text)
    assert not any(t.starts_from_new for t in TUTORIALS.values() if t is not tutorial)
