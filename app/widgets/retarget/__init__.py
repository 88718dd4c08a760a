"""The humanoid map's table and the dialogs that show it: the map (Rig ▸ Humanoid Map…) and
the import of a clip onto the character (File ▸ Import Motion onto Character…)."""
