"""The ``[[barrier]]`` and ``[design]`` tables of a run configuration: the schema, file names
relative to the TOML file, and barrier files appended from the command line."""

import numpy as np
import pytest

from tumble.io.config import (
    PATH_KEYS,
    DesignConfig,
    load_barriers_file,
    load_config,
    resolve_paths,
    validate,
)
from tumble.io.vectors import write_lines

LINE = [[40.0, -10.0], [40.0, 10.0]]


def test_defaults_keep_old_configurations():
    config = validate({"rocks": 10})
    assert config.barrier == []
    assert config.design == DesignConfig()
    assert config.design.standard == "UNI 11211-4"
    assert config.design.gamma_tr is None and config.design.mass_kg is None


def test_inline_barrier_and_design():
    config = validate(
        {
            "barrier": [
                {"name": "fence A", "line": LINE, "height": 4.0, "capacity": 1000.0},
                {"name": "obs", "file": "lines.gpkg", "layer": "fences", "name_field": "id"},
            ],
            "design": {"gamma_tr": 1.02, "gamma_e": 1.2, "f_min_m": 0.5, "mass_kg": 2000.0},
        }
    )
    a, obs = config.barrier
    assert a.line == [(40.0, -10.0), (40.0, 10.0)]
    assert (a.height, a.capacity, a.file) == (4.0, 1000.0, None)
    assert (obs.file, obs.layer, obs.name_field, obs.line) == ("lines.gpkg", "fences", "id", None)
    assert config.design.gamma_tr == 1.02 and config.design.gamma_dp is None


def test_unknown_barrier_key_named_with_the_allowed_ones():
    with pytest.raises(ValueError) as err:
        validate({"barrier": [{"name": "A", "line": LINE, "heigth": 4.0}]})
    message = str(err.value)
    assert "unknown key 'barrier.0.heigth'" in message
    assert "allowed in barrier:" in message and "height" in message and "name_field" in message


def test_unknown_design_key_named():
    with pytest.raises(ValueError, match=r"unknown key 'design\.gamma_x'"):
        validate({"design": {"gamma_x": 1.1}})
    with pytest.raises(ValueError, match=r"design\.standard"):
        validate({"design": {"standard": "ONR 24810"}})
    with pytest.raises(ValueError, match=r"design\.gamma_dp"):
        validate({"design": {"gamma_dp": 0.0}})


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"line": LINE}, ["barrier.0.name", "Field required"]),
        ({"name": "  ", "line": LINE}, ["non-empty name"]),
        ({"name": "A"}, ["barrier 'A'", "exactly one of line", "neither"]),
        ({"name": "A", "line": LINE, "file": "a.gpkg"}, ["barrier 'A'", "both"]),
        ({"name": "A", "line": LINE, "layer": "x"}, ["barrier 'A'", "layer apply to a barrier"]),
        ({"name": "A", "file": "a.gpkg", "name_field": "n", "feature": 2}, ["not both"]),
        ({"name": "A", "file": " "}, ["file must be a file path"]),
        ({"name": "A", "line": LINE, "height": -4.0}, ["barrier.0.height"]),
        ({"name": "A", "line": LINE, "capacity": 0}, ["barrier.0.capacity"]),
        ({"name": "A", "line": [[1.0, 2.0, 3.0]]}, ["barrier.0.line"]),
    ],
)
def test_bad_barrier_tables(entry, words):
    with pytest.raises(ValueError) as err:
        validate({"barrier": [entry]})
    for word in words:
        assert word in str(err.value)


def test_barrier_names_unique():
    with pytest.raises(ValueError, match="'A' is given 2 times"):
        validate({"barrier": [{"name": "A", "line": LINE}, {"name": "A", "line": LINE}]})


def test_resolve_paths_in_lists_of_tables(tmp_path):
    assert ("barrier", "*", "file") in PATH_KEYS
    data = {
        "barrier": [
            {"name": "A", "file": "lines/a.gpkg"},
            {"name": "B", "line": LINE},
            {"name": "C", "file": "/abs/c.gpkg"},
        ]
    }
    out = resolve_paths(data, tmp_path)
    assert out["barrier"][0]["file"] == str(tmp_path.resolve() / "lines" / "a.gpkg")
    assert "file" not in out["barrier"][1]
    assert out["barrier"][2]["file"] == "/abs/c.gpkg"
    assert data["barrier"][0]["file"] == "lines/a.gpkg"  # the input is left as it was
    assert resolve_paths({"barrier": "oops"}, tmp_path) == {"barrier": "oops"}


