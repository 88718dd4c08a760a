"""glTF 2.0: the container and accessors, the importer, animation sampling, meshes, the exporter."""
