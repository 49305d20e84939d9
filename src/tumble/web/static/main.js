// The Poinsot view: plays back trajectories computed by tumble (POST /api/trajectory).
//
// One WebGL canvas covers the window; every view (lab frame and body frame of each scheme) is a
// scissored viewport over its placeholder element. The lab scene is drawn in a display frame
// whose z axis is the initial angular momentum L, so the invariable plane is horizontal.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import GUI from "lil-gui";

const COLORS = {
  axes: [0xe5484d, 0x30a46c, 0x3e63dd],
  spin: 0xf5a524,
  omega: 0xe93d82,
  polhode: 0x2ee6f0,
  herpolhode: 0xf76b15,
  body: 0x9aa4b5,
  ellipsoid: 0x7f8fa9,
  plane: 0x3a4150,
  sphere: 0x3e63dd,
  energy: 0xa371f7,
  family: 0x5b6270,
  current: 0xffe066,
  marker: 0xffffff,
};
const Z = new THREE.Vector3(0, 0, 1);

// What each view draws, in the order of its legend: the key every object drawn for an entry
// carries (userData.legend), its colours and its label. The axes entry shows the three axes.
const LEGEND = {
  lab: [
    ["body", [COLORS.body], "body"],
    ["axes", COLORS.axes, "principal axes x, y, z"],
    ["ellipsoid", [COLORS.ellipsoid], "inertia ellipsoid"],
    ["polhode", [COLORS.polhode], "polhode: where ω meets the ellipsoid"],
    ["plane", [COLORS.plane], "invariable plane (mirrored)"],
    ["herpolhode", [COLORS.herpolhode], "herpolhode: its trace in the plane"],
    ["contact", [COLORS.herpolhode], "contact point (on the ω axis)", "dot"],
    ["spin", [COLORS.spin], "angular momentum L (fixed)"],
    ["omega", [COLORS.omega], "angular velocity ω"],
  ],
  body: [
    ["axes", COLORS.axes, "principal axes x, y, z"],
    ["sphere", [COLORS.sphere], "momentum sphere |L| = |L₀|"],
    ["energy", [COLORS.energy], "energy ellipsoid E = E₀"],
    ["current", [COLORS.current], "their intersection: where L must stay"],
    ["family", [COLORS.family], "intersections at other energies"],
    ["trail", [COLORS.spin], "L seen from the body: path and now"],
  ],
};

function hex(color) {
  return `#${color.toString(16).padStart(6, "0")}`;
}

// The legend of one view, an overlay in its corner (built from LEGEND, never edited by hand).
function legendList(kind) {
  const list = document.createElement("ul");
  list.className = "legend";
  list.dataset.legend = kind;
  for (const [key, colors, label, mark] of LEGEND[kind]) {
    const item = document.createElement("li");
    item.dataset.item = key;
    for (const color of colors) {
      const swatch = document.createElement("i");
      swatch.style.setProperty("--c", hex(color));
      if (mark) swatch.className = mark;
      item.append(swatch);
    }
    item.append(document.createTextNode(label));
    list.append(item);
  }
  return list;
}

// Tag an object (and so everything under it) with the legend entry it is drawn for.
function tagged(object, key) {
  object.userData.legend = key;
  return object;
}

// The legend keys of everything a view draws now (null for an object drawn without one).
function drawnKeys(view) {
  const keys = new Set();
  view.content.traverseVisible((o) => {
    if (!(o.isMesh || o.isLine || o.isPoints)) return;
    let owner = o;
    while (owner && !owner.userData.legend) owner = owner.parent;
    keys.add(owner ? owner.userData.legend : null);
  });
  return keys;
}

// ---------------------------------------------------------------- state and controls
const params = {
  shape: "cuboid",
  a: 3.0, b: 2.0, c: 1.0, mass: 1.0,
  radius: 0.5, length: 2.0,
  length1: 2.0, mass1: 1.0, length2: 1.2, mass2: 1.0, angle_deg: 90, crossing1: 0.5, crossing2: 0.3,
  A: 5 / 12, B: 10 / 12, C: 13 / 12,
  axis: "intermediate", perturbation: 0.01, spin_rate: 10.0,
  scheme: "implicit", compare: false, schemeB: "explicit",
  dt: 0.01, t_end: 20.0,
  speed: 1.0, playing: true, time: 0.0,
  show: {
    body: true, axes: true, ellipsoid: true, plane: true, polhode: true, herpolhode: true,
    spin: true, omega: true, sphere: true, energy: true, curves: true,
  },
};

