// Tabs of SQL text and the history of statements run, kept in the browser
// (localStorage) across reloads.
const TABS_KEY = 'strata.tabs';
const HISTORY_KEY = 'strata.history';
const HISTORY_SIZE = 100;
const FIRST_TEXT = '-- Ctrl-Enter runs the statement under the cursor (or the selection).\nSHOW DATABASES;\n';

function load(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

export class Tabs {
  constructor(parent, { onSelect }) {
    this.parent = parent;
    this.onSelect = onSelect;
    const saved = load(TABS_KEY, null);
    this.tabs = saved?.tabs?.length ? saved.tabs : [FIRST_TEXT];
    this.active = Math.min(saved?.active ?? 0, this.tabs.length - 1);
    this.render();
  }

  current() {
    return this.tabs[this.active];
  }

  save(text) {
    this.tabs[this.active] = text;
    this.persist();
  }

  persist() {
    localStorage.setItem(TABS_KEY, JSON.stringify({ tabs: this.tabs, active: this.active }));
  }

  select(index) {
    this.active = index;
    this.persist();
    this.render();
    this.onSelect(this.current());
  }

  add() {
    this.tabs.push('');
    this.select(this.tabs.length - 1);
  }

  close(index) {
    if (this.tabs.length === 1) return;
    this.tabs.splice(index, 1);
    this.select(Math.min(this.active >= index ? Math.max(0, this.active - 1) : this.active,
                         this.tabs.length - 1));
  }

  render() {
    const buttons = this.tabs.map((_, i) => {
      const tab = document.createElement('span');
      tab.className = i === this.active ? 'tab active' : 'tab';
      const name = document.createElement('button');
      name.type = 'button';
      name.textContent = `Query ${i + 1}`;
      name.addEventListener('click', () => this.select(i));
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'tab-close';
      close.textContent = '×';
      close.title = 'Close the tab';
      close.addEventListener('click', () => this.close(i));
      tab.append(name, close);
      return tab;
    });
    const add = document.createElement('button');
    add.type = 'button';
    add.className = 'tab-add';
    add.textContent = '+';
    add.title = 'A new tab';
    add.addEventListener('click', () => this.add());
    this.parent.replaceChildren(...buttons, add);
  }

  history() {
    return load(HISTORY_KEY, []);
  }

  remember(statement) {
    const history = this.history().filter((s) => s !== statement);
    history.unshift(statement);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(history.slice(0, HISTORY_SIZE)));
  }
}
