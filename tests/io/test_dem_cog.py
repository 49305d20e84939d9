"""Labelled rasters: cloud-optimised GeoTIFFs with band description, unit, data type and nodata
read back by rasterio as written; the plain GeoTIFF and ESRI ASCII round trips unchanged."""

import math

import numpy as np
import pytest
import rasterio
from rasterio.crs import CRS

from tumble.io import cog
from tumble.io.dem import COG_BLOCKSIZE, north_up_transform, read_raster, write_raster

X0, Y0, DX, DY = 2600000.5, 1200000.5, 2.0, 2.0


def hazard(shape=(400, 600), seed=3) -> np.ndarray:
    """Float values with a block of NaN (no rock there)."""
    values = np.random.default_rng(seed).uniform(0.0, 900.0, shape)
    values[:50, :80] = np.nan
    return values


def test_float32_cog_with_description_and_unit(tmp_path):
    values = hazard()
    path = write_raster(
        tmp_path / "energy.tif",
        values,
        X0,
        Y0,
        DX,
        DY,
        crs="EPSG:2056",
        dtype="float32",
        description="maximum kinetic energy",
        unit="kJ",
        cog=True,
    )
    with rasterio.open(path) as src:
        assert src.dtypes == ("float32",)
        assert math.isnan(src.nodata)
        assert src.descriptions == ("maximum kinetic energy",)
        assert src.units == ("kJ",)
        assert src.profile["tiled"]
        assert src.profile["blockxsize"] == src.profile["blockysize"] == COG_BLOCKSIZE
        assert src.profile["compress"] == "deflate"
        assert src.tags(ns="IMAGE_STRUCTURE")["LAYOUT"] == "COG"
        assert src.overviews(1)
        assert src.crs == CRS.from_epsg(2056)
        assert src.transform == north_up_transform(X0, Y0, DX, DY, values.shape[0])
        stored = src.read(1)[::-1]
    np.testing.assert_array_equal(stored, values.astype(np.float32))
    grid = read_raster(path)
    assert (grid.x0, grid.y0, grid.dx, grid.dy) == (X0, Y0, DX, DY)
    assert grid.holes == 50 * 80


def test_uint32_counts_with_their_nodata(tmp_path):
    counts = np.random.default_rng(4).integers(0, 50, (400, 600)).astype(np.float64)
    counts[10:20, 30:40] = np.nan
    counts[0, 0] = 4294967294.0  # the largest valid count below the nodata value
    path = write_raster(
        tmp_path / "passing_count.tif",
        counts,
        X0,
        Y0,
        DX,
        DY,
        crs="EPSG:2056",
        nodata=4294967295,
        dtype="uint32",
        description="rocks whose centre passed the cell",
        unit="rocks",
        cog=True,
    )
    with rasterio.open(path) as src:
        assert src.dtypes == ("uint32",)
        assert src.nodata == 4294967295
        assert src.descriptions == ("rocks whose centre passed the cell",)
        assert src.units == ("rocks",)
        assert src.overviews(1)
        masked = src.read(1, masked=True)[::-1]
    assert masked.dtype == np.uint32
    np.testing.assert_array_equal(masked.mask, np.isnan(counts))
    np.testing.assert_array_equal(masked.compressed(), counts[~np.isnan(counts)])


def test_small_cog_has_no_overviews_but_every_label(tmp_path):
    values = np.array([[1.0, 2.0, np.nan], [4.0, 5.0, 6.0]])
    path = write_raster(
        tmp_path / "small.tif", values, 0.0, 0.0, 1.0, 1.0, description="d", unit="m", cog=True
    )
    with rasterio.open(path) as src:
        assert src.overviews(1) == []
        assert src.dtypes == ("float64",) and math.isnan(src.nodata)
        assert (src.descriptions, src.units) == (("d",), ("m",))
    np.testing.assert_array_equal(read_raster(path).values, values)


def test_plain_geotiff_and_ascii_round_trips_are_unchanged(tmp_path):
    values = hazard((30, 40))
    for name in ("plain.tif", "plain.asc"):
        path = write_raster(tmp_path / name, values, X0, Y0, DX, DY, crs="EPSG:2056")
        grid = read_raster(path)
        np.testing.assert_array_equal(grid.values, values)
        assert (grid.x0, grid.y0, grid.dx, grid.dy) == (X0, Y0, DX, DY)
        assert grid.crs == CRS.from_epsg(2056)
    with rasterio.open(tmp_path / "plain.tif") as src:
        assert src.dtypes == ("float64",)
        assert src.overviews(1) == []
        assert src.descriptions == (None,) and src.units == (None,)
    with rasterio.open(tmp_path / "plain.asc") as src:
        assert src.nodata == -9999.0
    # the GeoTIFF options are not written to an ASCII grid, which has no place for them
    path = write_raster(
        tmp_path / "labelled.asc", values, X0, Y0, DX, DY, nodata=math.nan, unit="kJ", cog=True
    )
    np.testing.assert_array_equal(read_raster(path).values, values)
    assert not list(tmp_path.glob("*.aux.xml"))