const app = {
  params,
  software: false,
  dirty: true, // something changed since the last drawing
  frames: 0, // drawings made
  gui: null,
  slots: [],
  generation: 0, // completed loads
  requested: 0, // issued loads
  loading: false,
  errors: [],
};
window.tumble = app;
app.legend = LEGEND;
app.drawnKeys = drawnKeys;
function redraw() {
  app.dirty = true;
}

// Software rasterisers (SwiftShader, llvmpipe) get no multisampling and one pixel per CSS pixel.
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
app.software = SOFTWARE;

const renderer = new THREE.WebGLRenderer({
  canvas: document.getElementById("scene"),
  antialias: !SOFTWARE,
  preserveDrawingBuffer: true,
});
renderer.setPixelRatio(SOFTWARE ? 1 : Math.min(window.devicePixelRatio, 2));
renderer.setClearColor(0x14161a, 1);
renderer.autoClear = false;

function setStatus(text, state) {
  document.getElementById("status").textContent = text;
  if (state) document.body.dataset.state = state;
}

// ---------------------------------------------------------------- helpers
function vec(a) {
  return new THREE.Vector3(a[0], a[1], a[2]);
}

function quat(q) {
  // tumble (w, x, y, z) body to space -> three.js (x, y, z, w)
  return new THREE.Quaternion(q[1], q[2], q[3], q[0]);
}

function polyline(points, color, opacity = 1, transform = null) {
  const arr = new Float32Array(points.length * 3);
  points.forEach((p, i) => {
    const v = transform ? transform(p) : vec(p);
    arr[3 * i] = v.x;
    arr[3 * i + 1] = v.y;
    arr[3 * i + 2] = v.z;
  });
  const geo = new THREE.BufferGeometry();
  geo.setAttribute("position", new THREE.BufferAttribute(arr, 3));
  const mat = new THREE.LineBasicMaterial({ color, transparent: opacity < 1, opacity });
  return new THREE.Line(geo, mat);
}

function axesLines(length) {
  const group = new THREE.Group();
  for (let i = 0; i < 3; i++) {
    const end = [0, 0, 0];
    end[i] = length;
    const start = [0, 0, 0];
    start[i] = -0.35 * length;
    group.add(polyline([start, end], COLORS.axes[i]));
  }
  return group;
}

// Unlit translucent shells: cheap per fragment, which matters for software rasterisers.
function translucent(color, opacity, wire = false) {
  return new THREE.MeshBasicMaterial({
    color,
    transparent: true,
    opacity,
    depthWrite: false,
    side: wire ? THREE.FrontSide : THREE.DoubleSide,
    wireframe: wire,
  });
}

function lights(scene) {
  scene.add(new THREE.HemisphereLight(0xffffff, 0x303440, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  sun.position.set(3, 2, 5);
  scene.add(sun);
}

function fmt(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "∞";
  return Math.abs(x) < 1e-3 && x !== 0 ? x.toExponential(2) : x.toFixed(digits);
}

function sci(x) {
  return Number.isFinite(x) ? x.toExponential(2) : "—";
}

function disposeTree(object) {
  object.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    if (o.material) o.material.dispose();
  });
}

// ---------------------------------------------------------------- one view = scene + camera
class View {
  constructor(element, distance) {
    this.element = element;
    this.scene = new THREE.Scene();
    lights(this.scene);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(distance * 0.9, -distance * 1.1, distance * 0.55);
    this.controls = new OrbitControls(this.camera, element);
    this.controls.addEventListener("change", redraw);
    this.controls.enableDamping = false;
    this.content = new THREE.Group();
    this.scene.add(this.content);
  }

  reset(content, distance) {
    this.scene.remove(this.content);
    disposeTree(this.content);
    this.content = content;
    this.scene.add(content);
    redraw();
    if (distance) {
      this.camera.position.set(distance * 0.9, -distance * 1.1, distance * 0.55);
      this.controls.target.set(0, 0, 0);
      this.controls.update();
    }
  }

  render() {
    const rect = this.element.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2 || this.element.offsetParent === null) return;
    const canvas = renderer.domElement;
    const bottom = canvas.clientHeight - rect.bottom;
    renderer.setViewport(rect.left, bottom, rect.width, rect.height);
    renderer.setScissor(rect.left, bottom, rect.width, rect.height);
    this.camera.aspect = rect.width / rect.height;
    this.camera.updateProjectionMatrix();
    renderer.render(this.scene, this.camera);
  }
}

