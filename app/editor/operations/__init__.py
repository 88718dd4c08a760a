"""What the user can do to a document: each edit one function that pushes undo commands.

Laid out by subject, as the pure edits of :mod:`app.scene.rig` are (``<subject>_edits``
there, ``<subject>_operations`` here):

- ``base``: what every operation uses (``OperationError``, ``replace``, ``LiveEdit``);
- ``key_operations``: anything at the current frame (K, Shift+K, a rotation, a position, a
  bone's translation or scale, a key's interpolation) and selections of keys (the curve
  view's and the timeline's moves, deletes, copies and pastes);
- ``bone_operations`` (with ``bone_commands``): the skeleton and a bone's rest values;
- ``constraint_operations``: adding and removing constraints and pivots, their settings
  and targets; ``follow_operations``: those of the kinds that follow a bone;
- ``pose_operations``: copy, paste and clear a pose; ``timeline_operations``: the frame rate
  and range;
- whole rigs and clips: ``rig_operations`` (the foot-roll rig), ``plant_operations``
  (planting feet), ``motion_import`` (motion onto a character).
"""
