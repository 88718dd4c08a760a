"""The ``limit_distance`` constraint kind in one package (Blender's Limit Distance; issue 29
item 1): its model (:mod:`.model`), its solver (:mod:`.solver`), its scene-file schema
(:mod:`.schema`) and its pure edits (:mod:`.edits`). Its editor view is
:mod:`app.widgets.kinds.limit_distance`."""
