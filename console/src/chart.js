// Charts of a result (uPlot): with a time column, a line per numeric column
// and, when a dimension column is chosen, per value of it (one line per
// host); without one, bars of the first numeric column by the first text
// column. Drag to zoom, double-click to zoom out, click a legend entry to
// hide its line.
import uPlot from 'uplot';

const PALETTE = ['#2f6fde', '#e8590c', '#2b8a3e', '#c2255c', '#7048e8', '#1098ad', '#f08c00',
  '#5c940d', '#a61e4d', '#364fc7'];
const NUMERIC = new Set(['bigint', 'double']);

// Seconds since the epoch of the SQL text of a timestamp
// ("2024-03-01 12:00:00.000000000"), or null.
export function epochSeconds(text) {
  if (typeof text !== 'string') return null;
  const millis = Date.parse(`${text.slice(0, 23).replace(' ', 'T')}Z`);
  return Number.isNaN(millis) ? null : millis / 1000;
}

// What can be drawn of a result: its time column, numeric and text columns.
export function chartable(columns) {
  const time = columns.findIndex((c) => c.type === 'timestamp');
  const numeric = columns.flatMap((c, i) => (NUMERIC.has(c.type) ? [i] : []));
  const text = columns.flatMap((c, i) => (c.type === 'varchar' ? [i] : []));
  return { time, numeric, text, drawable: numeric.length > 0 };
}

// uPlot's aligned data and series of a time-series result split by the
// column `split` (-1: none).
export function timeSeries(columns, rows, time, numeric, split) {
  const times = [...new Set(rows.map((r) => epochSeconds(r[time])).filter((t) => t !== null))];
  times.sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const lines = new Map();  // label -> values
  for (const row of rows) {
    const t = epochSeconds(row[time]);
    if (t === null) continue;
    for (const c of numeric) {
      const key = split >= 0 ? `${row[split]}${numeric.length > 1 ? ` ${columns[c].name}` : ''}`
                             : columns[c].name;
      if (!lines.has(key)) lines.set(key, new Array(times.length).fill(null));
      const value = row[c];
      lines.get(key)[index.get(t)] = typeof value === 'number' ? value : null;
    }
  }
  return { data: [times, ...lines.values()], labels: [...lines.keys()] };
}

export class ResultChart {
  constructor(parent) {
    this.root = document.createElement('div');
    this.root.className = 'chart';
    this.controls = document.createElement('div');
    this.controls.className = 'chart-controls';
    this.canvas = document.createElement('div');
    this.canvas.className = 'chart-canvas';
    this.root.append(this.controls, this.canvas);
    parent.append(this.root);
    this.plot = null;
  }

  show(columns, rows) {
    this.columns = columns;
    this.rows = rows;
    const shape = chartable(columns);
    this.shape = shape;
    this.controls.replaceChildren();
    if (!shape.drawable || rows.length === 0) {
      this.destroy();
      this.canvas.textContent = 'Nothing to chart: the result has no numeric column.';
      return;
    }
    if (shape.time >= 0 && shape.text.length > 0) {
      const label = document.createElement('label');
      label.textContent = 'Split by ';
      const select = document.createElement('select');
      select.className = 'chart-split';
      select.append(new Option('(none)', '-1'));
      for (const c of shape.text) select.append(new Option(columns[c].name, String(c)));
      select.value = String(shape.text[0]);
      select.addEventListener('change', () => this.draw(Number(select.value)));
      label.append(select);
      this.controls.append(label);
      this.draw(shape.text[0]);
    } else {
      this.draw(-1);
    }
  }

  draw(split) {
    this.destroy();
    this.canvas.textContent = '';
    const { columns, rows, shape } = this;
    const width = Math.max(300, this.canvas.clientWidth || 800);
    const height = 320;
    if (shape.time >= 0) {
      const { data, labels } = timeSeries(columns, rows, shape.time, shape.numeric, split);
      const series = [{}, ...labels.map((label, i) => ({
        label, stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: true,
      }))];
      this.plot = new uPlot({ width, height, series, scales: { x: { time: true } } }, data, this.canvas);
      return;
    }
    // Bars: the first numeric column by row, labelled by the first text column.
    const value = shape.numeric[0];
    const label = shape.text.length > 0 ? shape.text[0] : -1;
    const xs = rows.map((_, i) => i);
    const ys = rows.map((r) => (typeof r[value] === 'number' ? r[value] : null));
    const names = rows.map((r, i) => (label >= 0 ? String(r[label]) : String(i + 1)));
    this.plot = new uPlot({
      width, height,
      scales: { x: { time: false, range: [-0.5, rows.length - 0.5] } },
      axes: [{ values: (_, ticks) => ticks.map((t) => names[t] ?? '') }, {}],
      series: [{}, {
        label: columns[value].name, fill: `${PALETTE[0]}aa`, stroke: PALETTE[0],
        paths: uPlot.paths.bars({ size: [0.7, 60] }), points: { show: false },
      }],
    }, [xs, ys], this.canvas);
  }

  destroy() {
    this.plot?.destroy();
    this.plot = null;
  }
}
