// A Stryker ignorer: the code that only saves work, which a mutant can change only by doing more or
// less of it (a round more of the runner's loop, storage reserved or not). Each entry is a function
// or a variable of src/, by name; MUTATION.md lists them with the same reasons.

/** What Stryker skips, by the name of the function or variable in src/, and why. */
export const shortcuts = {
  cannotStartNow: 'a shortcut: when it says no, `pump` runs a round more that starts nothing',
  reserveChunk: "reserves a queue chunk's storage; items are written in order from 0 either way",
  reserveValues: "reserves a result's storage; `closeLast` sets the length the result reports either way",
  resultDue: 'its first value is never read: every round of `pump` clears it before `launch` reads it',
  pumpAgain: 'its first value is never read: every round of `pump` clears it before reading it',
};

/** The name a node declares, when it is a function or a variable. */
function declaredName(node) {
  switch (node.type) {
    case 'FunctionDeclaration':
      return node.id?.name;
    case 'VariableDeclarator':
      return node.id.type === 'Identifier' ? node.id.name : undefined;
    case 'ClassMethod':
    case 'ClassProperty':
    case 'ObjectMethod':
      return node.key.type === 'Identifier' ? node.key.name : undefined;
    default:
      return undefined;
  }
}

// The shape `declareValuePlugin(PluginKind.Ignore, ...)` of @stryker-mutator/api makes, written out so
// that this file needs no import of a package the project does not depend on directly.
export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'shortcuts',
    value: {
      shouldIgnore(path) {
        const name = declaredName(path.node);
        return name !== undefined && Object.hasOwn(shortcuts, name) ? shortcuts[name] : undefined;
      },
    },
  },
];
