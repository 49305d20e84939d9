// The 3D view of a finished rockfall run (tumble view): loads the run's data from /api/* and
// draws terrain, overlays, trajectories, deposits, barriers, release, and plays the rocks back.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import GUI from "lil-gui";
import { decodeTable, drawColourBar } from "./colors.js";
import {
  STATUS_COLOURS,
  TerrainGrid,
  barrierWall,
  depositPoints,
  highlightPath,
  paintTerrain,
  releaseLayer,
  rockInstances,
  rockPose,
  terrainMesh,
  trajectoryLines,
} from "./layers.js";
import { showBarrier, showRock, hidePanel, redrawRockPlots } from "./panels.js";

const params = {
  overlay: "none",
  terrain: true,
  trajectories: true,
  rocks: true,
  deposits: true,
  barriers: true,
  release: true,
  playing: true,
  time: 0,
  speed: 1,
  rockScale: 1,
};
const view = {
  params,
  ready: false,
  loading: true,
  error: null,
  loadMs: null,
  frames: 0,
  overlays: [],
  picked: null,
  run: null,
};
window.tumbleView = view;

function setStatus(text, state) {
  document.getElementById("status").textContent = text;
  if (state) document.body.dataset.state = state;
}

function softwareRendering() {
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (!gl) return false;
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension("WEBGL_lose_context")?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(name);
  } catch (err) {
    return false;
  }
}
const SOFTWARE = softwareRendering();

const canvas = document.getElementById("scene");
const renderer = new THREE.WebGLRenderer({ canvas, antialias: !SOFTWARE, preserveDrawingBuffer: true });
renderer.setPixelRatio(SOFTWARE ? 1 : Math.min(window.devicePixelRatio, 2));
renderer.setClearColor(0x14161a, 1);
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 1e5);
camera.up.set(0, 0, 1);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
scene.add(new THREE.HemisphereLight(0xdfe8ff, 0x3a3226, 0.9));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
scene.add(sun, sun.target);

let dirty = true;
controls.addEventListener("change", () => (dirty = true));
// draw again on the next frame (after a change of view.params from outside the controls)
view.refresh = () => (dirty = true);

function resize() {
  const { clientWidth: w, clientHeight: h } = canvas;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  dirty = true;
}
window.addEventListener("resize", resize);

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) {
    let message = `${url}: HTTP ${response.status}`;
    try {
      message = (await response.json()).error || message;
    } catch (err) {
      // not JSON: keep the status line
    }
    throw new Error(message);
  }
  return response;
}

async function floats(url) {
  return new Float32Array(await (await fetchOk(url)).arrayBuffer());
}

function columns(buffer, names, n) {
  const out = {};
  names.forEach((name, k) => (out[name] = buffer.subarray(k * n, (k + 1) * n)));
  return out;
}

// ------------------------------------------------------------------------------- the scene
const layers = {};
let grid = null;
let traj = null;
let deposits = null;
let highlight = null;
const overlayCache = new Map();

function fitCamera() {
  const w = grid.dx * (grid.nx - 1);
  const h = grid.dy * (grid.ny - 1);
  const cx = grid.x0 + w / 2;
  const cy = grid.y0 + h / 2;
  const span = Math.hypot(w, h, grid.z_max || 0);
  const cz = 0.5 * (grid.z_max || 0);
  controls.target.set(cx, cy, cz);
  camera.position.set(cx + 0.15 * span, cy - 0.85 * span, cz + 0.55 * span);
  camera.near = span / 2000;
  camera.far = span * 20;
  camera.updateProjectionMatrix();
  sun.position.set(cx - 0.5 * span, cy + 0.5 * span, cz + 0.7 * span); // from the north-west
  sun.target.position.set(cx, cy, cz);
  controls.update();
}