def test_bad_options_are_refused(tmp_path):
    values = np.array([[1.0, 2.0], [3.0, np.nan]])
    with pytest.raises(ValueError, match="dtype must be one of"):
        write_raster(tmp_path / "a.tif", values, 0.0, 0.0, 1.0, 1.0, dtype="int16")
    with pytest.raises(ValueError, match="uint32 raster needs a nodata value"):
        write_raster(tmp_path / "a.tif", values, 0.0, 0.0, 1.0, 1.0, dtype="uint32")
    with pytest.raises(ValueError, match="whole numbers"):
        write_raster(tmp_path / "a.tif", values + 0.5, 0.0, 0.0, 1.0, 1.0, dtype="uint32", nodata=9)
    with pytest.raises(ValueError, match="equal the nodata value"):
        write_raster(tmp_path / "a.tif", values, 0.0, 0.0, 1.0, 1.0, dtype="uint32", nodata=3)
    with pytest.raises(ValueError, match="float32 range"):
        write_raster(tmp_path / "a.tif", values * 1e300, 0.0, 0.0, 1.0, 1.0, dtype="float32")
    with pytest.raises(ValueError, match=r"whole numbers in \[-128, 127\]"):
        write_raster(
            tmp_path / "a.tif", values - 200, 0.0, 0.0, 1.0, 1.0, dtype="int8", nodata=-128
        )


def test_int8_keeps_negative_classes(tmp_path):
    """A change of class (-3 ... +3) as int8 with nodata -128 reads back exactly."""
    values = np.array([[-3.0, 0.0, 3.0], [1.0, np.nan, -1.0]])
    path = write_raster(
        tmp_path / "change.tif", values, 0.0, 0.0, 1.0, 1.0, dtype="int8", nodata=-128, cog=True
    )
    np.testing.assert_array_equal(read_raster(path).values, values)
    with rasterio.open(path) as src:
        assert src.dtypes == ("int8",) and src.nodata == -128


@pytest.mark.parametrize(
    ("dtype", "nodata", "suffix"),
    [("float32", None, ".tif"), ("uint32", 4294967295, ".tif"), ("float64", None, ".asc")],
)
def test_a_window_writes_the_grid_it_belongs_to(tmp_path, dtype, nodata, suffix):
    """A 120 x 90 window at row 200, column 300 of a 400 x 600 grid reads back as the full grid
    with the window's values there and nodata (NaN) everywhere else, the same cells as writing
    the full grid; with description and unit for the COGs."""
    window = np.floor(hazard((120, 90), seed=4))
    window[5:9, 7:11] = np.nan
    full = np.full((400, 600), np.nan)
    full[200:320, 300:390] = window
    options = {"crs": "EPSG:2056", "nodata": nodata}
    if suffix == ".tif":
        options.update(dtype=dtype, cog=True, description="counts", unit="rocks")
    a = write_raster(
        tmp_path / f"window{suffix}",
        window,
        X0,
        Y0,
        DX,
        DY,
        shape=(400, 600),
        offset=(200, 300),
        **options,
    )
    b = write_raster(tmp_path / f"full{suffix}", full, X0, Y0, DX, DY, **options)
    ra, rb = read_raster(a), read_raster(b)
    assert ra.values.shape == (400, 600)
    assert np.array_equal(ra.values, rb.values, equal_nan=True)
    assert np.array_equal(
        ra.values, full.astype(dtype if dtype != "uint32" else "float64"), equal_nan=True
    )
    if suffix == ".tif":
        with rasterio.open(a) as src:
            assert src.descriptions == ("counts",) and src.units == ("rocks",)
    with pytest.raises(ValueError, match="does not fit"):
        write_raster(tmp_path / "bad.tif", window, X0, Y0, DX, DY, shape=(100, 100), offset=(0, 0))


