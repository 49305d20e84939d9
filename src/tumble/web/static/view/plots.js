// Small line plots on a 2D canvas: the velocity and rotational velocity of a picked rock.
import { formatNumber } from "./colors.js";

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const unit = raw / power;
  return power * (unit < 1.5 ? 1 : unit < 3.5 ? 2 : unit < 7.5 ? 5 : 10);
}

function range(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const arr of values) {
    for (const v of arr) {
      if (Number.isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi === lo) return [lo - 1, hi + 1];
  return [lo, hi];
}

// Draw series {y, color, label} against x on `canvas`; `marker` is an x drawn as a vertical
// line (the playback time). Returns nothing; the canvas keeps its CSS size.
export function linePlot(canvas, { x, series, xLabel, yLabel, marker = null }) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 300;
  const height = canvas.clientHeight || 140;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const left = 46;
  const right = 8;
  const top = 16;
  const bottom = 28;
  const [x0, x1] = range([x]);
  let [y0, y1] = range(series.map((s) => s.y));
  const pad = 0.05 * (y1 - y0);
  y0 -= pad;
  y1 += pad;
  const px = (v) => left + ((v - x0) / (x1 - x0)) * (width - left - right);
  const py = (v) => top + (1 - (v - y0) / (y1 - y0)) * (height - top - bottom);
  ctx.font = "10px system-ui, sans-serif";
  ctx.strokeStyle = "#39404d";
  ctx.fillStyle = "#8b93a1";
  ctx.lineWidth = 1;
  const ys = niceStep(y1 - y0, 4);
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (let v = Math.ceil(y0 / ys) * ys; v <= y1; v += ys) {
    ctx.beginPath();
    ctx.moveTo(left, py(v));
    ctx.lineTo(width - right, py(v));
    ctx.stroke();
    ctx.fillText(formatNumber(Math.abs(v) < 1e-12 ? 0 : v), left - 4, py(v));
  }
  const xs = niceStep(x1 - x0, 6);
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (let v = Math.ceil(x0 / xs) * xs; v <= x1; v += xs) {
    ctx.beginPath();
    ctx.moveTo(px(v), top);
    ctx.lineTo(px(v), height - bottom);
    ctx.stroke();
    ctx.fillText(formatNumber(v), px(v), height - bottom + 3);
  }
  ctx.fillText(xLabel, left + (width - left - right) / 2, height - 12);
  ctx.textAlign = "left";
  ctx.fillText(yLabel, left, 2);
  for (const s of series) {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    let pen = false;
    for (let k = 0; k < x.length; k++) {
      if (!Number.isFinite(s.y[k])) {
        pen = false;
        continue;
      }
      if (pen) ctx.lineTo(px(x[k]), py(s.y[k]));
      else ctx.moveTo(px(x[k]), py(s.y[k]));
      pen = true;
    }
    ctx.stroke();
  }
  let lx = width - right;
  ctx.textAlign = "right";
  for (const s of [...series].reverse()) {
    ctx.fillStyle = s.color;
    ctx.fillText(s.label, lx, 2);
    lx -= ctx.measureText(s.label).width + 10;
  }
  if (marker !== null && marker >= x0 && marker <= x1) {
    ctx.strokeStyle = "#ffffff";
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(px(marker), top);
    ctx.lineTo(px(marker), height - bottom);
    ctx.stroke();
    ctx.setLineDash([]);
  }
}