async function setOverlay(name) {
  const bar = document.getElementById("overlay-bar");
  if (name === "none") {
    paintTerrain(layers.terrain, grid, null);
    bar.hidden = true;
    dirty = true;
    return;
  }
  if (!overlayCache.has(name)) {
    const response = await fetchOk(`/api/raster/${encodeURIComponent(name)}`);
    const legend = JSON.parse(response.headers.get("X-Legend"));
    const values = new Float32Array(await response.arrayBuffer());
    overlayCache.set(name, { ...legend, values, table: decodeTable(legend.colors) });
  }
  const overlay = overlayCache.get(name);
  if (params.overlay !== name) return; // another overlay was chosen meanwhile
  paintTerrain(layers.terrain, grid, overlay);
  drawColourBar(bar, {
    title: overlay.description,
    unit: overlay.unit,
    min: overlay.min,
    max: overlay.max,
    scale: overlay.scale,
    table: overlay.table,
  });
  dirty = true;
}

const _position = new THREE.Vector3();
const _quaternion = new THREE.Quaternion();
const _scale = new THREE.Vector3(1, 1, 1);
// Rocks are drawn this many times their true size (1: true size); the default makes the largest
// vertex distance about 1/150 of the terrain's diagonal, so that the rocks show in the overview.
function defaultRockScale(run) {
  const radius = Math.max(...run.rock.vertices.map((v) => Math.hypot(...v)));
  const span = Math.hypot(grid.dx * (grid.nx - 1), grid.dy * (grid.ny - 1));
  return Math.max(1, Math.round(span / (150 * radius)));
}
const _matrix = new THREE.Matrix4();
const _colour = new THREE.Color();

function placeRocks(t) {
  const scale = traj.energyMax > 0 ? traj.energyMax : 1;
  for (const mesh of layers.rocks.children) {
    mesh.userData.members.forEach((r, i) => {
      const energy = rockPose(traj, r, t, _position, _quaternion);
      _scale.setScalar(params.rockScale * traj.scale[r]);
      _matrix.compose(_position, _quaternion, _scale);
      mesh.setMatrixAt(i, _matrix);
      const f = Math.min(1, Math.max(0, energy / scale));
      const k = Math.round(f * 255);
      _colour.setRGB(traj.table[3 * k], traj.table[3 * k + 1], traj.table[3 * k + 2]);
      if (view.picked !== null && traj.rocks[r] === view.picked) _colour.setRGB(1, 1, 1);
      mesh.setColorAt(i, _colour);
    });
    mesh.instanceMatrix.needsUpdate = true;
    mesh.boundingSphere = null; // the rocks moved: the raycaster recomputes it when it needs it
    mesh.boundingBox = null;
    if (mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
  }
}

// Where stored rock `rock` is drawn now (page coordinates), for tests and read-outs.
view.rockPosition = (rock) => {
  const r = traj.rocks.indexOf(rock);
  if (r < 0) return null;
  rockPose(traj, r, params.time, _position, _quaternion);
  return [_position.x, _position.y, _position.z];
};

// Where stored rock `rock` appears in the window now (client pixels), for tests.
view.project = (rock) => {
  const p = view.rockPosition(rock);
  if (!p) return null;
  const v = new THREE.Vector3(...p).project(camera);
  const box = canvas.getBoundingClientRect();
  return [box.left + ((v.x + 1) / 2) * box.width, box.top + ((1 - v.y) / 2) * box.height];
};

// ----------------------------------------------------------------------------- picking
const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();

function rockOfSample(k) {
  let lo = 0;
  let hi = traj.offsets.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (traj.offsets[mid] <= k) lo = mid;
    else hi = mid;
  }
  return traj.rocks[lo];
}

