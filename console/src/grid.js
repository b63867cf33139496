// The result grid: column names with their types, rows drawn only where
// the viewport is (a 100,000-row result stays smooth), a click on a cell
// copies it, on a row number the row (tab-separated).
const ROW_HEIGHT = 24;
const OVERSCAN = 10;

export function cellText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export class ResultGrid {
  constructor(parent, { onCopy }) {
    this.onCopy = onCopy;
    this.root = document.createElement('div');
    this.root.className = 'grid';
    this.header = document.createElement('div');
    this.header.className = 'grid-header';
    this.viewport = document.createElement('div');
    this.viewport.className = 'grid-viewport';
    this.spacer = document.createElement('div');
    this.spacer.className = 'grid-spacer';
    this.body = document.createElement('div');
    this.body.className = 'grid-body';
    this.spacer.append(this.body);
    this.viewport.append(this.spacer);
    this.root.append(this.header, this.viewport);
    parent.append(this.root);
    this.viewport.addEventListener('scroll', () => this.draw());
    this.root.addEventListener('click', (event) => this.copy(event));
    this.columns = [];
    this.rows = [];
  }

  show(columns, rows) {
    this.columns = columns;
    this.rows = rows;
    const template = `4em repeat(${columns.length}, minmax(8em, 1fr))`;
    this.root.style.setProperty('--grid-columns', template);
    this.header.replaceChildren(
      cell('div', '#', 'grid-rownum'),
      ...columns.map((c) => {
        const th = cell('div', '', 'grid-th');
        th.append(cell('span', c.name, 'grid-name'), cell('span', c.type, 'grid-type'));
        return th;
      }),
    );
    this.spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    this.viewport.scrollTop = 0;
    this.drawn = null;
    this.draw();
  }

  draw() {
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const visible = Math.ceil((this.viewport.clientHeight || 600) / ROW_HEIGHT) + 2 * OVERSCAN;
    const last = Math.min(this.rows.length, first + visible);
    if (this.drawn && this.drawn[0] === first && this.drawn[1] === last) return;
    this.drawn = [first, last];
    const fragment = document.createDocumentFragment();
    for (let r = first; r < last; r++) {
      const row = document.createElement('div');
      row.className = 'grid-row';
      row.dataset.row = r;
      row.append(cell('div', String(r + 1), 'grid-rownum'));
      this.rows[r].forEach((value, c) => {
        const td = cell('div', cellText(value), value === null ? 'grid-td grid-null' : 'grid-td');
        td.dataset.column = c;
        row.append(td);
      });
      fragment.append(row);
    }
    this.body.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    this.body.replaceChildren(fragment);
  }

  copy(event) {
    const target = event.target.closest('.grid-td, .grid-row > .grid-rownum');
    if (!target) return;
    const row = this.rows[Number(target.parentElement.dataset.row)];
    if (!row) return;
    const text = target.classList.contains('grid-td')
      ? cellText(row[Number(target.dataset.column)])
      : row.map(cellText).join('\t');
    navigator.clipboard?.writeText(text).catch(() => {});
    this.onCopy?.(text);
  }
}

function cell(tag, text, className) {
  const element = document.createElement(tag);
  element.className = className;
  element.textContent = text;
  return element;
}

// RFC 4180 CSV of a result: a header of the column names, CRLF line ends.
export function toCsv(columns, rows) {
  const field = (value) => {
    const text = cellText(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [columns.map((c) => field(c.name)).join(',')];
  for (const row of rows) lines.push(row.map(field).join(','));
  return lines.join('\r\n') + '\r\n';
}
