"""The layer registry: every layer a viewport draws over the scene, in drawing order.

A teaching view or a tutorial adds a layer with one line in :data:`LAYERS` (or, at run time
and in tests, :func:`register`, usable as a class decorator). Each viewport makes one
instance of every layer registered when it is built (:class:`LayerStack`) and draws the
active ones after the scene; nothing in the general drawing names a layer.
"""

from __future__ import annotations

import numpy as np

from app.scene.registry import Registry
from app.widgets.viewport.layers.base import Labels, Layer, LayerHandle
from app.widgets.viewport.layers.basis_change import BasisChangeLayer
from app.widgets.viewport.teaching_drawing import StepThroughLayer, TrailsLayer

#: Name -> the layer's class (called with the viewport's root item), in drawing order: the
#: order of their labels and of their items at equal depth.
LAYERS: Registry[str, type[Layer]] = Registry("viewport layer", key=lambda cls: cls.name)
LAYERS.register(TrailsLayer)
LAYERS.register(StepThroughLayer)
LAYERS.register(BasisChangeLayer)

#: ``register(cls)`` (or ``@register`` over the class): draw layer ``cls`` in viewports built
#: from now on (after the registered ones); ``unregister(name)`` forgets it.
register = LAYERS.register
unregister = LAYERS.unregister


class LayerStack:
    """One viewport's instances of the registered layers.

    ``stack[name]`` is a layer; an attribute the stack does not have is read from the one
    layer that has it (``viewport.teaching.trail_paths``), so tests and tools reach what a
    layer shows without knowing which layer it is.
    """

    def __init__(self, root):
        self.layers: list[Layer] = [cls(root) for cls in LAYERS.values()]

    def __getitem__(self, name: str) -> Layer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(f"no layer {name!r}")

    def __getattr__(self, attribute: str):
        if attribute.startswith("_") or attribute == "layers":
            raise AttributeError(attribute)
        owners = [layer for layer in self.layers if hasattr(layer, attribute)]
        if len(owners) != 1:
            raise AttributeError(f"{len(owners)} layers have {attribute!r}")
        return getattr(owners[0], attribute)

    def draw(self, document, pose, scale: float) -> Labels:
        """Draw the active layers, hide the others; their labels, in layer order."""
        labels: Labels = []
        for layer in self.layers:
            if layer.active(document):
                labels += layer.draw(document, pose, scale)
            else:
                layer.hide()
        return labels

    def handles(self, document, pose) -> list[LayerHandle]:
        """The active layers' draggable points at the current frame."""
        return [
            h
            for layer in self.layers
            if layer.active(document)
            for h in layer.handles(document, pose)
        ]

    def drawn_points(self) -> np.ndarray:
        """What the layers draw now that Frame All keeps in view, (N, 3)."""
        return np.concatenate(
            [layer.drawn_points().reshape(-1, 3) for layer in self.layers] + [np.zeros((0, 3))]
        )