function pickAt(clientX, clientY) {
  const box = canvas.getBoundingClientRect();
  pointer.set(((clientX - box.left) / box.width) * 2 - 1, -((clientY - box.top) / box.height) * 2 + 1);
  raycaster.setFromCamera(pointer, camera);
  const span = camera.position.distanceTo(controls.target);
  raycaster.params.Line.threshold = span / 300;
  raycaster.params.Points.threshold = span / 300;
  const targets = [];
  if (params.rocks) targets.push(...layers.rocks.children);
  if (params.barriers) targets.push(...layers.walls);
  if (params.trajectories) targets.push(layers.trajectories);
  if (params.deposits && layers.deposits) targets.push(layers.deposits);
  const [hit] = raycaster.intersectObjects(targets, false);
  view.lastHit = hit ? hit.object.type : null;
  if (!hit) return;
  if (hit.object.userData.members) view.pick(traj.rocks[hit.object.userData.members[hit.instanceId]]);
  else if (hit.object.userData.barrier !== undefined) view.pickBarrier(hit.object.userData.barrier);
  else if (hit.object === layers.trajectories) view.pick(rockOfSample(hit.index));
  else if (hit.object === layers.deposits) view.pick(deposits.rock[hit.index]);
}

let down = null;
canvas.addEventListener("pointerdown", (e) => (down = [e.clientX, e.clientY]));
canvas.addEventListener("pointerup", (e) => {
  if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 4) pickAt(e.clientX, e.clientY);
  down = null;
});

view.pick = async (rock) => {
  const record = await (await fetchOk(`/api/rock/${rock}`)).json();
  view.picked = rock;
  if (highlight) {
    scene.remove(highlight);
    highlight.geometry.dispose();
    highlight = null;
  }
  const r = traj.rocks.indexOf(rock);
  if (r >= 0) {
    highlight = highlightPath(traj, r);
    scene.add(highlight);
  }
  showRock(record, view.run, () => params.time);
  dirty = true;
  return record;
};

view.pickBarrier = (index) => {
  view.picked = null;
  showBarrier(view.run.barriers[index]);
  dirty = true;
  return view.run.barriers[index].name;
};

document.getElementById("panel-close").addEventListener("click", () => {
  hidePanel();
  view.picked = null;
  if (highlight) scene.remove(highlight);
  highlight = null;
  dirty = true;
});

// ------------------------------------------------------------------------------- loading
function infoPanel(run) {
  document.getElementById("run-name").textContent = run.name;
  const facts = document.getElementById("facts");
  const stored = run.trajectories.rocks.length;
  const rows = [
    ["rocks", String(run.n_rocks)],
    ["scheme", String(run.scheme)],
    ["seed", String(run.seed)],
    ["paths shown", `${stored} of ${run.n_rocks} (output.trajectories)`],
    ["rock", `${run.rock.name}, ${run.rock.mass_kg.toFixed(0)} kg`],
    [
      "terrain",
      run.terrain.stride > 1
        ? `every ${run.terrain.stride}th DEM sample (${run.terrain.nx} × ${run.terrain.ny} of ` +
          `${run.terrain.dem_shape[1]} × ${run.terrain.dem_shape[0]})`
        : `${run.terrain.nx} × ${run.terrain.ny} samples`,
    ],
  ];
  facts.innerHTML = "";
  for (const [name, value] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = value;
    dd.dataset.field = name;
    facts.append(dt, dd);
  }
  document.getElementById("summary-line").textContent = run.summary_line;
  const warnings = document.getElementById("warnings");
  warnings.innerHTML = "";
  for (const text of run.warnings || []) {
    const li = document.createElement("li");
    li.textContent = text;
    warnings.appendChild(li);
  }
  const legend = document.getElementById("status-legend");
  legend.innerHTML = "";
  for (const status of run.deposits.statuses) {
    const span = document.createElement("span");
    const colour = (STATUS_COLOURS[status] ?? 0xe93d82).toString(16).padStart(6, "0");
    span.innerHTML = `<i style="--c:#${colour}"></i>`;
    span.append(status.replace("_", " "));
    legend.appendChild(span);
  }
}