@pytest.mark.parametrize("flip_rows", [False, True])
def test_a_raster_read_a_few_rows_at_a_time_equals_one_read(tmp_path, monkeypatch, flip_rows):
    """``read_raster`` by blocks of 7 rows (a file of 40 rows: the last block short) gives the
    values of rasterio's one masked read, flipped to rows south to north, NaN in the holes;
    with a south-up file (transform.e > 0) too."""
    import tumble.io.dem as dem

    values = np.random.default_rng(4).uniform(0.0, 900.0, (40, 30)).astype(np.float32)
    values[17:25, 3:9] = -9999.0  # 48 holes across two blocks
    transform = north_up_transform(X0, Y0, DX, DY, 40)
    if flip_rows:
        transform = rasterio.transform.Affine(DX, 0.0, X0 - 0.5 * DX, 0.0, DY, Y0 - 0.5 * DY)
    path = tmp_path / "dem.tif"
    profile = {"driver": "GTiff", "height": 40, "width": 30, "count": 1, "dtype": "float32"}
    with rasterio.open(path, "w", **profile, transform=transform, nodata=-9999.0) as dst:
        dst.write(values, 1)
    with rasterio.open(path) as src:
        masked = src.read(1, masked=True)
    want = np.where(np.ma.getmaskarray(masked), np.nan, np.ma.getdata(masked).astype(np.float64))
    if not flip_rows:
        want = want[::-1]
    monkeypatch.setattr(dem, "READ_ROWS", 7)
    grid = read_raster(path)
    np.testing.assert_array_equal(grid.values, want)
    assert int(np.isnan(grid.values).sum()) == 48