def test_barrier_file_relative_to_the_toml_folder(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "run.toml").write_text(
        '[[barrier]]\nname = "A"\nfile = "fences/a.gpkg"\nheight = 3.5\n\n'
        '[[barrier]]\nname = "B"\nline = [[40.0, -10.0], [40.0, 10.0]]\n\n'
        "[design]\ngamma_tr = 1.1\n"
    )
    monkeypatch.chdir(tmp_path)
    config = load_config("site/run.toml")
    assert config.barrier[0].file == str(site.resolve() / "fences" / "a.gpkg")
    assert config.barrier[1].file is None
    assert config.design.gamma_tr == 1.1
    # a file given on the command line stays relative to the working directory
    config = load_config(settings={"barrier": [{"name": "C", "file": "c.gpkg"}]})
    assert config.barrier[0].file == "c.gpkg"


def test_barriers_file_toml(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "barriers.toml").write_text(
        '[[barrier]]\nname = "N1"\nfile = "n.gpkg"\ncapacity = 500.0\n\n'
        '[[barrier]]\nname = "N2"\nline = [[1.0, 2.0], [3.0, 4.0]]\n'
    )
    entries = load_barriers_file(extra / "barriers.toml")
    assert entries == [
        {"name": "N1", "file": str(extra.resolve() / "n.gpkg"), "capacity": 500.0},
        {"name": "N2", "line": [[1.0, 2.0], [3.0, 4.0]]},
    ]
    (tmp_path / "run.toml").write_text(
        'rocks = 5\n[[barrier]]\nname = "A"\nline = [[0, 0], [1, 1]]\n'
    )
    config = load_config(tmp_path / "run.toml", barrier_files=[extra / "barriers.toml"])
    assert [b.name for b in config.barrier] == ["A", "N1", "N2"]
    assert config.rocks == 5
    # a name given twice across the files is refused
    with pytest.raises(ValueError, match="'N1' is given 2 times"):
        load_config(barrier_files=[extra / "barriers.toml", extra / "barriers.toml"])


@pytest.mark.parametrize(
    "text, words",
    [
        ('rocks = 5\n[[barrier]]\nname = "A"\nline = [[0, 0], [1, 1]]\n', ["'rocks'"]),
        ("", ["no [[barrier]] table"]),
        ('barrier = "A"\n', ["[[barrier]] tables"]),
        ("[[barrier]\n", ["barriers.toml"]),
    ],
)
def test_bad_barriers_file_toml(tmp_path, text, words):
    (tmp_path / "barriers.toml").write_text(text)
    with pytest.raises(ValueError) as err:
        load_barriers_file(tmp_path / "barriers.toml")
    for word in words:
        assert word in str(err.value)


def xyz(line):
    return np.column_stack([np.asarray(line, dtype=float), np.zeros(len(line))])


def test_barriers_file_vector_with_names(tmp_path):
    path = write_lines(
        tmp_path / "fences.gpkg",
        [xyz(LINE), xyz([[50.0, 0.0], [60.0, 0.0]])],
        {"name": np.array(["upper", "lower"])},
    )
    where = str(path.resolve())
    assert load_barriers_file(path) == [
        {"name": "upper", "file": where, "name_field": "name"},
        {"name": "lower", "file": where, "name_field": "name"},
    ]
    config = load_config(barrier_files=[path])
    assert [(b.name, b.name_field, b.file) for b in config.barrier] == [
        ("upper", "name", where),
        ("lower", "name", where),
    ]


def test_barriers_file_vector_without_names(tmp_path):
    path = write_lines(
        tmp_path / "lines.gpkg", [xyz(LINE), xyz(LINE)[::-1]], {"id": np.array([4, 9])}
    )
    where = str(path.resolve())
    assert load_barriers_file(path) == [
        {"name": "line_1", "file": where, "feature": 1},
        {"name": "line_2", "file": where, "feature": 2},
    ]


def test_barriers_file_vector_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_barriers_file(tmp_path / "missing.gpkg")
    path = write_lines(
        tmp_path / "same.gpkg", [xyz(LINE), xyz(LINE)], {"name": np.array(["A", "A"])}
    )
    with pytest.raises(ValueError, match="name 'A' is on 2 lines"):
        load_barriers_file(path)
    (tmp_path / "junk.geojson").write_text("not json")
    with pytest.raises(ValueError, match=r"junk\.geojson"):
        load_barriers_file(tmp_path / "junk.geojson")
