"""The viewport's OpenGL plumbing: its own window and context outside the widgets'
composition (:mod:`.surface`), and skinning on the graphics card (:mod:`.skin_program`,
:mod:`.gpu_skin`)."""
