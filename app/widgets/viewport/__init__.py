"""The OpenGL viewport: the widget, its drags and picking, and the items it draws."""
