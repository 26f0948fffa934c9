// Draws a run as a timeline: one bar per invoked task, from its start to its end, rows grouped by
// batch (or, in window pacing, by the result that reports the task). A pure function from data to text, with no dependencies, so the picture can be
// committed, diffed and viewed anywhere an <img> works (GitHub renders it in the README).
// With --retry, every try of a task shares its row: a throttled try in orange, the retry in blue,
// and the pauses after throttles are shaded bands across the plot, with the drops of the pace marked.
import type { PauseRecord, RunRecord, TaskRecord } from './run-record.js';

const WIDTH = 880;
const MARGIN_LEFT = 130; // room for the batch labels
const MARGIN_RIGHT = 30;
const PLOT_TOP = 96; // below the title, subtitle and legend
const AXIS_HEIGHT = 48; // tick labels and the axis title
const FOOTER_HEIGHT = 8;
const GROUP_GAP = 8;
const MAX_ROW = 14;
// Beyond about 40 rows the picture would grow past a screen, so rows shrink (down to a pixel).
const PLOT_HEIGHT_BUDGET = 560;
const LABEL_MIN_SPACING = 13;

const COLOURS = {
  succeeded: '#2f9e44',
  failed: '#e03131',
  throttled: '#f08c00',
  retried: '#1c7ed6',
  pause: '#fd7e14',
  drop: '#a14a00',
  failMark: '#8b1a1a',
  band: '#f1f3f5',
  grid: '#dee2e6',
  axis: '#495057',
  text: '#212529',
  muted: '#6c757d',
  background: '#ffffff',
};

const FONT = 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif';

export function renderTimelineSvg(record: RunRecord): string {
  const panel = renderPanel(record, defaultTitle(record), timeExtent(record.tasks));
  return document(panel.height, `${defaultTitle(record)}. ${record.subtitle}`, panel.parts);
}

/** One run of a comparison: its label (such as "Batch pacing") and what happened. */
export interface LabelledRun {
  label: string;
  record: RunRecord;
}

/**
 * Draws several runs one above the other on the same time axis, each titled with its label and its
 * makespan (the end of its last call), so that runs over the same latencies compare at a glance.
 */
export function renderComparisonSvg(runs: readonly LabelledRun[]): string {
  const extent = Math.max(0, ...runs.map(({ record }) => timeExtent(record.tasks)));
  const parts: string[] = [];
  let top = 0;
  for (const { label, record } of runs) {
    const panel = renderPanel(record, comparisonTitle(label, record), extent);
    parts.push(
      `<g class="run" data-pacing="${escapeXml(record.pacing ?? 'batch')}" transform="translate(0 ${fmt(top)})">`,
      ...panel.parts,
      '</g>',
    );
    top += panel.height;
  }
  const summary = runs.map(({ label, record }) => comparisonTitle(label, record)).join('; ');
  return document(top, summary, parts);
}

/** The end of the last call, in ms since the run started: how long the run took. */
export function makespanMs(record: RunRecord): number {
  return timeExtent(record.tasks);
}

function timeExtent(tasks: readonly TaskRecord[]): number {
  return Math.max(0, ...tasks.map((task) => task.endMs));
}

function defaultTitle(record: RunRecord): string {
  if (record.pauses !== undefined) return retryTitle(record, record.pauses);
  const failed = record.tasks.filter((task) => task.outcome === 'failed').length;
  return `Slow start: ${record.tasks.length} of ${record.totalTasks} tasks called, ${failed} failed, ${record.skipped} skipped`;
}

