"""Site inputs above the engine: release areas from GIS polygons or a source raster (``areas``),
rock classes (``rock_classes``), soil and forest class maps (``landcover``), barrier lines from
the configuration and vector files (``barrier_files``), and the configuration compiler that turns
a validated configuration into an ensemble (``from_config``)."""
