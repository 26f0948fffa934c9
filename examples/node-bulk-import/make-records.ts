/**
 * Writes the CSV the bulk import reads to stdout: `npx tsx make-records.ts [COUNT] > records.csv`.
 * COUNT made-up people (2,000 by default), ids 1 to COUNT, the same every time; about one in 170 has
 * bad data (no name, or an email that is not an address), which the API refuses with a 422.
 */
export {}; // a module: its names are its own

const count = Number(process.argv[2] ?? 2000);
const first = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Katherine', 'Linus', 'Margaret', 'Radia', 'Hedy'];
const last = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Johnson', 'Hamilton', 'Wirth', 'Perlman', 'Lamarr'];

/** A small seeded generator (mulberry32): the same file every time. */
let state = 7;
function random(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
}
const pick = (names: string[]) => names[Math.floor(random() * names.length)];

const lines = ['id,name,email'];
for (let id = 1; id <= count; id++) {
  const [given, family] = [pick(first), pick(last)];
  const email = `${given}.${family}.${id}@example.com`.toLowerCase();
  const bad = random() < 1 / 170 ? Math.floor(random() * 3) : -1;
  // Bad data: an email without its @, no email, no name.
  lines.push([id, bad === 2 ? '' : `${given} ${family}`, bad === 0 ? email.replace('@', '.') : bad === 1 ? '' : email].join(','));
}
process.stdout.write(`${lines.join('\n')}\n`);
