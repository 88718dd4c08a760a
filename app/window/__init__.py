"""The main window, its actions and menus, application start-up and rendering to images."""
