// EXPLAIN's lines (each node two spaces deeper than its parent) as a tree.
export function explainTree(lines) {
  const root = { text: '', children: [] };
  const stack = [{ depth: -1, node: root }];
  for (const line of lines) {
    const depth = line.length - line.trimStart().length;
    const node = { text: line.trim(), children: [] };
    while (stack.length > 1 && stack[stack.length - 1].depth >= depth) stack.pop();
    stack[stack.length - 1].node.children.push(node);
    stack.push({ depth, node });
  }
  return root.children;
}

export function renderExplain(parent, lines) {
  const render = (nodes) => {
    const list = document.createElement('ul');
    list.className = 'explain-tree';
    for (const n of nodes) {
      const item = document.createElement('li');
      const [operator, ...rest] = n.text.split(' ');
      const name = document.createElement('strong');
      name.textContent = operator;
      item.append(name, ` ${rest.join(' ')}`);
      if (n.children.length > 0) item.append(render(n.children));
      list.append(item);
    }
    return list;
  };
  parent.replaceChildren(render(explainTree(lines)));
}
