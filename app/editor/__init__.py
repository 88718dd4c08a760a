"""The Qt-side document and everything that edits it: undo commands, operations, files, playback."""