function retryTitle(record: RunRecord, pauses: readonly PauseRecord[]): string {
  const count = (outcome: TaskRecord['outcome']) => record.tasks.filter((task) => task.outcome === outcome).length;
  const done = new Set(record.tasks.filter((task) => task.outcome === 'succeeded').map((task) => task.index)).size;
  const failed = count('failed');
  return (
    `Slow start with retry: ${done} of ${record.totalTasks} tasks done in ${(makespanMs(record) / 1000).toFixed(1)} s, ` +
    `${count('throttled')} throttled, ${pauses.length} ${pauses.length === 1 ? 'pause' : 'pauses'}` +
    (failed === 0 ? '' : `, ${failed} failed`)
  );
}

function comparisonTitle(label: string, record: RunRecord): string {
  const failed = record.tasks.filter((task) => task.outcome === 'failed').length;
  const failures = failed === 0 ? '' : `, ${failed} failed`;
  return `${label}: ${record.tasks.length} tasks in ${Math.round(makespanMs(record))} ms${failures}`;
}

function document(height: number, title: string, body: string[]): string {
  return (
    [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${fmt(height)}" ` +
        `viewBox="0 0 ${WIDTH} ${fmt(height)}" font-family="${FONT}" role="img" aria-labelledby="title">`,
      `<title id="title">${escapeXml(title)}</title>`,
      // An opaque background keeps the dark text readable on a dark-themed page.
      `<rect width="100%" height="100%" fill="${COLOURS.background}"/>`,
      ...body,
      '</svg>',
    ].join('\n') + '\n'
  );
}

/** The picture of one run, from y = 0, on a time axis reaching at least `extentMs`. */
function renderPanel(record: RunRecord, title: string, extentMs: number): { parts: string[]; height: number } {
  const tasks = [...record.tasks].sort((a, b) => a.index - b.index || (a.attempt ?? 1) - (b.attempt ?? 1));
  const groups = groupByBatch(tasks);
  const word = record.pacing === 'window' ? 'result' : 'batch';
  // One row per task: its retries share the row of its first try.
  const rowCount = groups.reduce((sum, group) => sum + group.rows.length, 0);

  const rowHeight = Math.max(1, Math.min(MAX_ROW, PLOT_HEIGHT_BUDGET / Math.max(1, rowCount)));
  const barHeight = Math.max(1, rowHeight * 0.7);
  // Half a gap above the first batch and below the last, so that every band stays inside the plot.
  const plotHeight = (rowCount * rowHeight || MAX_ROW) + groups.length * GROUP_GAP;
  const height = PLOT_TOP + plotHeight + AXIS_HEIGHT + FOOTER_HEIGHT;

  const plotRight = WIDTH - MARGIN_RIGHT;
  const plotBottom = PLOT_TOP + plotHeight;
  const ticks = niceTicks(extentMs);
  const domainEnd = ticks[ticks.length - 1];
  const x = (ms: number) => MARGIN_LEFT + (ms / domainEnd) * (plotRight - MARGIN_LEFT);

  const succeeded = tasks.filter((task) => task.outcome === 'succeeded').length;
  const failed = tasks.filter((task) => task.outcome === 'failed').length;

  const out: string[] = [];
  out.push(
    `<text x="16" y="28" font-size="17" font-weight="600" fill="${COLOURS.text}">${escapeXml(title)}</text>`,
    `<text x="16" y="48" font-size="12" fill="${COLOURS.muted}">${escapeXml(record.subtitle)}</text>`,
  );
  out.push(...(record.pauses === undefined ? legend(succeeded, failed, record.skipped) : retryLegend(tasks, record.pauses)));

  // Vertical grid lines first, so that bars are drawn over them.
  for (const tick of ticks) {
    out.push(line(x(tick), PLOT_TOP, x(tick), plotBottom, COLOURS.grid));
  }

  let y = PLOT_TOP + GROUP_GAP / 2;
  let lastLabelY = -Infinity;
  for (const [position, group] of groups.entries()) {
    const groupHeight = group.rows.length * rowHeight;
    out.push(`<g class="batch" data-batch="${group.batch}">`);
    if (position % 2 === 0) {
      // Alternate bands make neighbouring batches easy to tell apart when rows are thin.
      out.push(rect(MARGIN_LEFT, y - GROUP_GAP / 2, plotRight - MARGIN_LEFT, groupHeight + GROUP_GAP, COLOURS.band));
    }
    const labelY = y + groupHeight / 2;
    if (labelY - lastLabelY >= LABEL_MIN_SPACING) {
      out.push(...batchLabel(group, labelY, groupHeight, word));
      lastLabelY = labelY;
    }
    for (const [row, tries] of group.rows.entries()) {
      const top = y + row * rowHeight + (rowHeight - barHeight) / 2;
      for (const task of tries) out.push(...bar(task, x, top, barHeight, word));
    }
    out.push('</g>');
    y += groupHeight + GROUP_GAP;
  }
  // Over the bars, half transparent: no call starts during a pause, but calls in flight run on.
  for (const pause of record.pauses ?? []) out.push(...pauseBand(pause, x, plotBottom));
  if (tasks.length === 0) {
    out.push(text(MARGIN_LEFT + 8, PLOT_TOP + 11, 'No task was called.', 12, COLOURS.muted));
  }

  out.push(...axis(ticks, x, plotBottom, plotRight));
  return { parts: out, height };
}

