// The side panel of a picked rock (facts and the plots of its velocities) or barrier
// (crossing statistics and design values).
import { formatNumber } from "./colors.js";
import { linePlot } from "./plots.js";

// omega about the body axes x, y, z: green, red, blue, the colours of Leine et al. (2021), Fig. 5
const OMEGA_COLOURS = ["#30a46c", "#e5484d", "#3e63dd"];
const panel = () => document.getElementById("panel");
let shownRock = null;
let xAxis = "t";

function fact(dl, name, value) {
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.textContent = value;
  dd.dataset.field = name;
  dl.append(dt, dd);
}

function withUnit(v, unit) {
  return v === null || v === undefined ? "–" : `${formatNumber(v)} ${unit}`;
}

export function hidePanel() {
  panel().hidden = true;
  shownRock = null;
}

export function showRock(record, run, now) {
  const body = document.getElementById("panel-body");
  body.innerHTML = "";
  panel().hidden = false;
  panel().dataset.kind = "rock";
  document.getElementById("panel-title").textContent = `Rock ${record.rock}`;
  const d = record.deposit;
  const dl = document.createElement("dl");
  dl.className = "facts";
  fact(dl, "shape", `${record.shape}${d.shape_id !== undefined ? ` (shape id ${d.shape_id})` : ""}`);
  fact(dl, "mass", withUnit(record.mass_kg, "kg"));
  fact(dl, "status", `${record.status.replace("_", " ")} after ${withUnit(d.t_s, "s")}`);
  fact(dl, "run-out", withUnit(d.runout_m, "m"));
  fact(dl, "max. kinetic energy", withUnit(d.kinetic_energy_max_kJ, "kJ"));
  fact(dl, "max. velocity", withUnit(d.velocity_max_ms, "m/s"));
  fact(dl, "max. rotational velocity", withUnit(d.rotational_velocity_max_rps, "rev/s"));
  fact(dl, "max. jump height", withUnit(d.jump_height_max_m, "m"));
  body.appendChild(dl);
  shownRock = null;
  if (!record.path) {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent =
      `The path of rock ${record.rock} is not stored: the run keeps the paths of ` +
      `${run.trajectories.rocks.length} rocks, a sample over its release areas and rock ` +
      `classes (raise output.trajectories to keep more).`;
    body.appendChild(note);
    return;
  }
  const choose = document.createElement("label");
  choose.className = "axis-choice";
  choose.innerHTML =
    'along <select><option value="t">time (s)</option>' +
    '<option value="distance_m">projected distance (m)</option></select>';
  const select = choose.querySelector("select");
  select.value = xAxis;
  select.addEventListener("change", () => {
    xAxis = select.value;
    redrawRockPlots(now());
  });
  const velocity = document.createElement("canvas");
  velocity.className = "plot";
  velocity.dataset.plot = "velocity";
  const rotation = document.createElement("canvas");
  rotation.className = "plot";
  rotation.dataset.plot = "rotation";
  body.append(choose, velocity, rotation);
  shownRock = { record, velocity, rotation };
  redrawRockPlots(now());
}

// Redraw the picked rock's plots with the playback time marked.
export function redrawRockPlots(t) {
  if (!shownRock) return;
  const { record, velocity, rotation } = shownRock;
  const path = record.path;
  const x = path[xAxis];
  let marker = null;
  if (xAxis === "t") marker = t;
  else {
    let k = 0;
    while (k + 1 < path.t.length && path.t[k + 1] <= t) k++;
    marker = path.distance_m[k];
  }
  const xLabel = xAxis === "t" ? "time (s)" : "projected distance (m)";
  linePlot(velocity, {
    x,
    xLabel,
    yLabel: "translational velocity (m/s)",
    marker,
    series: [{ y: path.speed_ms, color: "#dfe3ea", label: "|v|" }],
  });
  linePlot(rotation, {
    x,
    xLabel,
    yLabel: "ω, principal axes (rad/s)",
    marker,
    series: ["x", "y", "z"].map((axis, k) => ({
      y: path[`omega_${axis}`],
      color: OMEGA_COLOURS[k],
      label: `ω${axis}`,
    })),
  });
}

function statRow(table, name, stats, unit) {
  if (!stats) return;
  const tr = document.createElement("tr");
  const ci = stats.p95_ci ? ` [${stats.p95_ci.map(formatNumber).join(", ")}]` : "";
  const cells = [
    `${name} (${unit})`,
    formatNumber(stats.p50),
    `${formatNumber(stats.p95)}${ci}`,
    formatNumber(stats.p99),
    formatNumber(stats.max),
  ];
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  }
  table.appendChild(tr);
}