@pytest.mark.parametrize(
    ("dtype", "nodata", "window"),
    [("float32", None, False), ("uint32", 4294967295, False), ("float32", None, True)],
)
def test_a_cog_staged_in_memory_is_the_file_staged_on_disk(
    tmp_path, monkeypatch, dtype, nodata, window
):
    """The same grid written through GDAL's memory driver (small grids) and through the tiled
    sparse staging file (large grids, forced here by a staging limit of 0 bytes) gives the same
    file, byte for byte: the same cells, the same overviews (whose data rasterio reads back
    identically), and the blocks of nodata only left out of both (a 120 x 90 window of a
    1000 x 1100 grid touches 2 of its 4 x 5 blocks of 256 x 256)."""
    import tumble.io.cog as cog

    values = np.floor(hazard((120, 90) if window else (700, 600), seed=5))
    values[5:9, 7:11] = np.nan
    options = {"crs": "EPSG:2056", "nodata": nodata, "dtype": dtype, "cog": True}
    options.update(description="counts", unit="rocks")
    if window:
        options.update(shape=(1000, 1100), offset=(300, 500))
    paths = {}
    for limit, name in ((cog.MEMORY_STAGING_BYTES, "memory"), (0, "disk")):
        monkeypatch.setattr(cog, "MEMORY_STAGING_BYTES", limit)
        paths[name] = write_raster(tmp_path / f"{name}.tif", values, X0, Y0, DX, DY, **options)
    assert paths["memory"].read_bytes() == paths["disk"].read_bytes()
    with rasterio.open(paths["memory"]) as src:
        factors = src.overviews(1)
        assert factors and src.tags(ns="IMAGE_STRUCTURE")["LAYOUT"] == "COG"
        assert src.descriptions == ("counts",) and src.units == ("rocks",)
        cells = src.read(1, masked=True)[::-1]
        levels = [src.read(1, out_shape=(src.height // f, src.width // f)) for f in factors]
        if window:  # the window: file rows 580-699 (block row 2), columns 500-589 (1 and 2)
            stored = [
                (r, c)
                for r in range(4)
                for c in range(5)
                if src.get_tag_item(f"BLOCK_OFFSET_{c}_{r}", "TIFF", bidx=1) is not None
            ]
            assert stored == [(2, 1), (2, 2)]
    want = np.full((1000, 1100), np.nan) if window else values
    if window:
        want[300:420, 500:590] = values
    np.testing.assert_array_equal(np.ma.getmaskarray(cells), np.isnan(want))
    np.testing.assert_array_equal(cells.compressed(), want[~np.isnan(want)].astype(dtype))
    with rasterio.open(paths["disk"]) as src:
        assert src.overviews(1) == factors
        for f, level in zip(factors, levels, strict=True):
            np.testing.assert_array_equal(
                src.read(1, out_shape=(src.height // f, src.width // f)), level
            )


def _block_reference(full: np.ndarray, factor: int, pooling: str) -> np.ndarray:
    """The largest or smallest valid value of each factor x factor block of a raster read
    from the top (NaN nodata), the blocks from its top-left corner; NaN for a block without."""
    ny, nx = full.shape
    h, w = -(-ny // factor), -(-nx // factor)
    padded = np.full((h * factor, w * factor), np.nan)
    padded[:ny, :nx] = full
    blocks = padded.reshape(h, factor, w, factor).transpose(0, 2, 1, 3).reshape(h, w, -1)
    valid = ~np.isnan(blocks)
    if pooling == "absmax":
        # the largest |v|, of equal magnitudes the larger v: the last of a sort by (|v|, v)
        out = np.full((h, w), np.nan)
        for a in range(h):
            for b in range(w):
                v = blocks[a, b][valid[a, b]]
                if v.size:
                    out[a, b] = v[np.lexsort((v, np.abs(v)))][-1]
        return out
    fill = -np.inf if pooling == "max" else np.inf
    pick = np.max if pooling == "max" else np.min
    out = pick(np.where(valid, blocks, fill), axis=2)
    return np.where(valid.any(axis=2), out, np.nan)


@pytest.mark.parametrize("pooling", ["max", "min", "absmax"])
@pytest.mark.parametrize(
    "dtype, nodata, strip",
    [
        ("float32", None, 1024),
        ("uint32", 4294967295.0, 1024),
        ("uint8", 255.0, 7),
        ("int8", -128.0, 7),
    ],
)
def test_overviews_hold_each_block_s_largest_or_smallest_value(
    tmp_path, monkeypatch, pooling, dtype, nodata, strip
):
    """A window written at an odd row and column of a 700 x 900 grid, a third of its cells
    nodata: every overview level holds the largest (smallest) valid value of each block of
    the whole grid, nodata where the block has none, the full resolution reads back as written,
    the labels are kept and no staging file is left beside the raster; also when the first
    level is pooled by strips of 14 rows."""
    monkeypatch.setattr(cog, "STRIP_ROWS", strip)
    rng = np.random.default_rng(7)
    low = -100.0 if dtype in ("int8", "float32") else 0.0  # signed changes, with ties +v, -v
    window = np.floor(rng.uniform(low, 100.0, (301, 503)))
    window[rng.random(window.shape) < 0.33] = np.nan
    window[:40, :60] = np.nan  # a block of the grid without a value
    shape, offset = (700, 900), (100, 203)  # its top row: 299 of the file
    path = write_raster(
        tmp_path / "zones.tif",
        window,
        X0,
        Y0,
        DX,
        DY,
        crs="EPSG:2056",
        nodata=nodata,
        dtype=dtype,
        description="a hazard",
        unit="kJ",
        cog=True,
        shape=shape,
        offset=offset,
        overviews=pooling,
    )
    full = np.full(shape, np.nan)
    full[offset[0] : offset[0] + 301, offset[1] : offset[1] + 503] = window
    from_top = full[::-1]
    with rasterio.open(path) as src:
        assert src.overviews(1) == [2, 4]
        assert (src.descriptions, src.units) == (("a hazard",), ("kJ",))
        assert src.tags(ns="IMAGE_STRUCTURE")["LAYOUT"] == "COG"
        stored = src.read(1, masked=True).astype(np.float64).filled(np.nan)
        np.testing.assert_array_equal(stored, from_top)
    for level, factor in enumerate((2, 4)):
        with rasterio.open(path, overview_level=level) as src:
            stored = src.read(1, masked=True).astype(np.float64).filled(np.nan)
        reference = _block_reference(from_top, factor, pooling)
        assert np.isnan(reference).any() and not np.isnan(reference).all()
        np.testing.assert_array_equal(stored, reference, err_msg=f"level {factor}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zones.tif"]


def test_overviews_of_a_small_raster_and_a_wrong_pooling(tmp_path):
    """A raster within one tile has no overview level to pool; a pooling that is neither max
    nor min is refused before anything is written."""
    values = hazard((120, 200))
    path = write_raster(tmp_path / "small.tif", values, X0, Y0, DX, DY, cog=True, overviews="max")
    with rasterio.open(path) as src:
        assert src.overviews(1) == []
        np.testing.assert_array_equal(src.read(1)[::-1], values)
    with pytest.raises(ValueError, match="overviews must be one of max, min, absmax; got 'mean'"):
        write_raster(tmp_path / "x.tif", values, X0, Y0, DX, DY, cog=True, overviews="mean")
    assert not (tmp_path / "x.tif").exists()
