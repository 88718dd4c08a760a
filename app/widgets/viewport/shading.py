"""A lit shader for solid items: a key light from the viewer's upper left plus ambient.

pyqtgraph's own ``shaded`` program lights from behind the camera's right shoulder, which
leaves most camera-facing faces at its 20 % ambient floor; bones would read as black.
"""

from __future__ import annotations

from pyqtgraph.opengl import shaders

#: GLSL: ``lit(rgb, normal)``, the colour under the key light, ambient and a faint rim
#: (every lit program of the viewport shares it, so bones and meshes are lit alike).
LIGHTING = """
            vec3 lit(vec3 rgb, vec3 normal) {
                vec3 key = normalize(vec3(-0.45, 0.6, 1.0));
                float diffuse = max(dot(normalize(normal), key), 0.0);
                float rim = 0.15 * max(dot(normalize(normal), vec3(0.5, -0.3, 0.4)), 0.0);
                return min(rgb * (0.38 + 0.62 * diffuse + rim), vec3(1.0));
            }
"""

LIT = shaders.ShaderProgram(
    "pivotal_lit",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            uniform mat3 u_normal;
            attribute vec4 a_position;
            attribute vec3 a_normal;
            attribute vec4 a_color;
            varying vec4 v_color;
            varying vec3 v_normal;
            void main() {
                v_normal = normalize(u_normal * a_normal);
                v_color = a_color;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            varying vec4 v_color;
            varying vec3 v_normal;
            """
            + LIGHTING
            + """
            void main() {
                gl_FragColor = vec4(lit(v_color.rgb, v_normal), v_color.a);
            }
            """
        ),
    ],
)
