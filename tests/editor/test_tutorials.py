"""Tutorial scenes and texts, and the seed's change-of-basis numbers."""

import json

import numpy as np
import pytest

from app.editor.tutorials import INDEX, load_tutorials
from app.scene.analysis.matrix_chain import a_to_b_chain
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import dumps_scene, load_scene, loads_scene
from app.scene.math.transforms import inverse, transform_points
from app.scene.rig.skeleton import a_to_b
from tests.helpers.paths import CMU_DIR, SCENES

SEED_MATRIX = np.array([[0, 0, 1, 9], [0, 1, 0, 4], [-1, 0, 0, 28], [0, 0, 0, 1]], float)


def test_the_basis_change_scene_reproduces_the_seed():
    scene = load_scene(SCENES / "basis_change.json")
    world = bake(scene, [0.0, 48.0]).bone_to_world
    office, door, shop = (
        scene.bone_index(n) for n in ("Rice208", "RiceDoor", "EinsteinBrosBagels")
    )
    rice208_to_ricedoor = a_to_b(world[:, office], world[:, door])
    np.testing.assert_allclose(rice208_to_ricedoor, [SEED_MATRIX] * 2, atol=1e-12)
    bagels = world[:, shop, :3, 3]
    np.testing.assert_allclose(
        transform_points(inverse(world[:, office]), bagels), [[-2, -4, -10]] * 2, atol=1e-12
    )
    np.testing.assert_allclose(
        transform_points(inverse(world[:, door]), bagels), [[-1, 0, 30]] * 2, atol=1e-12
    )
    chain = a_to_b_chain(scene, "Rice208", "RiceDoor", 0.0)
    assert chain.text() == "R_RiceDoor^-1 T_RiceDoor^-1 T_Rice208 R_Rice208"
    np.testing.assert_allclose(chain.product(), SEED_MATRIX, atol=1e-12)


def test_the_tutorial_key_agrees_with_the_scene_and_survives_a_save():
    scene = load_scene(SCENES / "basis_change.json")
    tutorial = scene.extra["tutorial"]
    world = bake(scene, [0.0]).bone_to_world[0]
    point = world[scene.bone_index(tutorial["point"]["bone"]), :3, 3]
    for frame in tutorial["frames"]:
        coords = tutorial["point_in_frames"][frame["bone"]]
        to_frame = inverse(world[scene.bone_index(frame["bone"])])
        np.testing.assert_allclose(transform_points(to_frame, point), coords, atol=1e-12)
    change = tutorial["change_of_basis"]
    np.testing.assert_array_equal(change["matrix"], SEED_MATRIX)
    assert (change["from"], change["to"]) == ("Rice208", "RiceDoor")
    assert loads_scene(dumps_scene(scene)).extra == scene.extra


def test_the_index_lists_every_tutorial_with_its_text():
    tutorials = load_tutorials()
    assert [t.id for t in tutorials] == [
        "basis_change",
        "calf_points_at_ankle",
        "fabrik_arm",
        "foot_roll",
        "build_foot_roll",
        "tumbling_box",
        "humanoid_gltf",
        "convergence",
        "cmu_01_01",
        "clean_mocap_walk",
    ]
    for t in tutorials:
        text = t.markdown()
        assert text.splitlines()[0] == f"# {t.title}"
        assert "## What to try" in text and "## What to notice" in text
        assert t.available == t.scene.is_file()
        assert t.available, f"{t.id}: {t.why_unavailable()}"  # make test installs the CMU clip
    assert {t.id: t for t in tutorials}["cmu_01_01"].scene == CMU_DIR / "01_01.bvh"


def test_every_available_tutorial_scene_opens_and_bakes():
    for t in load_tutorials():
        if t.available:
            scene = load_scene(t.scene)
            result = bake(scene, [scene.frame_start, scene.frame_end])
            assert np.isfinite(result.bone_to_world).all()


def test_a_broken_index_names_the_entry(tmp_path):
    index = tmp_path / "index.json"
    entries = json.loads(INDEX.read_text())
    for e in entries["tutorials"]:  # paths are relative to the index: make them absolute
        e["text"] = str(INDEX.parent / e["text"])
    index.write_text(json.dumps(entries))
    assert [t.text for t in load_tutorials(index)] == [t.text for t in load_tutorials()]
    entries["tutorials"][2]["text"] = "missing.md"
    index.write_text(json.dumps(entries))
    with pytest.raises(SceneError, match=r"tutorials\[2\]\.text: text 'missing.md' does not"):
        load_tutorials(index)
    entries["tutorials"][1]["id"] = "basis_change"
    index.write_text(json.dumps(entries))
    with pytest.raises(SceneError, match=r"tutorials\[1\]\.id: id 'basis_change' is used twice"):
        load_tutorials(index)
