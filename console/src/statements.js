// Finding the statement to run in the editor's text: the selection, or the
// statement under the cursor (statements end at a `;` outside quotes and
// comments).

// [from, to) of each statement of `text`, blanks trimmed.
export function statementRanges(text) {
  const ranges = [];
  let start = 0;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === ';') {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  ranges.push([start, text.length]);
  return ranges
    .map(([from, to]) => trim(text, from, to))
    .filter(([from, to]) => to > from);
}

function trim(text, from, to) {
  while (from < to && /\s/.test(text[from])) from++;
  while (to > from && /\s/.test(text[to - 1])) to--;
  return [from, to];
}

// The statement to run: the selection when there is one, else the one
// holding (or, after its `;`, just before) the cursor. {from, to, text} or null.
export function statementAt(text, selectionFrom, selectionTo) {
  if (selectionTo > selectionFrom) {
    const [from, to] = trim(text, selectionFrom, selectionTo);
    return to > from ? { from, to, text: text.slice(from, to) } : null;
  }
  const ranges = statementRanges(text);
  let best = null;
  for (const [from, to] of ranges) {
    if (from <= selectionFrom || best === null) best = [from, to];
    if (from > selectionFrom) break;
  }
  return best ? { from: best[0], to: best[1], text: text.slice(best[0], best[1]) } : null;
}

// "CREATE TABLE" for a statement that changes the catalog (CREATE, ALTER or DROP of a
// DATABASE, SCHEMA or TABLE), else null.
export function catalogChange(text) {
  const words = text.replace(/--[^\n]*/g, ' ').trim().split(/\s+/, 2).map((w) => w.toUpperCase());
  if (!['CREATE', 'ALTER', 'DROP'].includes(words[0])) return null;
  if (!['DATABASE', 'SCHEMA', 'TABLE'].includes(words[1])) return null;
  return words.join(' ');
}
