// web/bitarray.js - the main view's bit array (or counter array): where each
// cell is drawn for the kind and the space there is, the cells themselves
// with the last insert's, removal's and query's highlighted, the loupe that
// zooms on the hovered cell, and the counting kind's colour scale.
import { sizeCanvas } from './canvas.js';
import { grouped } from './text.js';

/** '#rrggbb' as [r, g, b]. */
function rgbOf(hex) {
  const v = parseInt(hex.replace('#', ''), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
/** A counter's shade: lighter for 1, darker for each step up to 15. */
const counterLightness = (c) => 82 - 4.3 * (c - 1);
const counterColour = (c, palette) => (c === 0 ? palette.unset : `hsl(226 58% ${counterLightness(c)}%)`);
function hslToRgb(h, s, l) {
  s /= 100; l /= 100;
  const f = (n) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

// ---- the bit array's layout --------------------------------------------------
/**
 * Where bit i is drawn, fitted into width x maxHeight CSS px. A cell may be
 * smaller than a pixel (65,536 bits on a phone): then the array is drawn as
 * an image of one pixel per bit, scaled down, and the loupe shows the bits.
 * Returns { width, height, cellW, cellH, cols, lines, at(i) -> [col, line],
 * indexAt(col, line) -> i or -1, x(col), y(line), gaps, note }.
 */
function bitLayout(width, maxHeight, bits, kind) {
  if (kind === 'split-block') {
    // One 256-bit block per line; when the blocks are few and the screen
    // narrow, a block wraps onto 2, 4 or 8 lines of whole 32-bit words.
    const blocks = bits / 256;
    let best = null;
    for (const perLine of [256, 128, 64, 32]) {
      const lines = blocks * (256 / perLine);
      const cellW = Math.min(14, width / perLine);
      const cellH = Math.min(cellW * 1.6, 14, maxHeight / lines);
      const score = Math.min(cellW, cellH);
      if (!best || score > best.score + 1e-9) best = { perLine, lines, cellW, cellH, score };
    }
    const { perLine, lines } = best;
    const linesPerBlock = 256 / perLine;
    const gaps = best.cellW >= 3 && best.cellH >= 3;
    const wordGap = gaps ? 2 : 0;
    const blockGap = gaps ? (blocks > 64 ? 2 : 5) : 0;
    const cellW = gaps ? Math.min(14, (width - wordGap * (perLine / 32 - 1)) / perLine) : best.cellW;
    const cellH = best.cellH;
    const x = (col) => col * cellW + Math.floor(col / 32) * wordGap;
    const y = (line) => line * cellH + Math.floor(line / linesPerBlock) * blockGap;
    return {
      width: x(perLine - 1) + cellW, height: y(lines - 1) + cellH, cellW, cellH, cols: perLine, lines, gaps,
      at(i) {
        const block = Math.floor(i / 256), r = i % 256;
        return [r % perLine, block * linesPerBlock + Math.floor(r / perLine)];
      },
      indexAt: (col, line) => (col < 0 || col >= perLine || line < 0 || line >= lines ? -1
        : Math.floor(line / linesPerBlock) * 256 + (line % linesPerBlock) * perLine + col),
      x, y,
      colAt(px) {
        const word = Math.floor(px / (32 * cellW + wordGap));
        return word * 32 + Math.min(31, Math.floor((px - word * (32 * cellW + wordGap)) / cellW));
      },
      lineAt(py) {
        const block = Math.floor(py / (linesPerBlock * cellH + blockGap));
        return block * linesPerBlock + Math.min(linesPerBlock - 1, Math.floor((py - block * (linesPerBlock * cellH + blockGap)) / cellH));
      },
      note: `${grouped(blocks)} blocks \u00d7 256 bits${perLine < 256 ? ` (each block on ${linesPerBlock} lines)` : ''}`,
    };
  }
  // Standard and counting: a grid a power of two wide (rows are whole 64-bit
  // words), the width that gives the largest cells in the space there is.
  let best = null;
  for (let cols = 8; cols <= Math.max(8, bits); cols *= 2) {
    const lines = Math.ceil(bits / cols);
    const cell = Math.min(22, width / cols, maxHeight / lines);
    // On a tie the wider grid: it fills a narrow screen's width.
    if (!best || cell >= best.cell - 1e-9) best = { cols, lines, cell };
  }
  const { cols, lines, cell } = best;
  return {
    width: cols * cell, height: lines * cell, cellW: cell, cellH: cell, cols, lines, gaps: cell >= 3,
    at: (i) => [i % cols, Math.floor(i / cols)],
    indexAt: (col, line) => (col < 0 || col >= cols || line < 0 || line >= lines || line * cols + col >= bits ? -1 : line * cols + col),
    x: (col) => col * cell, y: (line) => line * cell,
    colAt: (px) => Math.floor(px / cell), lineAt: (py) => Math.floor(py / cell),
    note: `${grouped(lines)} rows \u00d7 ${cols} bits${cell < 1 ? ` \u00b7 ${Number(cell.toPrecision(2))} px per bit` : ''}`,
  };
}

/** The most height the array may take: it must leave the figures on screen. */
function arrayHeightBudget() {
  return Math.max(120, Math.min(560, Math.round(window.innerHeight * 0.42)));
}

const loupeCols = 15, loupeLines = 7, loupeCell = 18;

/**
 * The bit array of the page's elements `ui` (bits, bitsWrap, layoutNote,
 * loupe, loupeCanvas, loupeLabel). draw(pg, palette) draws the Playground's
 * cells; hover is the pointer's { x, y } over the array (CSS px) or null;
 * layout is the layout last drawn (bitLayout), null before the first.
 */
export function createBitArray(ui) {
  let layout = null;
  let hover = null;
  let palette = null;

  /** The state of cell i for drawing: 0/1, or the counter value for counting. */
  function cellValues(pg) {
    if (pg.kind() === 'counting') return Uint8Array.from(pg.counters());
    const words = pg.words();  // bit i = bit i % 32 of word i / 32
    const bits = pg.bits();
    const out = new Uint8Array(bits);
    for (let i = 0; i < bits; i++) out[i] = (words[i >>> 5] >>> (i & 31)) & 1;
    return out;
  }

  /** The colour of a cell with this value. */
  function cellColour(value, counting) {
    if (counting) return counterColour(value, palette);
    return value ? palette.set : palette.unset;
  }

  /** Draws Playground `pg`'s cells in `colours` (canvas.js, readPalette), and the loupe. */
  function draw(pg, colours) {
    palette = colours;
    const bits = pg.bits();
    const counting = pg.kind() === 'counting';
    layout = bitLayout(ui.bitsWrap.clientWidth, arrayHeightBudget(), bits, pg.kind());
    ui.layoutNote.textContent = `\u00b7 ${layout.note}`;
    const context = sizeCanvas(ui.bits, Math.max(1, Math.floor(layout.width)), Math.max(1, Math.ceil(layout.height)));
    const values = cellValues(pg);
    if (layout.gaps) {
      // Cells of 3 px and more: one rectangle each, with a one-pixel gap so
      // neighbouring set bits stay countable instead of merging into bars.
      const w = layout.cellW - 1, h = layout.cellH - 1;
      const paths = new Map();
      for (let i = 0; i < bits; i++) {
        const [col, line] = layout.at(i);
        const colour = cellColour(values[i], counting);
        if (!paths.has(colour)) paths.set(colour, new Path2D());
        paths.get(colour).rect(layout.x(col), layout.y(line), w, h);
      }
      for (const [colour, path] of paths) {
        context.fillStyle = colour;
        context.fill(path);
      }
      if (counting && Math.min(w, h) >= 11) {
        context.font = `${Math.floor(Math.min(w, h) * 0.75)}px ui-monospace, monospace`;
        context.textAlign = 'center';
        context.textBaseline = 'middle';
        for (let i = 0; i < bits; i++) {
          if (values[i] === 0) continue;
          const [col, line] = layout.at(i);
          context.fillStyle = counterLightness(values[i]) < 50 ? '#ffffff' : '#10183a';
          context.fillText(values[i].toString(16).toUpperCase(), layout.x(col) + w / 2, layout.y(line) + h / 2 + 0.5);
        }
      }
    } else {
      // Small cells, down to a fraction of a pixel: an image with one pixel
      // per cell, scaled into place. Scaled down, the browser averages the
      // cells each screen pixel covers, so density still reads as shade.
      const image = new ImageData(layout.cols, layout.lines);
      const rgb = new Map();
      const colourOf = (value) => {
        if (!rgb.has(value)) {
          rgb.set(value, counting && value > 0 ? hslToRgb(226, 58, counterLightness(value)) : rgbOf(cellColour(value, counting)));
        }
        return rgb.get(value);
      };
      for (let i = 0; i < bits; i++) {
        const [col, line] = layout.at(i);
        const [r, g, b] = colourOf(values[i]);
        const at = 4 * (line * layout.cols + col);
        image.data[at] = r; image.data[at + 1] = g; image.data[at + 2] = b; image.data[at + 3] = 255;
      }
      const off = new OffscreenCanvas(layout.cols, layout.lines);
      off.getContext('2d').putImageData(image, 0, 0);
      const shrinking = layout.cellW < 1 || layout.cellH < 1;
      context.imageSmoothingEnabled = shrinking;
      context.imageSmoothingQuality = 'high';
      context.drawImage(off, 0, 0, layout.cols * layout.cellW, layout.lines * layout.cellH);
    }
    // Highlights: the last key's bits, the last removed key's, the last query's.
    const ring = !layout.gaps;
    const mark = (i, fill, stroke) => {
      const [col, line] = layout.at(i);
      const x = layout.x(col), y = layout.y(line);
      const w = Math.max(layout.cellW - (layout.gaps ? 1 : 0), 1), h = Math.max(layout.cellH - (layout.gaps ? 1 : 0), 1);
      if (ring) {
        // A ring around the cell, so one highlighted bit among thousands is found.
        context.strokeStyle = stroke ?? fill;
        context.lineWidth = 1.5;
        context.beginPath();
        context.arc(x + w / 2, y + h / 2, 7, 0, 2 * Math.PI);
        context.stroke();
        context.fillStyle = fill;
        context.fillRect(x + w / 2 - 1.5, y + h / 2 - 1.5, 3, 3);
        return;
      }
      context.fillStyle = fill;
      context.fillRect(x, y, w, h);
      if (stroke) {
        context.strokeStyle = stroke;
        context.lineWidth = 2;
        context.strokeRect(x + 1, y + 1, w - 2, h - 2);
      }
      if (counting && Math.min(w, h) >= 11 && values[i] > 0) {
        context.fillStyle = stroke ? palette.query : '#ffffff';
        context.fillText(values[i].toString(16).toUpperCase(), x + w / 2, y + h / 2 + 0.5);
      }
    };
    if (pg.insertCalls() > 0) for (const i of pg.lastInsertBits()) mark(i, palette.insert);
    if (pg.removed() > 0) for (const i of pg.lastRemovedBits()) mark(i, palette.removed);
    if (pg.queries() > 0) {
      for (const i of pg.lastQueryBits()) {
        if (values[i]) mark(i, palette.query);
        else mark(i, '#ffffff', palette.query);
      }
    }
    drawLoupe(pg, values);
  }

  /** The cell under CSS position (x, y) of the bit array, or null. */
  function cellAt(x, y) {
    if (!layout) return null;
    const col = Math.min(layout.cols - 1, Math.max(0, layout.colAt(x)));
    const line = Math.min(layout.lines - 1, Math.max(0, layout.lineAt(y)));
    const index = layout.indexAt(col, line);
    return index < 0 ? null : { col, line, index };
  }

  /** Draws the loupe around the hovered cell: its neighbours at 18 px each, the cell itself outlined. */
  function drawLoupe(pg, values) {
    const cell = hover && cellAt(hover.x, hover.y);
    if (!cell) {
      ui.loupe.hidden = true;
      return;
    }
    const counting = pg.kind() === 'counting';
    const width = loupeCols * loupeCell, height = loupeLines * loupeCell;
    const context = sizeCanvas(ui.loupeCanvas, width, height);
    context.font = `${Math.floor(loupeCell * 0.62)}px ui-monospace, monospace`;
    context.textAlign = 'center';
    context.textBaseline = 'middle';
    const half = { c: Math.floor(loupeCols / 2), l: Math.floor(loupeLines / 2) };
    for (let dl = -half.l; dl <= half.l; dl++) {
      for (let dc = -half.c; dc <= half.c; dc++) {
        const index = layout.indexAt(cell.col + dc, cell.line + dl);
        const x = (dc + half.c) * loupeCell, y = (dl + half.l) * loupeCell;
        if (index < 0) continue;
        context.fillStyle = cellColour(values[index], counting);
        context.fillRect(x + 1, y + 1, loupeCell - 2, loupeCell - 2);
        if (counting && values[index] > 0) {
          context.fillStyle = counterLightness(values[index]) < 50 ? '#ffffff' : '#10183a';
          context.fillText(values[index].toString(16).toUpperCase(), x + loupeCell / 2, y + loupeCell / 2 + 0.5);
        }
      }
    }
    context.strokeStyle = palette.insert;
    context.lineWidth = 2;
    context.strokeRect(half.c * loupeCell, half.l * loupeCell, loupeCell, loupeCell);
    const value = values[cell.index];
    const where = pg.kind() === 'split-block'
      ? `block ${grouped(Math.floor(cell.index / 256))}, word ${Math.floor((cell.index % 256) / 32)}, bit ${cell.index % 32}`
      : `word ${grouped(Math.floor(cell.index / 64))}, bit ${cell.index % 64}`;
    ui.loupeLabel.textContent = counting
      ? `counter ${grouped(cell.index)} = ${value}`
      : `bit ${grouped(cell.index)} = ${value} (${where})`;
    ui.loupe.dataset.index = String(cell.index);
    ui.loupe.dataset.value = String(value);
    // Beside the pointer, inside the panel.
    const wrap = ui.bitsWrap.clientWidth;
    const left = Math.min(Math.max(0, hover.x + 16), Math.max(0, wrap - width - 8));
    const top = hover.y + 16 + height + 30 > ui.bits.clientHeight ? Math.max(0, hover.y - height - 46) : hover.y + 16;
    ui.loupe.style.left = `${left + ui.bits.offsetLeft}px`;
    ui.loupe.style.top = `${top}px`;
    ui.loupe.hidden = false;
  }

  return {
    draw,
    get layout() { return layout; },
    get hover() { return hover; },
    set hover(point) { hover = point; },
  };
}

/** Fills the list element `list` with the counting kind's 16 counter colours. */
export function buildCounterScale(list, palette) {
  list.replaceChildren();
  for (let c = 0; c <= 15; c++) {
    const item = document.createElement('li');
    item.style.background = counterColour(c, palette);
    item.style.color = c > 0 && counterLightness(c) < 50 ? '#ffffff' : '#10183a';
    item.textContent = String(c);
    item.title = c === 15 ? '15: stuck, never decremented' : `counter value ${c}`;
    list.append(item);
  }
}
