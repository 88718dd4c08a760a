"""Linear blend skinning on the graphics card: the vertex program, and whether a context can
run it.

:func:`skin_source` is :mod:`app.scene.rig.skinning`'s formula in GLSL 1.40 (OpenGL 3.1):
each vertex blends the rows of its joints' skin matrices ``S[j]`` by its weights,
``A = sum_k w_k S[j_k]`` (the palette is a buffer texture, three ``RGBA32F`` texels per
joint: the rows of ``S[j]``'s top 3×4, so a rig of any size fits, where a uniform array
stops at a few hundred joints), moves its bind position by ``A``, and turns its normal by
the cofactor of ``A``'s 3×3 part (``det(A) A⁻ᵀ``: exact under non-uniform scale too),
renormalized, with the sign of ``det(A)`` (a mirrored bone does not turn normals inside).
The program writes the world position and normal of each vertex by transform feedback
into the buffer the mesh is then drawn from, so a pose is skinned once, not once per
redraw (orbiting draws what was skinned).

What the card must have, and what llvmpipe (Mesa, the CI's renderer) has: OpenGL 3.1 or
later, not OpenGL ES (buffer textures, ``texelFetch``, transform feedback, vertex array
objects; Mesa's compatibility profile is 4.5, a buffer texture may hold 128 M texels).
:func:`supported` says so; without it the viewport skins with numpy, as before.
"""

from __future__ import annotations

import ctypes

from OpenGL import GL
from pyqtgraph.Qt import QtGui

#: Influence sets the program is compiled for: a vertex's weights are padded to the next.
INFLUENCE_SETS = (4, 8)
#: Attribute layout of the static buffer, in floats per vertex: position, normal, then per
#: set of four influences their palette entries (as floats: exact below 2**24) and weights.
OUTPUTS = ("o_position", "o_normal")

_SKIN = """#version 140
#define SETS {sets}
uniform samplerBuffer u_palette;  // rows of the 3x4 skin matrices, 3 texels per joint
in vec3 a_position;
in vec3 a_normal;
in vec4 a_joints0;  // palette entries, as floats
in vec4 a_weights0;
#if SETS > 1
in vec4 a_joints1;
in vec4 a_weights1;
#endif
out vec3 o_position;
out vec3 o_normal;

void blend(inout vec4 r0, inout vec4 r1, inout vec4 r2, vec4 joints, vec4 weights) {{
    for (int k = 0; k < 4; ++k) {{
        int row = 3 * int(joints[k]);
        r0 += weights[k] * texelFetch(u_palette, row);
        r1 += weights[k] * texelFetch(u_palette, row + 1);
        r2 += weights[k] * texelFetch(u_palette, row + 2);
    }}
}}

void main() {{
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);  // the rows of A
    blend(r0, r1, r2, a_joints0, a_weights0);
#if SETS > 1
    blend(r0, r1, r2, a_joints1, a_weights1);
#endif
    vec4 p = vec4(a_position, 1.0);
    o_position = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
    // the columns of A's 3x3 part and their cofactors: cof(A) = [a1 x a2 | a2 x a0 | a0 x a1]
    vec3 a0 = vec3(r0.x, r1.x, r2.x), a1 = vec3(r0.y, r1.y, r2.y), a2 = vec3(r0.z, r1.z, r2.z);
    vec3 c0 = cross(a1, a2), c1 = cross(a2, a0), c2 = cross(a0, a1);
    vec3 n = c0 * a_normal.x + c1 * a_normal.y + c2 * a_normal.z;
    o_normal = sign(dot(a0, c0)) * n / max(length(n), 1.175494e-38);
    gl_Position = vec4(0.0);
}}
"""


def influence_set(influences: int) -> int:
    """The influence count a mesh of ``influences`` per vertex is skinned with (4 or 8)."""
    for size in INFLUENCE_SETS:
        if influences <= size:
            return size
    raise ValueError(f"at most {INFLUENCE_SETS[-1]} influences per vertex, not {influences}")


def skin_source(influences: int) -> str:
    """The vertex program for ``influences`` (4 or 8) per vertex."""
    return _SKIN.format(sets=influence_set(influences) // 4)


def supported(context: QtGui.QOpenGLContext | None = None) -> bool:
    """Whether ``context`` (default: the current one) can skin on the card: desktop OpenGL
    3.1 or later."""
    context = context or QtGui.QOpenGLContext.currentContext()
    if context is None or context.isOpenGLES():
        return False
    return tuple(context.format().version()) >= (3, 1)


_PROGRAMS: dict = {}  # (share group, influence set) -> program id


def transform_program(influences: int) -> int:
    """The skinning program for ``influences`` per vertex, its outputs captured by transform
    feedback, in the current context's share group (compiled once per group)."""
    context = QtGui.QOpenGLContext.currentContext()
    key = (id(context.shareGroup()), influence_set(influences))
    program = _PROGRAMS.get(key)
    if program is None:
        program = _PROGRAMS[key] = _link(skin_source(influences))
    return program


def _link(source: str) -> int:
    shader = GL.glCreateShader(GL.GL_VERTEX_SHADER)
    GL.glShaderSource(shader, source)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        raise RuntimeError(f"skinning shader: {GL.glGetShaderInfoLog(shader).decode()}")
    program = GL.glCreateProgram()
    GL.glAttachShader(program, shader)
    names = (ctypes.c_char_p * len(OUTPUTS))(*(n.encode() for n in OUTPUTS))
    GL.glTransformFeedbackVaryings(
        program,
        len(OUTPUTS),
        ctypes.cast(names, ctypes.POINTER(ctypes.POINTER(GL.GLchar))),
        GL.GL_INTERLEAVED_ATTRIBS,
    )
    GL.glLinkProgram(program)
    GL.glDeleteShader(shader)  # kept by the program
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        raise RuntimeError(f"skinning program: {GL.glGetProgramInfoLog(program).decode()}")
    return program