// ---------------------------------------------------------------- one slot = one scheme
class Slot {
  constructor(index) {
    this.index = index;
    this.section = document.querySelector(`.slot[data-slot="${index}"]`);
    this.lab = new View(this.section.querySelector(".view.lab"), 6);
    this.body = new View(this.section.querySelector(".view.body"), 3.2);
    this.readout = this.section.querySelector(".readout");
    this.legends = {
      lab: this.lab.element.appendChild(legendList("lab")),
      body: this.body.element.appendChild(legendList("body")),
    };
    this.errorBox = this.section.querySelector(".error");
    this.traj = null;
    this.frame = -1;
    this.parts = {};
  }

  get active() {
    return !this.section.hidden;
  }

  showError(message) {
    this.errorBox.hidden = !message;
    this.errorBox.textContent = message || "";
  }

  clear() {
    this.traj = null;
    this.frame = -1;
    this.parts = {};
    this.lab.reset(new THREE.Group());
    this.body.reset(new THREE.Group());
    this.readout.innerHTML = "";
  }

  load(traj) {
    this.traj = traj;
    this.frame = -1;
    this.showError("");
    this.section.querySelector(".scheme-name").textContent = traj.scheme;
    this.buildLab(traj);
    this.buildBody(traj);
    this.applyVisibility();
  }

  buildLab(traj) {
    const inertia = traj.inertia;
    const size = traj.body.size;
    // inertia-ellipsoid semi-axes are s / sqrt(I), s chosen so that it encloses the body
    const s = traj.body.ellipsoid_scale;
    const extent = Math.max(0.5 * Math.max(...size), s / Math.sqrt(Math.min(...inertia)));
    const display = new THREE.Quaternion().setFromUnitVectors(vec(traj.plane_normal[0]), Z);
    const toDisplay = (p) => vec(p).applyQuaternion(display);
    const root = new THREE.Group();
    const parts = { s, display, toDisplay };

    // the body, its principal axes, the inertia ellipsoid and the polhode rotate together
    const bodyGroup = new THREE.Group();
    parts.bodyGroup = bodyGroup;
    parts.bodyMesh = tagged(bodyMesh(traj.body.drawing), "body");
    bodyGroup.add(parts.bodyMesh);
    parts.axes = tagged(axesLines(1.15 * extent), "axes");
    bodyGroup.add(parts.axes);
    const ell = new THREE.Mesh(new THREE.SphereGeometry(1, 48, 24), translucent(COLORS.ellipsoid, 0.16));
    ell.scale.set(s / Math.sqrt(inertia[0]), s / Math.sqrt(inertia[1]), s / Math.sqrt(inertia[2]));
    const ellWire = new THREE.Mesh(new THREE.SphereGeometry(1, 24, 12), translucent(COLORS.ellipsoid, 0.25, true));
    ellWire.scale.copy(ell.scale);
    parts.ellipsoid = tagged(new THREE.Group(), "ellipsoid");
    parts.ellipsoid.add(ell, ellWire);
    bodyGroup.add(parts.ellipsoid);
    // polhode: -r_B on the ellipsoid (the touching point of the mirrored plane), traced
    parts.polhode = tagged(polyline(traj.point_body, COLORS.polhode, 1, (p) => vec(p).multiplyScalar(-s)), "polhode");
    parts.polhode.geometry.setDrawRange(0, 1);
    bodyGroup.add(parts.polhode);
    root.add(bodyGroup);

    // the invariable plane (mirrored through the centre) and the herpolhode in it
    const d0 = traj.plane_distance[0] * s;
    const plane = tagged(new THREE.Group(), "plane");
    const disc = new THREE.Mesh(new THREE.CircleGeometry(1, 96), translucent(COLORS.plane, 0.55));
    const grid = new THREE.PolarGridHelper(1, 12, 6, 96, 0x59616f, 0x3d4450);
    grid.rotation.x = Math.PI / 2;
    plane.add(disc, grid);
    const herp = traj.point_lab.map((p) => toDisplay(p).multiplyScalar(-s));
    let radius = 0;
    for (const p of herp) radius = Math.max(radius, Math.hypot(p.x, p.y));
    plane.scale.setScalar(Math.max(1.6 * extent, 1.3 * radius));
    parts.plane = plane;
    parts.planeDistance0 = d0;
    root.add(plane);
    parts.herpolhode = tagged(polyline(herp.map((p) => [p.x, p.y, p.z]), COLORS.herpolhode), "herpolhode");
    parts.herpolhode.geometry.setDrawRange(0, 1);
    root.add(parts.herpolhode);
    parts.contact = new THREE.Mesh(
      new THREE.SphereGeometry(0.045 * extent + 0.01, 16, 8),
      new THREE.MeshBasicMaterial({ color: COLORS.herpolhode }),
    );
    root.add(tagged(parts.contact, "contact"));

    // L fixed in space (up), omega along the rotation axis through the contact point
    const arrowLength = 1.6 * extent;
    parts.spin = new THREE.ArrowHelper(Z, new THREE.Vector3(), arrowLength, COLORS.spin, 0.18 * arrowLength, 0.08 * arrowLength);
    root.add(tagged(parts.spin, "spin"));
    parts.omega = new THREE.ArrowHelper(Z, new THREE.Vector3(), arrowLength, COLORS.omega, 0.16 * arrowLength, 0.07 * arrowLength);
    root.add(tagged(parts.omega, "omega"));

    this.parts = parts;
    this.lab.reset(root, 4.2 * Math.max(extent, d0));
  }

