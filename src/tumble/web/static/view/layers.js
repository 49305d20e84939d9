// The scene's layers built from the run's data: terrain, trajectories, rocks, deposits,
// barriers and release. Coordinates are the page's (relative to the run's origin), z up.
import * as THREE from "three";
import { colourAt, makeScale } from "./colors.js";

export const STATUS_COLOURS = {
  stopped: 0xf2f2f2,
  left_domain: 0x8b93a1,
  timed_out: 0xf5a524,
  caught: 0x2ee6f0,
  failed: 0xff4d4f,
};
const BASE_LOW = [0.55, 0.58, 0.5];
const BASE_HIGH = [0.78, 0.74, 0.66];

// ------------------------------------------------------------------------------- terrain
export class TerrainGrid {
  constructor(grid, heights) {
    Object.assign(this, grid);
    this.heights = heights; // Float32Array ny * nx, rows south to north
  }

  x(i) {
    return this.x0 + i * this.dx;
  }

  y(j) {
    return this.y0 + j * this.dy;
  }

  // Bilinear height of the decimated grid (what the page draws); nodata corners are skipped.
  heightAt(x, y) {
    const fi = Math.min(Math.max((x - this.x0) / this.dx, 0), this.nx - 1);
    const fj = Math.min(Math.max((y - this.y0) / this.dy, 0), this.ny - 1);
    const i = Math.min(Math.floor(fi), this.nx - 2 < 0 ? 0 : this.nx - 2);
    const j = Math.min(Math.floor(fj), this.ny - 2 < 0 ? 0 : this.ny - 2);
    const u = fi - i;
    const v = fj - j;
    let sum = 0;
    let weight = 0;
    const corners = [
      [i, j, (1 - u) * (1 - v)],
      [i + 1, j, u * (1 - v)],
      [i, j + 1, (1 - u) * v],
      [i + 1, j + 1, u * v],
    ];
    for (const [ci, cj, w] of corners) {
      if (ci >= this.nx || cj >= this.ny) continue;
      const h = this.heights[cj * this.nx + ci];
      if (Number.isFinite(h)) {
        sum += w * h;
        weight += w;
      }
    }
    return weight > 0 ? sum / weight : 0;
  }
}

export function terrainMesh(grid) {
  const { nx, ny, heights } = grid;
  const positions = new Float32Array(nx * ny * 3);
  let lo = Infinity;
  let hi = -Infinity;
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const k = j * nx + i;
      const h = heights[k];
      positions[3 * k] = grid.x(i);
      positions[3 * k + 1] = grid.y(j);
      positions[3 * k + 2] = Number.isFinite(h) ? h : 0;
      if (Number.isFinite(h)) {
        lo = Math.min(lo, h);
        hi = Math.max(hi, h);
      }
    }
  }
  const index = [];
  for (let j = 0; j + 1 < ny; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const a = j * nx + i;
      const b = a + 1;
      const c = a + nx;
      const d = c + 1;
      if ([a, b, c, d].every((k) => Number.isFinite(heights[k]))) index.push(a, b, d, a, d, c);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(nx * ny * 3), 3));
  geometry.setIndex(nx * ny > 65535 ? new THREE.Uint32BufferAttribute(index, 1) : index);
  geometry.computeVertexNormals();
  const material = new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide });
  const mesh = new THREE.Mesh(geometry, material);
  mesh.userData = { low: lo, high: hi };
  paintTerrain(mesh, grid, null);
  return mesh;
}

// Vertex colours: a light elevation tint under the lighting, or an overlay's colours where it
// has a value (nodata, and zero for counts and probabilities, keep the tint).
export function paintTerrain(mesh, grid, overlay) {
  const colours = mesh.geometry.getAttribute("color").array;
  const { low, high } = mesh.userData;
  const span = high > low ? high - low : 1;
  const scale = overlay ? makeScale(overlay.min, overlay.max, overlay.scale) : null;
  for (let k = 0; k < grid.nx * grid.ny; k++) {
    const v = overlay ? overlay.values[k] : NaN;
    if (overlay && Number.isFinite(v) && !(overlay.zero_is_empty && v <= 0)) {
      colourAt(overlay.table, scale(v), colours, 3 * k);
    } else {
      const f = Number.isFinite(grid.heights[k]) ? (grid.heights[k] - low) / span : 0;
      for (let c = 0; c < 3; c++) colours[3 * k + c] = BASE_LOW[c] + f * (BASE_HIGH[c] - BASE_LOW[c]);
    }
  }
  mesh.geometry.getAttribute("color").needsUpdate = true;
}

