"""Leaf bones at import (issue 26 item 7; ``app.scene.formats.leaf_bones``): the bones
Blender's FBX exporter adds at the ends of chains are ignored when the file says Blender wrote
them, as Blender's importer does with "Ignore Leaf Bones"; every other bone moves as before,
the parents get the length the leaves marked, and a saved scene keeps its meshes."""

from __future__ import annotations

import numpy as np
import pytest

from app.scene.evaluate import bake
from app.scene.formats import leaf_bones
from app.scene.formats.fbx.importer import load_fbx
from app.scene.io import load_scene, save_scene
from tests.helpers.leaf_bones_files import HUESITOS, LEAVES, far_leaves_fbx


@pytest.fixture(scope="module")
def kept():
    return load_fbx(HUESITOS, leaf_bones="keep")


def test_blenders_leaves_are_ignored_and_nothing_else_moves(kept):
    ignored = load_fbx(HUESITOS)  # "auto": the file says Blender 2.79 wrote it
    names = [b.name for b in ignored.bones]
    assert not set(LEAVES) & set(names) and len(names) == len(kept.bones) - 2
    assert any("ignored 2 leaf bones" in m for m in ignored.messages)
    frames = np.arange(ignored.frame_start, ignored.frame_end + 1, 5.0)
    ours, theirs = bake(ignored, frames), bake(kept, frames)
    at = [list(theirs.bone_names).index(n) for n in names]
    assert np.allclose(ours.heads, theirs.heads[:, at], atol=1e-9)
    # each parent now ends where its leaf began, at every frame
    for leaf in LEAVES:
        i, k = names.index(leaf.removesuffix("_end")), list(theirs.bone_names).index(leaf)
        assert np.allclose(ours.tails[:, i], theirs.heads[:, k], atol=1e-9)
    assert len(ignored.meshes) == len(kept.meshes)
    assert not set(LEAVES) & set(ignored.meshes[0].joints)


def test_the_choice_auto_ignore_keep(kept):
    assert leaf_bones.apply(kept, "Maya 2020", "auto") is kept  # not Blender's: kept
    assert leaf_bones.apply(kept, "Blender (stable FBX IO)", "keep") is kept
    ignored = leaf_bones.apply(kept, "Maya 2020", "ignore")
    assert not set(LEAVES) & {b.name for b in ignored.bones}
    with pytest.raises(ValueError, match="leaf_bones"):
        leaf_bones.apply(kept, None, "sometimes")


def test_a_leaf_written_far_off_gives_its_parent_a_plausible_length(tmp_path, kept):
    """Leaves 100 times too far (Xbot exported from Blender: 23 m above the head): the parent
    points at the leaf with its own parent's length, not 100 times its length."""
    scene = load_fbx(far_leaves_fbx(tmp_path / "far.fbx"))
    by_name = {b.name: b for b in scene.bones}
    for leaf in LEAVES:
        parent = by_name[leaf.removesuffix("_end")]
        near = next(b for b in kept.bones if b.name == leaf).translation
        assert np.allclose(np.cross(parent.tail, near), 0, atol=1e-12)  # its direction
        assert np.linalg.norm(parent.tail) == pytest.approx(np.linalg.norm(parent.translation))


def test_a_saved_scene_reads_its_meshes_back_without_the_leaves(tmp_path):
    scene = load_scene(HUESITOS)
    path = tmp_path / "huesitos.json"
    save_scene(scene, path)
    again = load_scene(path)
    assert [b.name for b in again.bones] == [b.name for b in scene.bones]
    assert len(again.meshes) == 1 and again.meshes[0].joints == scene.meshes[0].joints