  buildBody(traj) {
    const g0 = traj.invariants.spin_norm;
    const inertia = traj.inertia;
    const root = new THREE.Group();
    const parts = this.parts;
    const scale = (p) => vec(p).multiplyScalar(1 / g0);
    parts.sphere = tagged(new THREE.Group(), "sphere");
    parts.sphere.add(
      new THREE.Mesh(new THREE.SphereGeometry(1, 48, 24), translucent(COLORS.sphere, 0.12)),
      new THREE.Mesh(new THREE.SphereGeometry(1, 24, 12), translucent(COLORS.sphere, 0.22, true)),
    );
    root.add(parts.sphere);
    parts.energy = tagged(new THREE.Mesh(new THREE.SphereGeometry(1, 48, 24), translucent(COLORS.energy, 0.16)), "energy");
    root.add(parts.energy);
    parts.curves = new THREE.Group();
    for (const level of traj.curves.family) {
      for (const loop of level.loops) parts.curves.add(tagged(polyline(loop, COLORS.family, 0.8, scale), "family"));
    }
    for (const loop of traj.curves.current) parts.curves.add(tagged(polyline(loop, COLORS.current, 1, scale), "current"));
    root.add(parts.curves);
    parts.bodyAxes = tagged(axesLines(1.35), "axes");
    root.add(parts.bodyAxes);
    parts.trail = tagged(polyline(traj.spin_body, COLORS.spin, 1, scale), "trail");
    parts.trail.geometry.setDrawRange(0, 1);
    root.add(parts.trail);
    parts.marker = new THREE.Mesh(
      new THREE.SphereGeometry(0.05, 16, 8),
      new THREE.MeshBasicMaterial({ color: COLORS.spin }),
    );
    root.add(tagged(parts.marker, "trail"));
    parts.inertia = inertia;
    parts.g0 = g0;
    this.body.reset(root, 3.6);
  }

  applyVisibility() {
    redraw();
    const p = this.parts;
    if (!p.bodyGroup) return;
    const show = params.show;
    p.bodyMesh.visible = show.body;
    p.axes.visible = show.axes;
    p.bodyAxes.visible = show.axes;
    p.ellipsoid.visible = show.ellipsoid;
    p.plane.visible = show.plane;
    p.contact.visible = show.plane || show.herpolhode;
    p.polhode.visible = show.polhode;
    p.herpolhode.visible = show.herpolhode;
    p.spin.visible = show.spin;
    p.omega.visible = show.omega;
    p.sphere.visible = show.sphere;
    p.energy.visible = show.energy;
    p.curves.visible = show.curves;
    // the legend names what is drawn: entries of hidden items are greyed out
    for (const kind of ["lab", "body"]) {
      const keys = drawnKeys(this[kind]);
      for (const item of this.legends[kind].children) {
        item.classList.toggle("off", !keys.has(item.dataset.item));
      }
    }
  }

  frameAt(time) {
    const t = this.traj.t;
    const step = t.length > 1 ? t[1] - t[0] : 1;
    return Math.max(0, Math.min(t.length - 1, Math.floor(time / step + 1e-9)));
  }