interface BatchGroup {
  batch: number;
  /** One row per task, in the order of `index`: its tries, in the order of `attempt`. */
  rows: TaskRecord[][];
}

/** `tasks` sorted by index, then attempt. */
function groupByBatch(tasks: TaskRecord[]): BatchGroup[] {
  const groups = new Map<number, Map<number, TaskRecord[]>>();
  for (const task of tasks) {
    const rows = groups.get(task.batch) ?? new Map<number, TaskRecord[]>();
    rows.set(task.index, [...(rows.get(task.index) ?? []), task]);
    groups.set(task.batch, rows);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([batch, rows]) => ({ batch, rows: [...rows.values()] }));
}

/** A try's class and colour: a successful retry is told apart from a first try. */
function look(task: TaskRecord): { kind: string; fill: string } {
  if (task.outcome === 'succeeded' && (task.attempt ?? 1) > 1) return { kind: 'succeeded retried', fill: COLOURS.retried };
  return { kind: task.outcome, fill: COLOURS[task.outcome] };
}

function pauseBand(pause: PauseRecord, x: (ms: number) => number, plotBottom: number): string[] {
  const left = x(pause.startMs);
  const width = Math.max(1, x(pause.endMs) - left);
  const tooltip =
    `pause ${Math.round(pause.startMs)}-${Math.round(pause.endMs)} ms: ${pause.throttles} throttled, Retry-After ${pause.retryAfterMs / 1000} s` +
    (pause.drop === undefined ? '' : `; pace dropped, ${pause.drop.inFlight} in flight, threshold ${pause.drop.threshold}`);
  const parts = [
    `<rect class="pause" x="${fmt(left)}" y="${fmt(PLOT_TOP)}" width="${fmt(width)}" height="${fmt(plotBottom - PLOT_TOP)}" ` +
      `fill="${COLOURS.pause}" fill-opacity="0.16"><title>${escapeXml(tooltip)}</title></rect>`,
  ];
  if (width >= 40) {
    parts.push(
      text(
        left + width / 2,
        PLOT_TOP - 5,
        `pause ${(pause.endMs - pause.startMs) / 1000 >= 10 ? Math.round((pause.endMs - pause.startMs) / 1000) : ((pause.endMs - pause.startMs) / 1000).toFixed(1)} s`,
        10,
        COLOURS.drop,
        'middle',
      ),
    );
  }
  if (pause.drop !== undefined) {
    const dropX = x(pause.drop.atMs);
    parts.push(
      `<line class="drop" x1="${fmt(dropX)}" y1="${fmt(PLOT_TOP)}" x2="${fmt(dropX)}" y2="${fmt(plotBottom)}" ` +
        `stroke="${COLOURS.drop}" stroke-width="1.2" stroke-dasharray="4 3"/>`,
    );
  }
  return parts;
}

