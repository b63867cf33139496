// The SQL editor: CodeMirror 6 with SQL highlighting, completion of the
// databases, tables, columns (with their types) and functions the server
// lists, Ctrl-Enter to run, and the server's error marked where it points.
import { autocompletion, closeBrackets, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { PostgreSQL, sql } from '@codemirror/lang-sql';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';

const language = new Compartment();

// `schema`: {"db.table": [{label, detail}]} and the databases; `functions`:
// [{name, signature, description}].
function sqlSupport(schema, functions) {
  const support = sql({ dialect: PostgreSQL, schema: schema.tables, upperCaseKeywords: true });
  const functionSource = (context) => {
    const word = context.matchBefore(/\w+/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    return {
      from: word.from,
      options: functions.map((f) => ({
        label: f.name,
        type: 'function',
        detail: f.signature,
        info: f.description,
        apply: `${f.name}(`,
      })),
      validFor: /^\w*$/,
    };
  };
  return [support, support.language.data.of({ autocomplete: functionSource })];
}

export class SqlEditor {
  // `onRun(view)` runs the statement under the cursor or the selection.
  constructor(parent, { onRun, onChange }) {
    this.onRun = onRun;
    this.onChange = onChange;
    this.extensions = [
      lineNumbers(),
      history(),
      drawSelection(),
      highlightActiveLine(),
      bracketMatching(),
      closeBrackets(),
      lintGutter(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      autocompletion({ activateOnTyping: true }),
      language.of(sqlSupport({ tables: {} }, [])),
      keymap.of([
        { key: 'Mod-Enter', run: () => (this.onRun(), true), preventDefault: true },
        ...completionKeymap,
        ...defaultKeymap,
        ...historyKeymap,
      ]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) {
          this.view.dispatch(setDiagnostics(update.state, []));
          this.onChange?.(update.state.doc.toString());
        }
      }),
    ];
    this.view = new EditorView({ parent, state: this.stateFor('') });
  }

  stateFor(text) {
    return EditorState.create({ doc: text, extensions: this.extensions });
  }

  // A tab's text becomes the editor's (its undo history starts again).
  load(text) {
    this.view.setState(this.stateFor(text));
    this.view.dispatch({ effects: language.reconfigure(sqlSupport(this.schema || { tables: {} }, this.functions || [])) });
  }

  text() {
    return this.view.state.doc.toString();
  }

  selection() {
    const { from, to } = this.view.state.selection.main;
    return { from, to };
  }

  setSchema(schema, functions) {
    this.schema = schema;
    this.functions = functions;
    this.view.dispatch({ effects: language.reconfigure(sqlSupport(schema, functions)) });
  }

  // Marks the error at `offset` (characters into the document).
  markError(offset, message) {
    const length = this.view.state.doc.length;
    const from = Math.min(Math.max(0, offset), length);
    const to = Math.min(from + 1, length);
    this.view.dispatch(
      setDiagnostics(this.view.state, [{ from, to: Math.max(to, from), severity: 'error', message }]),
    );
    this.view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
  }

  insert(text) {
    const { from, to } = this.view.state.selection.main;
    this.view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
    this.view.focus();
  }

  focus() {
    this.view.focus();
  }
}