  show(time) {
    if (!this.traj) return;
    const k = this.frameAt(time);
    if (k === this.frame) return;
    redraw();
    this.frame = k;
    const tr = this.traj;
    const p = this.parts;
    // lab frame
    p.bodyGroup.quaternion.copy(p.display).multiply(quat(tr.q[k]));
    p.polhode.geometry.setDrawRange(0, k + 1);
    p.herpolhode.geometry.setDrawRange(0, k + 1);
    const normal = p.toDisplay(tr.plane_normal[k]);
    const distance = tr.plane_distance[k] * p.s;
    p.plane.quaternion.setFromUnitVectors(Z, normal);
    p.plane.position.copy(normal).multiplyScalar(-distance);
    const contact = p.toDisplay(tr.point_lab[k]).multiplyScalar(-p.s);
    p.contact.position.copy(contact);
    p.spin.setDirection(normal);
    const axis = p.toDisplay(tr.omega_lab[k]).normalize();
    p.omega.position.copy(contact);
    p.omega.setDirection(axis);
    const through = 2 * contact.length() + 0.45 * p.s / Math.sqrt(Math.max(...tr.inertia));
    p.omega.setLength(through, 0.12 * through, 0.05 * through);
    // body frame
    const g0 = p.g0;
    const spinNorm = Math.hypot(...tr.spin[k]) / g0;
    p.sphere.scale.setScalar(spinNorm);
    const twoK = 2 * tr.energy[k];
    p.energy.scale.set(
      Math.sqrt(twoK * p.inertia[0]) / g0,
      Math.sqrt(twoK * p.inertia[1]) / g0,
      Math.sqrt(twoK * p.inertia[2]) / g0,
    );
    p.marker.position.copy(vec(tr.spin_body[k]).multiplyScalar(1 / g0));
    p.trail.geometry.setDrawRange(0, k + 1);
    this.updateReadout(k);
  }

  updateReadout(k) {
    const tr = this.traj;
    const drift = tr.drift;
    let maxE = 0;
    let maxL = 0;
    for (let i = 0; i <= k; i++) {
      maxE = Math.max(maxE, drift.energy[i]);
      maxL = Math.max(maxL, drift.spin_norm[i]);
    }
    const flips = tr.flips;
    const period = flips.period;
    const rows = [
      ["scheme", "scheme", tr.scheme],
      ["time", "t", `${tr.t[k].toFixed(2)} s`],
      ["energy", "energy drift |E−E₀|/E₀", `${sci(drift.energy[k])}  (max ${sci(maxE)})`],
      ["spin", "|L| drift ||L|−|L₀||/|L₀|", `${sci(drift.spin_norm[k])}  (max ${sci(maxL)})`],
      ["direction", "L drift |L−L₀|/|L₀|", sci(drift.spin[k])],
      ["period", "flip period (half a cycle)", period === null ? "none" : `${fmt(period)} s`],
      ["flips", "flips so far", `${flips.counted[k]}`],
      ["exact", "flips of the exact motion", `${flips.exact[k]}`],
      ["body", "body", `${tr.body.name}, I = (${tr.inertia.map((x) => fmt(x, 4)).join(", ")}) kg m²`],
      ["omega0", "ω₀", `(${tr.omega0.map((x) => fmt(x, 3)).join(", ")}) rad/s`],
      ["steps", "dt · steps",
        `${tr.dt} s · ${tr.n_steps} (${tr.compute_seconds.toFixed(2)} s to compute)`],
    ];
    this.readout.innerHTML = "";
    for (const [key, name, value] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = value;
      dd.dataset.field = key;
      this.readout.append(dt, dd);
    }
  }
}

