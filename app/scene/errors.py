"""The one error type for bad input: it names the file, where in it, and why."""

from __future__ import annotations


class SceneError(ValueError):
    """Bad scene or BVH input.

    Parameters
    ----------
    reason : str
        Why the input is refused, in words a user understands.
    path : str, optional
        Where: a JSON path (``bones[3].rotation``) or ``line 12`` for text formats.
    file : str, optional
        The file's name, when the input came from one.
    details : str, optional
        What another program said, word for word (assimp's message), for the details of a
        dialog whose ``reason`` says it in the user's words.
    """

    def __init__(self, reason: str, path: str = "", file: str = "", details: str = ""):
        self.reason = reason
        self.path = path
        self.file = file
        self.details = details
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [p for p in (self.file, self.path) if p]
        return ": ".join(parts + [self.reason])

    def with_file(self, file: str) -> SceneError:
        """The same error, naming ``file``."""
        return SceneError(self.reason, self.path, file, self.details)
