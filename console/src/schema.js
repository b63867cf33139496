// The schema browser: databases, their tables, each table's columns with
// types. Clicking a name inserts it into the editor. The same walk gives
// the editor its completions.
import { rowsOf } from './api.js';
import { formatBytes as size } from './format.js';

// Quotes a name when SQL needs it to.
export function sqlName(name) {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

// A table's settings and storage ("system"."tables") as short lines.
function describeTable(row) {
  const [, , memoryHours, magneticDays, magneticWrites, partitionKey, , memoryBytes, memoryRows,
    magneticBytes, magneticBlocks, lateBytes, lateRows] = row;
  return [
    `retention: ${memoryHours} h in memory, ${magneticDays} d magnetic`,
    `magnetic writes ${magneticWrites ? 'on' : 'off'} · partition key ${partitionKey}`,
    `memory store ${size(memoryBytes)} (${memoryRows} rows) · magnetic ${size(magneticBytes)} ` +
      `(${magneticBlocks} blocks) · late writes ${size(lateBytes)} (${lateRows} rows)`,
  ];
}

// {databases: [{name, tables: [{name, info: [line], columns: [{name, type, role}]}]}]}
export async function loadSchema() {
  const details = new Map();
  for (const row of await rowsOf('SELECT * FROM "system"."tables"')) {
    details.set(`${row[0]}.${row[1]}`, describeTable(row));
  }
  const databases = [];
  for (const [database] of await rowsOf('SHOW DATABASES')) {
    const tables = [];
    for (const [table] of await rowsOf(`SHOW TABLES FROM ${sqlName(database)}`)) {
      const columns = (await rowsOf(`DESCRIBE ${sqlName(database)}.${sqlName(table)}`))
        .map(([name, type, role]) => ({ name, type, role }));
      tables.push({ name: table, columns, info: details.get(`${database}.${table}`) || [] });
    }
    databases.push({ name: database, tables });
  }
  return { databases };
}

// What @codemirror/lang-sql completes: "db.table" -> its columns.
export function completionSchema(schema) {
  const tables = {};
  for (const db of schema.databases) {
    for (const t of db.tables) {
      tables[`${db.name}.${t.name}`] = t.columns.map((c) => ({
        label: c.name, type: 'property', detail: c.type, info: c.role,
      }));
    }
  }
  return { tables };
}

export async function loadFunctions() {
  return (await rowsOf('SHOW FUNCTIONS')).map(([name, kind, signature, description]) => ({
    name, kind, signature, description,
  }));
}

export function renderSchema(parent, schema, { onInsert }) {
  const list = document.createElement('ul');
  list.className = 'schema-tree';
  if (schema.databases.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'muted';
    empty.textContent = 'No database you may see.';
    list.append(empty);
  }
  for (const db of schema.databases) {
    const tables = document.createElement('ul');
    for (const table of db.tables) {
      const columns = document.createElement('ul');
      for (const c of table.columns) {
        const item = node(c.name, `${c.type} · ${c.role.toLowerCase()}`, () => onInsert(sqlName(c.name)));
        item.classList.add('schema-column');
        columns.append(item);
      }
      const qualified = `${sqlName(db.name)}.${sqlName(table.name)}`;
      const info = table.info.map((line) => {
        const item = document.createElement('li');
        item.className = 'schema-info';
        item.textContent = line;
        return item;
      });
      columns.prepend(...info);
      tables.append(branch(table.name, `${table.columns.length} columns`, columns, () => onInsert(qualified)));
    }
    list.append(branch(db.name, `${db.tables.length} ${db.tables.length === 1 ? 'table' : 'tables'}`, tables, () => onInsert(sqlName(db.name))));
  }
  parent.replaceChildren(list);
}

function node(name, detail, onClick) {
  const item = document.createElement('li');
  const label = document.createElement('button');
  label.type = 'button';
  label.className = 'schema-name';
  label.textContent = name;
  label.title = 'Insert into the editor';
  label.addEventListener('click', onClick);
  const small = document.createElement('span');
  small.className = 'schema-detail';
  small.textContent = detail;
  item.append(label, small);
  return item;
}

function branch(name, detail, children, onClick) {
  const item = document.createElement('li');
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  const entry = node(name, detail, onClick);
  summary.append(...entry.childNodes);
  details.append(summary, children);
  item.append(details);
  return item;
}