function bodyMesh(drawing) {
  const material = new THREE.MeshStandardMaterial({
    color: COLORS.body,
    roughness: 0.6,
    metalness: 0.05,
    flatShading: drawing.kind === "mesh",
  });
  if (drawing.kind === "mesh") {
    const geo = new THREE.BufferGeometry();
    geo.setAttribute("position", new THREE.Float32BufferAttribute(drawing.vertices.flat(), 3));
    geo.setIndex(drawing.faces.flat());
    const flat = geo.toNonIndexed();
    flat.computeVertexNormals();
    geo.dispose();
    const mesh = new THREE.Mesh(flat, material);
    const edges = new THREE.LineSegments(
      new THREE.EdgesGeometry(flat, 20),
      new THREE.LineBasicMaterial({ color: 0x2b3038 }),
    );
    const group = new THREE.Group();
    group.add(mesh, edges);
    return group;
  }
  if (drawing.kind === "ellipsoid") {
    const mesh = new THREE.Mesh(new THREE.SphereGeometry(1, 40, 20), material);
    mesh.scale.set(...drawing.semi_axes);
    return mesh;
  }
  if (drawing.kind === "cylinder") {
    const mesh = new THREE.Mesh(
      new THREE.CylinderGeometry(drawing.radius, drawing.radius, drawing.length, 40),
      material,
    );
    mesh.rotation.x = Math.PI / 2; // three's cylinder axis is y; the body's is z
    return mesh;
  }
  if (drawing.kind === "rods") {
    const group = new THREE.Group();
    for (const [a, b] of drawing.segments) {
      const start = vec(a);
      const end = vec(b);
      const length = start.distanceTo(end);
      const rod = new THREE.Mesh(new THREE.CylinderGeometry(0.025 * length + 0.01, 0.025 * length + 0.01, length, 16), material);
      rod.position.copy(start).add(end).multiplyScalar(0.5);
      rod.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), end.clone().sub(start).normalize());
      group.add(rod);
    }
    return group;
  }
  throw new Error(`unknown body drawing ${drawing.kind}`);
}

// ---------------------------------------------------------------- server requests
function bodySpec() {
  const p = params;
  return {
    shape: p.shape,
    a: p.a, b: p.b, c: p.c, mass: p.mass,
    radius: p.radius, length: p.length,
    length1: p.length1, mass1: p.mass1, length2: p.length2, mass2: p.mass2,
    angle_deg: p.angle_deg, crossing1: p.crossing1, crossing2: p.crossing2,
    inertia: [p.A, p.B, p.C],
  };
}

function request(scheme) {
  return {
    body: bodySpec(),
    axis: params.axis,
    perturbation: params.perturbation,
    spin_rate: params.spin_rate,
    scheme,
    dt: params.dt,
    t_end: params.t_end,
    max_frames: 1000,
  };
}

async function fetchTrajectory(scheme) {
  let response;
  try {
    response = await fetch("/api/trajectory", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request(scheme)),
    });
  } catch (err) {
    return { error: `the server did not answer: ${err.message}` };
  }
  let payload;
  try {
    payload = await response.json();
  } catch (err) {
    return { error: `the server sent an unreadable answer (HTTP ${response.status})` };
  }
  if (!response.ok) return { error: payload.error || `HTTP ${response.status}` };
  return { traj: payload };
}

let pending = null;
function scheduleLoad(delay = 250) {
  if (pending) clearTimeout(pending);
  pending = setTimeout(() => {
    pending = null;
    load();
  }, delay);
}

async function load() {
  const ticket = ++app.requested;
  app.loading = true;
  setStatus("computing…", "loading");
  const schemes = params.compare ? [params.scheme, params.schemeB] : [params.scheme];
  const results = await Promise.all(schemes.map(fetchTrajectory));
  if (ticket !== app.requested) return; // a newer request supersedes this one
  app.errors = [];
  results.forEach((res, i) => {
    const slot = app.slots[i];
    if (res.error) {
      slot.clear();
      slot.section.querySelector(".scheme-name").textContent = schemes[i];
      slot.showError(res.error);
      app.errors.push(res.error);
    } else {
      slot.load(res.traj);
    }
  });
  const first = results.find((r) => r.traj);
  document.getElementById("flip-note").textContent = first
    ? `The exact motion here: ${first.traj.flips.reason}.`
    : "";
  app.loading = false;
  app.generation += 1;
  params.time = 0;
  updateTimeRange();
  if (app.errors.length) {
    setStatus(app.errors.join("\n"), "error");
  } else {
    const total = results.reduce((s, r) => s + r.traj.compute_seconds, 0);
    setStatus(`ready: ${schemes.join(" vs ")} (${total.toFixed(2)} s of computing)`, "ready");
  }
}

// ---------------------------------------------------------------- user interface
let timeController = null;

function updateTimeRange() {
  if (timeController) timeController.max(params.t_end).updateDisplay();
}

function tag(controller, name) {
  controller.domElement.dataset.control = name;
  return controller;
}