function bar(task: TaskRecord, x: (ms: number) => number, top: number, height: number, word: string): string[] {
  const left = x(task.startMs);
  // A task that settles within the same millisecond still gets a visible sliver.
  const width = Math.max(1.5, x(task.endMs) - left);
  const attempt = task.attempt ?? 1;
  const outcome = task.outcome === 'throttled' ? 'throttled (429)' : task.outcome;
  const tooltip =
    `task ${task.index}${attempt > 1 ? ` (try ${attempt})` : ''}, ${word} ${task.batch}: ${outcome}, ` +
    `${Math.round(task.startMs)}-${Math.round(task.endMs)} ms`;
  const { kind, fill } = look(task);
  const attemptAttr = task.attempt === undefined ? '' : ` data-attempt="${task.attempt}"`;
  const parts = [
    `<rect class="bar ${kind}" data-index="${task.index}"${attemptAttr} x="${fmt(left)}" y="${fmt(top)}" ` +
      `width="${fmt(width)}" height="${fmt(height)}" fill="${fill}">` +
      `<title>${escapeXml(tooltip)}</title></rect>`,
  ];
  if (task.outcome === 'failed') {
    // A cross just past the bar's end, so failures stay visible without relying on colour.
    const size = Math.max(2, Math.min(height, 8)) / 2;
    const cx = left + width + size + 2;
    const cy = top + height / 2;
    parts.push(cross(cx, cy, size, task.index));
  }
  return parts;
}

function cross(cx: number, cy: number, half: number, index?: number): string {
  const d =
    `M${fmt(cx - half)} ${fmt(cy - half)}L${fmt(cx + half)} ${fmt(cy + half)}` +
    `M${fmt(cx - half)} ${fmt(cy + half)}L${fmt(cx + half)} ${fmt(cy - half)}`;
  const data = index === undefined ? '' : ` class="fail-mark" data-index="${index}"`;
  return `<path${data} d="${d}" stroke="${COLOURS.failMark}" stroke-width="1.6" stroke-linecap="round"/>`;
}

function batchLabel(group: BatchGroup, centreY: number, groupHeight: number, word: string): string[] {
  const first = group.rows[0][0].index;
  const last = group.rows[group.rows.length - 1][0].index;
  const range = first === last ? `task ${first}` : `tasks ${first}-${last}`;
  const labelX = MARGIN_LEFT - 10;
  if (groupHeight >= 28) {
    return [
      text(labelX, centreY - 2, `${word} ${group.batch}`, 12, COLOURS.text, 'end', '600'),
      text(labelX, centreY + 12, range, 11, COLOURS.muted, 'end'),
    ];
  }
  // Too thin for two lines: the same two parts side by side.
  return [
    `<text x="${fmt(labelX)}" y="${fmt(centreY + 4)}" font-size="11" text-anchor="end">` +
      `<tspan font-weight="600" fill="${COLOURS.text}">${word} ${group.batch}</tspan> ` +
      `<tspan fill="${COLOURS.muted}">${escapeXml(range)}</tspan></text>`,
  ];
}

function legend(succeeded: number, failed: number, skipped: number): string[] {
  const y = 70;
  return [
    rect(16, y - 9, 14, 10, COLOURS.succeeded),
    text(36, y, `succeeded (${succeeded})`, 12, COLOURS.text),
    rect(150, y - 9, 14, 10, COLOURS.failed),
    cross(172, y - 4, 4),
    text(182, y, `failed (${failed})`, 12, COLOURS.text),
    text(280, y, `skipped, never called: ${skipped}`, 12, COLOURS.text),
  ];
}

