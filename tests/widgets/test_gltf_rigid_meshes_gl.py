"""Rigid and top-level glTF meshes in the real OpenGL viewport (Xvfb + llvmpipe): Khronos'
BoxAnimated has a spinning, rising box on a mesh-only node and a still base on a top-level
node. Both are drawn where the glTF specification puts them (evaluated by the test's own
sampler, not the importer), and the rigid one moves with its bone between two frames. A prop
scaled to 0 draws nothing, its bones and meshes included."""

from __future__ import annotations

import numpy as np

from tests.helpers.gltf_files import UINT, Builder, hide_and_show
from tests.helpers.gui import framebuffer, open_window
from tests.scene.formats.test_gltf_corpus import CORPUS, accessor, read_gltf, spec_worlds
from tests.widgets.test_mesh_viewport_gl import clay, on_clay

FRAMES = (24.0, 56.0)  # the box risen above the base, then higher and turned 89° about x


def _centroids(doc, buffers, mesh: int) -> np.ndarray:
    """Triangle centres of the mesh's one primitive (inside its silhouette, unlike
    vertices on its outline)."""
    prim = doc["meshes"][mesh]["primitives"][0]
    positions = accessor(doc, buffers, prim["attributes"]["POSITION"])
    triangles = accessor(doc, buffers, prim["indices"]).astype(int).reshape(-1, 3)
    return positions[triangles].mean(axis=1)


def _placed(world, points) -> np.ndarray:
    return points @ world[:3, :3].T + world[:3, 3]


def test_rigid_and_top_level_meshes_are_drawn_and_the_rigid_one_moves(qtbot):
    doc, buffers = read_gltf((CORPUS / "BoxAnimated.gltf").read_bytes())
    worlds = spec_worlds(doc, buffers, 0, np.array(FRAMES), 30.0)
    lid = [_placed(worlds[2][k], _centroids(doc, buffers, 0)) for k in range(2)]  # node 2
    base = _placed(worlds[3][0], _centroids(doc, buffers, 1))  # node 3, at the top level
    window = open_window(qtbot, CORPUS / "BoxAnimated.gltf", frame=FRAMES[0])
    viewport = window.viewport
    viewport.set_mesh_display("mesh")
    viewport.frame_points(np.concatenate(lid + [base]))  # one camera for both frames
    qtbot.wait(30)
    images = []
    for k, frame in enumerate(FRAMES):
        window.document.set_frame(frame)
        qtbot.wait(30)
        image = framebuffer(viewport, qtbot)
        assert on_clay(image, viewport.project(base)) > 0.97, f"base at frame {frame}"
        assert on_clay(image, viewport.project(lid[k])) > 0.97, f"box at frame {frame}"
        images.append(image)
    # It moved: where the box was at the first frame there is no mesh at the second.
    assert on_clay(images[1], viewport.project(lid[0])) < 0.1
    shift = viewport.project(lid[1]).mean(axis=0) - viewport.project(lid[0]).mean(axis=0)
    assert np.linalg.norm(shift) > 20


def _cube_file() -> bytes:
    """root -> prop (a cube, scale keys 1, 0, 1 at 0, 1, 2 s) -> tip (a cube)."""
    corners = np.array([[x, y, z] for x in (-0.2, 0.2) for y in (-0.2, 0.2) for z in (-0.2, 0.2)])
    faces = np.ravel(
        [
            [0, 1, 3],
            [0, 3, 2],
            [4, 6, 7],
            [4, 7, 5],
            [0, 4, 5],
            [0, 5, 1],
            [2, 3, 7],
            [2, 7, 6],
            [0, 2, 6],
            [0, 6, 4],
            [1, 5, 7],
            [1, 7, 3],
        ]
    )
    b = Builder()
    b.doc["nodes"] = [
        {"name": "root", "children": [1]},
        {"name": "prop", "children": [2], "translation": [0, 1, 0], "mesh": 0},
        {"name": "tip", "translation": [0.8, 0.5, 0], "mesh": 0},
    ]
    b.doc["scenes"] = [{"nodes": [0]}]
    cube = {"attributes": {"POSITION": b.accessor(corners)}, "indices": b.accessor(faces, UINT)}
    b.doc["meshes"] = [{"primitives": [cube]}]
    hide_and_show(b, 1)
    return b.gltf_bytes()


def test_a_prop_scaled_to_zero_draws_nothing(qtbot, tmp_path):
    path = tmp_path / "prop.gltf"
    path.write_bytes(_cube_file())
    window = open_window(qtbot, path, frame=0)
    viewport, doc = window.viewport, window.document
    viewport.frame_points(np.array([[-0.5, 0, -0.5], [1.3, 2.0, 0.5]]))
    qtbot.wait(30)
    # Along the prop's bone (from its head to the tip's) as it stands at scale 1.
    along = np.outer([0.3, 0.5, 0.7], [0.8, 0.5, 0.0]) + [0.0, 1.0, 0.0]
    xy = np.round(viewport.project(along)).astype(int)
    shown = {}
    for frame in (0.0, 30.0, 60.0):  # scale 1, 0, 1
        doc.set_frame(frame)
        qtbot.wait(30)
        image = framebuffer(viewport, qtbot)
        grey = image.min(axis=2) > 110  # the light grey bones (the ground is darker)
        bone = sum(grey[y - 2 : y + 3, x - 2 : x + 3].sum() for x, y in xy)
        shown[frame] = (clay(image).sum(), bone)
    assert shown[0.0][0] > 2000 and shown[60.0][0] > 0.9 * shown[0.0][0]
    assert shown[0.0][1] > 5 and shown[60.0][1] > 5
    assert shown[30.0] == (0, 0)  # both cubes and the prop's bone collapsed: nothing drawn