function buildGui(options) {
  const gui = new GUI({ container: document.getElementById("controls"), title: "Poinsot view" });
  app.gui = gui;
  const schemeNames = options.schemes.map((s) => s.name);
  const reload = () => scheduleLoad();

  const body = gui.addFolder("Body");
  const shapeLabels = {
    cuboid: "cuboid", ellipsoid: "ellipsoid", cylinder: "cylinder",
    crossed_rods: "crossed rods", eota111: "EOTA111 rock", eota221: "EOTA221 rock",
    moments: "custom moments",
  };
  const shapeOptions = {};
  for (const s of options.shapes) shapeOptions[shapeLabels[s] || s] = s;
  tag(body.add(params, "shape", shapeOptions), "shape").onChange(() => { shapeFields(); reload(); });
  const fields = {
    a: tag(body.add(params, "a", 0.05, 10, 0.01).name("a (m)"), "a"),
    b: tag(body.add(params, "b", 0.05, 10, 0.01).name("b (m)"), "b"),
    c: tag(body.add(params, "c", 0.05, 10, 0.01).name("c (m)"), "c"),
    radius: tag(body.add(params, "radius", 0.05, 5, 0.01).name("radius (m)"), "radius"),
    length: tag(body.add(params, "length", 0.05, 10, 0.01).name("length (m)"), "length"),
    mass: tag(body.add(params, "mass", 0.01, 100, 0.01).name("mass (kg)"), "mass"),
    length1: tag(body.add(params, "length1", 0.1, 10, 0.01).name("rod 1 length (m)"), "length1"),
    mass1: tag(body.add(params, "mass1", 0.01, 100, 0.01).name("rod 1 mass (kg)"), "mass1"),
    length2: tag(body.add(params, "length2", 0.1, 10, 0.01).name("rod 2 length (m)"), "length2"),
    mass2: tag(body.add(params, "mass2", 0.01, 100, 0.01).name("rod 2 mass (kg)"), "mass2"),
    angle_deg: tag(body.add(params, "angle_deg", 1, 179, 1).name("angle (deg)"), "angle_deg"),
    crossing1: tag(body.add(params, "crossing1", 0, 1, 0.01).name("crossing on rod 1"), "crossing1"),
    crossing2: tag(body.add(params, "crossing2", 0, 1, 0.01).name("crossing on rod 2"), "crossing2"),
    A: tag(body.add(params, "A", 0.01, 10, 0.001).name("A (kg m²)"), "A"),
    B: tag(body.add(params, "B", 0.01, 10, 0.001).name("B (kg m²)"), "B"),
    C: tag(body.add(params, "C", 0.01, 10, 0.001).name("C (kg m²)"), "C"),
  };
  const used = {
    cuboid: ["a", "b", "c", "mass"],
    ellipsoid: ["a", "b", "c", "mass"],
    cylinder: ["radius", "length", "mass"],
    crossed_rods: ["length1", "mass1", "length2", "mass2", "angle_deg", "crossing1", "crossing2"],
    eota111: ["a"],
    eota221: ["a"],
    moments: ["A", "B", "C"],
  };
  function shapeFields() {
    for (const [name, ctrl] of Object.entries(fields)) {
      ctrl.show(used[params.shape].includes(name));
    }
    fields.a.name(params.shape.startsWith("eota") ? "size L (m)" : "a (m)");
  }
  for (const ctrl of Object.values(fields)) ctrl.onFinishChange(reload);
  shapeFields();
  app.shapeFields = shapeFields;

  const start = gui.addFolder("Initial rotation");
  tag(start.add(params, "axis", ["minor", "intermediate", "major"]).name("initial axis"), "axis").onChange(reload);
  const perturbation = tag(start.add(params, "perturbation", 0, 0.5, 0.001).name("perturbation (× rate)"), "perturbation");
  perturbation.domElement.title =
    "the two other components of ω₀, as a fraction of the spin rate: 0.01 is 1 %, 0.1 rad/s at 10 rad/s";
  perturbation.onFinishChange(reload);
  tag(start.add(params, "spin_rate", 0.1, 50, 0.1).name("spin rate (rad/s)"), "spin_rate").onFinishChange(reload);

  const integ = gui.addFolder("Integration");
  tag(integ.add(params, "scheme", schemeNames).name("scheme"), "scheme").onChange(reload);
  tag(integ.add(params, "compare").name("compare two schemes"), "compare").onChange(() => {
    setCompare(params.compare);
    reload();
  });
  tag(integ.add(params, "schemeB", schemeNames).name("second scheme"), "schemeB").onChange(() => {
    if (params.compare) reload();
  });
  tag(integ.add(params, "dt", 0.0005, 0.1, 0.0005).name("dt (s)"), "dt").onFinishChange(reload);
  tag(integ.add(params, "t_end", 1, 200, 1).name("duration (s)"), "t_end").onFinishChange(reload);
  integ.add({ seed000: () => preset000() }, "seed000").name("preset: explicit vs implicit, major axis");

  const play = gui.addFolder("Playback");
  tag(play.add(params, "speed", 0.05, 10, 0.05).name("speed (× real time)"), "speed");
  tag(play.add(params, "playing").name("playing").listen(), "playing");
  timeController = tag(play.add(params, "time", 0, params.t_end, 0.001).name("t (s)").listen(), "time");
  timeController.onChange(() => { params.playing = false; });
  tag(play.add({ step: () => stepFrame(1) }, "step").name("step ▸"), "step");
  tag(play.add({ back: () => stepFrame(-1) }, "back").name("step ◂"), "back");
  tag(play.add({ restart: () => { params.time = 0; } }, "restart").name("restart"), "restart");

  const show = gui.addFolder("Show");
  const labels = {
    body: "body", axes: "principal axes", ellipsoid: "inertia ellipsoid", plane: "invariable plane",
    polhode: "polhode", herpolhode: "herpolhode", spin: "L", omega: "ω",
    sphere: "momentum sphere", energy: "energy ellipsoid", curves: "intersection curves",
  };
  for (const key of Object.keys(params.show)) {
    tag(show.add(params.show, key).name(labels[key]), `show-${key}`).onChange(() => {
      app.slots.forEach((s) => s.applyVisibility());
    });
  }
  show.close();
}