function retryLegend(tasks: readonly TaskRecord[], pauses: readonly PauseRecord[]): string[] {
  const y = 70;
  const count = (predicate: (task: TaskRecord) => boolean) => tasks.filter(predicate).length;
  const first = count((task) => task.outcome === 'succeeded' && (task.attempt ?? 1) === 1);
  const retried = count((task) => task.outcome === 'succeeded' && (task.attempt ?? 1) > 1);
  const throttled = count((task) => task.outcome === 'throttled');
  const failed = count((task) => task.outcome === 'failed');
  const drops = pauses.filter((pause) => pause.drop !== undefined).length;
  const parts = [
    rect(16, y - 9, 14, 10, COLOURS.succeeded),
    text(36, y, `first try ok (${first})`, 12, COLOURS.text),
    rect(150, y - 9, 14, 10, COLOURS.throttled),
    text(170, y, `429, tried again (${throttled})`, 12, COLOURS.text),
    rect(310, y - 9, 14, 10, COLOURS.retried),
    text(330, y, `retry ok (${retried})`, 12, COLOURS.text),
    `<rect x="430" y="${y - 11}" width="14" height="14" fill="${COLOURS.pause}" fill-opacity="0.16"/>`,
    text(450, y, `pause, no call starts (${pauses.length})`, 12, COLOURS.text),
    `<line x1="610" y1="${y - 11}" x2="610" y2="${y + 3}" stroke="${COLOURS.drop}" stroke-width="1.2" stroke-dasharray="4 3"/>`,
    text(618, y, `pace dropped (${drops})`, 12, COLOURS.text),
  ];
  if (failed > 0) parts.push(rect(740, y - 9, 14, 10, COLOURS.failed), text(760, y, `failed (${failed})`, 12, COLOURS.text));
  return parts;
}

function axis(ticks: number[], x: (ms: number) => number, y: number, plotRight: number): string[] {
  const parts = [line(MARGIN_LEFT, y, plotRight, y, COLOURS.axis)];
  for (const tick of ticks) {
    parts.push(line(x(tick), y, x(tick), y + 5, COLOURS.axis));
    parts.push(text(x(tick), y + 18, String(tick), 11, COLOURS.axis, 'middle'));
  }
  parts.push(text((MARGIN_LEFT + plotRight) / 2, y + 38, 'time since start (ms)', 12, COLOURS.axis, 'middle'));
  return parts;
}

/** Round tick values (multiples of 1, 2 or 5 times a power of ten) covering 0..max, five to ten of them. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  // Round to the nearest of 1, 2, 5, 10 on a log scale (the cut-offs are their geometric means),
  // so the count of ticks stays near five instead of dropping to three.
  const step = (scaled >= Math.sqrt(50) ? 10 : scaled >= Math.sqrt(10) ? 5 : scaled >= Math.sqrt(2) ? 2 : 1) * power;
  const ticks: number[] = [];
  // Multiplying (not adding) avoids drift like 0.30000000000000004 in the labels.
  for (let i = 0; i * step < max + step; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

function rect(x: number, y: number, width: number, height: number, fill: string): string {
  return `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(width)}" height="${fmt(height)}" fill="${fill}"/>`;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string): string {
  return `<line x1="${fmt(x1)}" y1="${fmt(y1)}" x2="${fmt(x2)}" y2="${fmt(y2)}" stroke="${stroke}" stroke-width="1"/>`;
}

function text(
  x: number,
  y: number,
  content: string,
  size: number,
  fill: string,
  anchor: 'start' | 'middle' | 'end' = 'start',
  weight?: string,
): string {
  const weightAttr = weight === undefined ? '' : ` font-weight="${weight}"`;
  return (
    `<text x="${fmt(x)}" y="${fmt(y)}" font-size="${size}" fill="${fill}" text-anchor="${anchor}"${weightAttr}>` +
    `${escapeXml(content)}</text>`
  );
}

// Two decimals are finer than a pixel and keep the file small and its diffs readable.
function fmt(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[char]};`);
}
