// Colour tables sent by the server (256 colours as one hex string) and colour bars.

export function decodeTable(hex) {
  const n = hex.length / 6;
  const table = new Float32Array(n * 3);
  for (let k = 0; k < n; k++) {
    for (let c = 0; c < 3; c++) {
      table[3 * k + c] = parseInt(hex.substr(6 * k + 2 * c, 2), 16) / 255;
    }
  }
  return table;
}

// A scale mapping a value to [0, 1]: linear, or logarithmic for positive ranges.
export function makeScale(min, max, kind = "linear") {
  if (kind === "log" && min > 0 && max > min) {
    const a = Math.log(min);
    const b = Math.log(max);
    return (v) => Math.min(1, Math.max(0, (Math.log(Math.max(v, min)) - a) / (b - a)));
  }
  const span = max > min ? max - min : 1;
  return (v) => Math.min(1, Math.max(0, (v - min) / span));
}

// Write the colour of fraction f (0..1) of `table` into out[offset..offset+2].
export function colourAt(table, f, out, offset) {
  const n = table.length / 3;
  const k = Math.min(n - 1, Math.max(0, Math.round(f * (n - 1))));
  out[offset] = table[3 * k];
  out[offset + 1] = table[3 * k + 1];
  out[offset + 2] = table[3 * k + 2];
}

export function formatNumber(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toPrecision(3).replace(/\.?0+$/, (m) => (m.startsWith(".") ? "" : m));
}

// A horizontal colour bar in `element`: title, gradient, and the values at its ends and middle.
export function drawColourBar(element, { title, unit, min, max, scale = "linear", table }) {
  element.hidden = false;
  element.innerHTML = "";
  const head = document.createElement("div");
  head.className = "bar-title";
  head.textContent = unit ? `${title} (${unit === "1" ? "fraction" : unit})` : title;
  const canvas = document.createElement("canvas");
  canvas.width = 256;
  canvas.height = 12;
  const ctx = canvas.getContext("2d");
  const n = table.length / 3;
  for (let x = 0; x < 256; x++) {
    const k = Math.round((x / 255) * (n - 1));
    const [r, g, b] = [table[3 * k], table[3 * k + 1], table[3 * k + 2]].map((c) =>
      Math.round(c * 255),
    );
    ctx.fillStyle = `rgb(${r},${g},${b})`;
    ctx.fillRect(x, 0, 1, 12);
  }
  const ticks = document.createElement("div");
  ticks.className = "bar-ticks";
  const middle =
    scale === "log" && min > 0 ? Math.sqrt(min * max) : 0.5 * (Number(min) + Number(max));
  for (const v of [min, middle, max]) {
    const span = document.createElement("span");
    span.textContent = formatNumber(v);
    ticks.appendChild(span);
  }
  element.append(head, canvas, ticks);
  if (scale === "log") {
    const note = document.createElement("div");
    note.className = "bar-note";
    note.textContent = "logarithmic scale";
    element.appendChild(note);
  }
}