function setCompare(on) {
  document.getElementById("views").className = on ? "compare" : "single";
  app.slots[1].section.hidden = !on;
  if (!on) app.slots[1].clear();
}

function preset000() {
  Object.assign(params, {
    shape: "cuboid", a: 3, b: 2, c: 1, mass: 1, axis: "major", perturbation: 1e-4,
    spin_rate: 10, scheme: "implicit", compare: true, schemeB: "explicit", dt: 0.01, t_end: 20,
  });
  app.gui.controllersRecursive().forEach((c) => c.updateDisplay());
  app.shapeFields();
  setCompare(true);
  scheduleLoad(0);
}

function frameStep() {
  const slot = app.slots.find((s) => s.traj);
  if (!slot) return 0.01;
  const t = slot.traj.t;
  return t.length > 1 ? t[1] - t[0] : 0.01;
}

function stepFrame(direction) {
  params.playing = false;
  const h = frameStep();
  params.time = Math.min(params.t_end, Math.max(0, (Math.round(params.time / h) + direction) * h));
}

// ---------------------------------------------------------------- animation loop
let last = performance.now();
let layout = "";
function animate(now) {
  const elapsed = Math.min(0.1, (now - last) / 1000);
  last = now;
  const canvas = renderer.domElement;
  if (canvas.width !== Math.floor(canvas.clientWidth * renderer.getPixelRatio()) ||
      canvas.height !== Math.floor(canvas.clientHeight * renderer.getPixelRatio())) {
    renderer.setSize(canvas.clientWidth, canvas.clientHeight, false);
    redraw();
  }
  const end = Math.max(...app.slots.filter((s) => s.traj).map((s) => s.traj.t.at(-1)), 0);
  if (params.playing && end > 0) {
    params.time += elapsed * params.speed;
    if (params.time > end) params.time = 0;
  }
  const active = app.slots.filter((s) => s.active);
  const rects = active.map((s) => [s.lab.element, s.body.element])
    .flat()
    .map((e) => { const r = e.getBoundingClientRect(); return `${r.left},${r.top},${r.width},${r.height}`; })
    .join(";");
  if (rects !== layout) {
    layout = rects;
    redraw();
  }
  for (const slot of active) slot.show(params.time);
  // draw only when something changed: a software rasteriser needs its time
  if (app.dirty) {
    app.dirty = false;
    renderer.setScissorTest(false);
    renderer.clear();
    renderer.setScissorTest(true);
    for (const slot of active) {
      slot.lab.render();
      slot.body.render();
    }
    app.frames += 1;
  }
  requestAnimationFrame(animate);
}

async function main() {
  app.slots = [new Slot(0), new Slot(1)];
  requestAnimationFrame(animate);
  setStatus("loading options…", "loading");
  let options;
  try {
    const response = await fetch("/api/options");
    options = await response.json();
  } catch (err) {
    setStatus(`cannot reach the tumble server: ${err.message}`, "error");
    return;
  }
  buildGui(options);
  load();
}

main();