// --------------------------------------------------------------------------- trajectories
// The stored samples as one set of line segments, coloured by kinetic energy.
export function trajectoryLines(traj, table) {
  const { n, offsets } = traj;
  const positions = new Float32Array(n * 3);
  const colours = new Float32Array(n * 3);
  const scale = makeScale(0, traj.energyMax || 1);
  for (let k = 0; k < n; k++) {
    positions[3 * k] = traj.x[k];
    positions[3 * k + 1] = traj.y[k];
    positions[3 * k + 2] = traj.z[k];
    colourAt(table, scale(traj.energy[k]), colours, 3 * k);
  }
  const index = new Uint32Array(2 * Math.max(0, n - (offsets.length - 1)));
  let m = 0;
  for (let r = 0; r + 1 < offsets.length; r++) {
    for (let k = offsets[r]; k + 1 < offsets[r + 1]; k++) {
      index[m++] = k;
      index[m++] = k + 1;
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
  geometry.setIndex(new THREE.BufferAttribute(index.subarray(0, m), 1));
  const material = new THREE.LineBasicMaterial({ vertexColors: true });
  return new THREE.LineSegments(geometry, material);
}

// One rock's path, drawn over the others when it is picked.
export function highlightPath(traj, r) {
  const a = traj.offsets[r];
  const b = traj.offsets[r + 1];
  const positions = new Float32Array((b - a) * 3);
  for (let k = a; k < b; k++) {
    positions[3 * (k - a)] = traj.x[k];
    positions[3 * (k - a) + 1] = traj.y[k];
    positions[3 * (k - a) + 2] = traj.z[k];
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  const material = new THREE.LineBasicMaterial({ color: 0xffffff, depthTest: false });
  const line = new THREE.Line(geometry, material);
  line.renderOrder = 10;
  return line;
}

// ---------------------------------------------------------------------------------- rocks
export function hullGeometry(rock) {
  const positions = [];
  for (const face of rock.faces) {
    for (const v of face) positions.push(...rock.vertices[v]);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  geometry.computeVertexNormals(); // non-indexed: one normal per face, flat facets
  return geometry;
}

// The stored rocks as one instanced mesh per rock class: mesh.userData.members lists the stored
// rocks (indices into traj.rocks) it draws, in instance order.
export function rockInstances(shapes, shapeIds) {
  const group = new THREE.Group();
  shapes.forEach((shape, id) => {
    const members = [];
    shapeIds.forEach((s, r) => {
      if (s === id) members.push(r);
    });
    if (!members.length) return;
    const material = new THREE.MeshStandardMaterial({
      color: 0xffffff,
      roughness: 0.85,
      metalness: 0.0,
      flatShading: true,
    });
    const mesh = new THREE.InstancedMesh(hullGeometry(shape), material, members.length);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.frustumCulled = false;
    mesh.userData.members = members;
    mesh.userData.shape = shape.name;
    group.add(mesh);
  });
  return group;
}

const _q0 = new THREE.Quaternion();
const _q1 = new THREE.Quaternion();

// Position and orientation of stored rock r at time t: linear in position, slerp in rotation
// between the two samples around t; before the first sample the first, after the last the last.
export function rockPose(traj, r, t, position, quaternion) {
  const a = traj.offsets[r];
  const b = traj.offsets[r + 1] - 1;
  const time = traj.t;
  let k;
  let f = 0;
  if (t <= time[a]) k = a;
  else if (t >= time[b]) k = b;
  else {
    let lo = a;
    let hi = b;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (time[mid] <= t) lo = mid;
      else hi = mid;
    }
    k = lo;
    f = (t - time[lo]) / (time[hi] - time[lo]);
  }
  const k1 = Math.min(k + 1, b);
  position.set(
    traj.x[k] + f * (traj.x[k1] - traj.x[k]),
    traj.y[k] + f * (traj.y[k1] - traj.y[k]),
    traj.z[k] + f * (traj.z[k1] - traj.z[k]),
  );
  // tumble's (w, x, y, z), body to space -> three.js (x, y, z, w)
  _q0.set(traj.qx[k], traj.qy[k], traj.qz[k], traj.qw[k]);
  _q1.set(traj.qx[k1], traj.qy[k1], traj.qz[k1], traj.qw[k1]);
  quaternion.slerpQuaternions(_q0, _q1, f).normalize();
  return traj.energy[k] + f * (traj.energy[k1] - traj.energy[k]);
}

// ------------------------------------------------------------------------------- deposits
export function depositPoints(deposits, statuses) {
  const n = deposits.rock.length;
  const positions = new Float32Array(n * 3);
  const colours = new Float32Array(n * 3);
  const colour = new THREE.Color();
  for (let k = 0; k < n; k++) {
    positions[3 * k] = deposits.x[k];
    positions[3 * k + 1] = deposits.y[k];
    positions[3 * k + 2] = deposits.z[k];
    colour.setHex(STATUS_COLOURS[statuses[deposits.status[k]]] ?? 0xe93d82);
    colour.toArray(colours, 3 * k);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
  const material = new THREE.PointsMaterial({ size: 5, sizeAttenuation: false, vertexColors: true });
  return new THREE.Points(geometry, material);
}

// ------------------------------------------------------------------------- barriers, release
function draped(grid, line, spacing) {
  const points = [];
  for (let s = 0; s + 1 < line.length; s++) {
    const [x0, y0] = line[s];
    const [x1, y1] = line[s + 1];
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / spacing));
    for (let k = 0; k < steps; k++) {
      const x = x0 + ((x1 - x0) * k) / steps;
      const y = y0 + ((y1 - y0) * k) / steps;
      points.push([x, y, grid.heightAt(x, y)]);
    }
  }
  const [x, y] = line[line.length - 1];
  points.push([x, y, grid.heightAt(x, y)]);
  return points;
}

// A barrier as a wall from the ground up to its height (a net) or 1.5 m (an observation line).
export function barrierWall(grid, barrier, index) {
  const net = barrier.kind === "net";
  const height = net && barrier.height_m ? barrier.height_m : 1.5;
  const ground = draped(grid, barrier.line, Math.min(grid.dx, grid.dy));
  const positions = [];
  for (let k = 0; k + 1 < ground.length; k++) {
    const [a, b] = [ground[k], ground[k + 1]];
    const [a2, b2] = [
      [a[0], a[1], a[2] + height],
      [b[0], b[1], b[2] + height],
    ];
    positions.push(...a, ...b, ...b2, ...a, ...b2, ...a2);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  const colour = net ? 0xf76b15 : 0x3e63dd;
  const wall = new THREE.Mesh(
    geometry,
    new THREE.MeshBasicMaterial({
      color: colour,
      transparent: true,
      opacity: 0.45,
      side: THREE.DoubleSide,
      depthWrite: false,
    }),
  );
  const topLine = new THREE.BufferGeometry().setFromPoints(
    ground.map((p) => new THREE.Vector3(p[0], p[1], p[2] + height)),
  );
  const group = new THREE.Group();
  group.add(wall, new THREE.Line(topLine, new THREE.LineBasicMaterial({ color: colour })));
  wall.userData = { barrier: index };
  return { group, wall };
}

export function releaseLayer(grid, release) {
  const group = new THREE.Group();
  const colour = 0xffffff;
  if (release.kind === "line" || release.kind === "polygon") {
    const line = release.kind === "polygon" ? [...release.coordinates, release.coordinates[0]] : release.coordinates;
    const points = draped(grid, line, Math.min(grid.dx, grid.dy)).map(
      (p) => new THREE.Vector3(p[0], p[1], p[2] + 0.3),
    );
    const geometry = new THREE.BufferGeometry().setFromPoints(points);
    group.add(new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour })));
  }
  const points = release.points.length
    ? release.points
    : release.kind === "point"
      ? release.coordinates.map(([x, y]) => [x, y, grid.heightAt(x, y)])
      : [];
  if (points.length) {
    const geometry = new THREE.BufferGeometry().setFromPoints(
      points.map((p) => new THREE.Vector3(p[0], p[1], p[2])),
    );
    const material = new THREE.PointsMaterial({ color: colour, size: 7, sizeAttenuation: false });
    group.add(new THREE.Points(geometry, material));
  }
  return group;
}
