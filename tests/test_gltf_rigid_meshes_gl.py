"""Rigid and top-level glTF meshes in the real OpenGL viewport (Xvfb + llvmpipe): Khronos'
BoxAnimated has a spinning, rising box on a mesh-only node and a still base on a top-level
node. Both are drawn where the glTF specification puts them (evaluated by the test's own
sampler, not the importer), and the rigid one moves with its bone between two frames."""

from __future__ import annotations

import numpy as np

from .gui import framebuffer, open_window
from .test_gltf_corpus import CORPUS, accessor, read_gltf, spec_worlds
from .test_mesh_viewport_gl import on_clay

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
