// Draws a run as a timeline: one bar per invoked task, from its start to its end, rows grouped by
// batch (or, in window pacing, by the result that reports the task). A pure function from data to text, with no dependencies, so the picture can be
// committed, diffed and viewed anywhere an <img> works (GitHub renders it in the README).
import type { RunRecord, TaskRecord } from './run-record.js';

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
  const failed = record.tasks.filter((task) => task.outcome === 'failed').length;
  return `Slow start: ${record.tasks.length} of ${record.totalTasks} tasks called, ${failed} failed, ${record.skipped} skipped`;
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
  const tasks = [...record.tasks].sort((a, b) => a.index - b.index);
  const groups = groupByBatch(tasks);
  const word = record.pacing === 'window' ? 'result' : 'batch';

  const rowHeight = Math.max(1, Math.min(MAX_ROW, PLOT_HEIGHT_BUDGET / Math.max(1, tasks.length)));
  const barHeight = Math.max(1, rowHeight * 0.7);
  // Half a gap above the first batch and below the last, so that every band stays inside the plot.
  const plotHeight = (tasks.length * rowHeight || MAX_ROW) + groups.length * GROUP_GAP;
  const height = PLOT_TOP + plotHeight + AXIS_HEIGHT + FOOTER_HEIGHT;

  const plotRight = WIDTH - MARGIN_RIGHT;
  const plotBottom = PLOT_TOP + plotHeight;
  const ticks = niceTicks(extentMs);
  const domainEnd = ticks[ticks.length - 1];
  const x = (ms: number) => MARGIN_LEFT + (ms / domainEnd) * (plotRight - MARGIN_LEFT);

  const succeeded = tasks.filter((task) => task.outcome === 'succeeded').length;
  const failed = tasks.length - succeeded;

  const out: string[] = [];
  out.push(
    `<text x="16" y="28" font-size="17" font-weight="600" fill="${COLOURS.text}">${escapeXml(title)}</text>`,
    `<text x="16" y="48" font-size="12" fill="${COLOURS.muted}">${escapeXml(record.subtitle)}</text>`,
  );
  out.push(...legend(succeeded, failed, record.skipped));

  // Vertical grid lines first, so that bars are drawn over them.
  for (const tick of ticks) {
    out.push(line(x(tick), PLOT_TOP, x(tick), plotBottom, COLOURS.grid));
  }

  let y = PLOT_TOP + GROUP_GAP / 2;
  let lastLabelY = -Infinity;
  for (const [position, group] of groups.entries()) {
    const groupHeight = group.tasks.length * rowHeight;
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
    for (const [row, task] of group.tasks.entries()) {
      const top = y + row * rowHeight + (rowHeight - barHeight) / 2;
      out.push(...bar(task, x, top, barHeight, word));
    }
    out.push('</g>');
    y += groupHeight + GROUP_GAP;
  }
  if (tasks.length === 0) {
    out.push(text(MARGIN_LEFT + 8, PLOT_TOP + 11, 'No task was called.', 12, COLOURS.muted));
  }

  out.push(...axis(ticks, x, plotBottom, plotRight));
  return { parts: out, height };
}

interface BatchGroup {
  batch: number;
  tasks: TaskRecord[];
}

function groupByBatch(tasks: TaskRecord[]): BatchGroup[] {
  const groups = new Map<number, TaskRecord[]>();
  for (const task of tasks) {
    const group = groups.get(task.batch) ?? [];
    group.push(task);
    groups.set(task.batch, group);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([batch, groupTasks]) => ({ batch, tasks: groupTasks }));
}

function bar(task: TaskRecord, x: (ms: number) => number, top: number, height: number, word: string): string[] {
  const left = x(task.startMs);
  // A task that settles within the same millisecond still gets a visible sliver.
  const width = Math.max(1.5, x(task.endMs) - left);
  const tooltip =
    `task ${task.index}, ${word} ${task.batch}: ${task.outcome}, ` + `${Math.round(task.startMs)}-${Math.round(task.endMs)} ms`;
  const parts = [
    `<rect class="bar ${task.outcome}" data-index="${task.index}" x="${fmt(left)}" y="${fmt(top)}" ` +
      `width="${fmt(width)}" height="${fmt(height)}" fill="${COLOURS[task.outcome]}">` +
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
  const first = group.tasks[0].index;
  const last = group.tasks[group.tasks.length - 1].index;
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