export function showBarrier(barrier) {
  shownRock = null;
  const body = document.getElementById("panel-body");
  body.innerHTML = "";
  panel().hidden = false;
  panel().dataset.kind = "barrier";
  const kind = barrier.kind === "net" ? "net" : "observation line";
  document.getElementById("panel-title").textContent = `${barrier.name} (${kind})`;
  const s = barrier.statistics || {};
  const dl = document.createElement("dl");
  dl.className = "facts";
  if (barrier.kind === "net") {
    fact(dl, "height", withUnit(barrier.height_m, "m"));
    fact(dl, "capacity", withUnit(barrier.capacity_kJ, "kJ"));
  }
  fact(dl, "length", withUnit(s.length_m, "m"));
  if (s.uphill) fact(dl, "rocks come from", `its ${s.uphill} (seen from its first point)`);
  fact(dl, "rocks crossing", `${s.rocks_crossing ?? "–"} (${formatNumber(100 * (s.fraction_crossing ?? NaN))} %)`);
  if (s.crossings_downslope !== undefined) {
    fact(dl, "crossings down / up", `${s.crossings_downslope} / ${s.crossings_upslope}`);
  }
  if (s.outcomes) {
    const parts = Object.entries(s.outcomes).map(([k, v]) => `${k.replace("_", " ")} ${v}`);
    fact(dl, "outcomes", parts.join(", "));
  }
  if (s.overtopping_probability !== null && s.overtopping_probability !== undefined) {
    fact(dl, "overtopping probability", formatNumber(s.overtopping_probability));
  }
  if (s.capacity_exceedance_probability !== null && s.capacity_exceedance_probability !== undefined) {
    fact(dl, "capacity exceedance probability", formatNumber(s.capacity_exceedance_probability));
  }
  body.appendChild(dl);
  const table = document.createElement("table");
  table.className = "stats";
  table.innerHTML =
    "<caption>At each rock's first downslope crossing (p95 with its 95 % interval)</caption>" +
    "<tr><th></th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>";
  statRow(table, "kinetic energy", s.kinetic_energy_kJ, "kJ");
  statRow(table, "rotational energy", s.rotational_energy_kJ, "kJ");
  statRow(table, "velocity", s.velocity_ms, "m/s");
  statRow(table, "passing height", s.passing_height_m, "m");
  statRow(table, "top height", s.top_height_m, "m");
  body.appendChild(table);
  const design = s.design;
  if (design && design.E_d_kJ !== null && design.E_d_kJ !== undefined) {
    const dd = document.createElement("dl");
    dd.className = "facts design";
    const ci = (pair) => (pair ? ` [${pair.map(formatNumber).join(", ")}]` : "");
    fact(dd, "design values", design.standard);
    fact(dd, "v_d", `${withUnit(design.v_d_ms, "m/s")}${ci(design.v_d_ci_ms)}`);
    fact(dd, "m_d", withUnit(design.m_d_kg, "kg"));
    fact(dd, "E_d", `${withUnit(design.E_d_kJ, "kJ")}${ci(design.E_d_ci_kJ)}`);
    fact(dd, "h_d", `${withUnit(design.h_d_m, "m")}${ci(design.h_d_ci_m)}`);
    fact(dd, "required height", withUnit(design.required_height_m, "m"));
    if (design.capacity_design_kJ !== null && design.capacity_design_kJ !== undefined) {
      fact(dd, "design capacity", withUnit(design.capacity_design_kJ, "kJ"));
    }
    const verdict = (ok) => (ok === null || ok === undefined ? "–" : ok ? "verified" : "NOT verified");
    if (barrier.kind === "net") {
      fact(dd, "energy", verdict(design.energy_ok));
      fact(dd, "height", verdict(design.height_ok));
    }
    const factors = ["gamma_tr", "gamma_dp", "gamma_vol", "gamma_gamma", "gamma_e"]
      .filter((k) => design[k] !== undefined)
      .map((k) => `${k.replace("gamma_", "γ_")} ${design[k]}`);
    fact(dd, "partial factors", factors.join(", "));
    body.appendChild(dd);
  } else {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = "No rock crossed this barrier downslope: no design values.";
    body.appendChild(note);
  }
}