function buildGui(run) {
  const gui = new GUI({ container: document.getElementById("controls"), title: "View" });
  const names = ["none", ...run.rasters];
  gui.add(params, "overlay", names).name("raster overlay").onChange((name) => setOverlay(name));
  const shown = gui.addFolder("Layers");
  for (const name of ["terrain", "trajectories", "rocks", "deposits", "barriers", "release"]) {
    shown.add(params, name).onChange((on) => {
      const layer = layers[name];
      if (layer) layer.visible = on;
      dirty = true;
    });
  }
  const play = gui.addFolder("Playback");
  play.add(params, "playing").name("play").listen();
  play
    .add(params, "time", 0, Math.max(traj.tEnd, 1e-6), 0.01)
    .name("time (s)")
    .listen()
    .onChange(() => (dirty = true));
  play.add(params, "speed", 0.05, 10, 0.05).name("speed (× real time)");
  play
    .add(params, "rockScale", 1, 50, 1)
    .name("rock size (× true)")
    .onChange(() => (dirty = true));
  for (const [i, controller] of gui.controllersRecursive().entries()) {
    controller.domElement.dataset.control = controller.property;
    controller.domElement.dataset.index = String(i);
  }
  return gui;
}

async function load() {
  const start = performance.now();
  setStatus("loading the run…", "loading");
  const run = await (await fetchOk("/api/run")).json();
  view.run = run;
  view.overlays = run.rasters;
  infoPanel(run);
  const t = run.trajectories;
  const [heights, trajBuffer, depositBuffer] = await Promise.all([
    floats("/api/terrain"),
    floats("/api/trajectories"),
    floats("/api/deposits"),
  ]);
  grid = new TerrainGrid(run.terrain, heights);
  const cols = columns(trajBuffer, t.columns, t.n);
  traj = {
    n: t.n,
    rocks: t.rocks,
    offsets: t.offsets,
    t: cols.t,
    x: cols.x,
    y: cols.y,
    z: cols.z,
    qw: cols.qw,
    qx: cols.qx,
    qy: cols.qy,
    qz: cols.qz,
    energy: cols.kinetic_energy_kJ,
    energyMax: t.energy_max_kJ,
    tEnd: t.t_end,
    scale: t.scale,
    table: decodeTable(t.colors),
  };
  deposits = columns(depositBuffer, run.deposits.columns, run.deposits.n);
  params.rockScale = defaultRockScale(run);

  layers.terrain = terrainMesh(grid);
  layers.trajectories = trajectoryLines(traj, traj.table);
  layers.rocks = rockInstances(run.rock_shapes, t.shape_id);
  layers.deposits = run.deposits.n ? depositPoints(deposits, run.deposits.statuses) : null;
  layers.release = releaseLayer(grid, run.release);
  layers.barriers = new THREE.Group();
  layers.walls = [];
  run.barriers.forEach((barrier, index) => {
    if (!barrier.line) return;
    const { group, wall } = barrierWall(grid, barrier, index);
    layers.barriers.add(group);
    layers.walls.push(wall);
  });
  for (const name of ["terrain", "trajectories", "rocks", "deposits", "release", "barriers"]) {
    if (layers[name]) scene.add(layers[name]);
  }
  drawColourBar(document.getElementById("energy-bar"), {
    title: "kinetic energy of the paths and rocks",
    unit: "kJ",
    min: 0,
    max: traj.energyMax,
    table: traj.table,
  });
  buildGui(run);
  resize();
  fitCamera();
  placeRocks(0);
  view.loadMs = performance.now() - start;
  view.loading = false;
  view.ready = true;
  setStatus(`loaded in ${(view.loadMs / 1000).toFixed(2)} s`, "ready");
}

// ------------------------------------------------------------------------------- the loop
let last = performance.now();
function frame(now) {
  const dt = Math.min(0.1, (now - last) / 1000);
  last = now;
  if (view.ready) {
    if (params.playing) {
      params.time += dt * params.speed;
      if (params.time > traj.tEnd) params.time = 0;
    }
    if (params.playing || dirty || view.shownTime !== params.time) {
      placeRocks(params.time);
      if (view.picked !== null) redrawRockPlots(params.time);
      renderer.render(scene, camera);
      view.shownTime = params.time;
      view.frames += 1;
      dirty = false;
    }
  }
  requestAnimationFrame(frame);
}

load().catch((err) => {
  view.error = String(err.message || err);
  view.loading = false;
  setStatus(`error: ${view.error}`, "error");
});
requestAnimationFrame(frame);
