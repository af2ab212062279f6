// The SVG chart is well-formed XML (checked by a small tokenizer: balanced tags, quoted
// attributes, escaped text), has one bar per task of at least the threshold, and marks
// the critical path.
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../../../src/orchestrator/report/timeline/build-timeline.js';
import { criticalPath } from '../../../../src/orchestrator/report/timeline/critical-path.js';
import { escapeXml, renderSvg, tickStep } from '../../../../src/orchestrator/report/timeline/render-svg.js';
import type { RunEvent } from '../../../../src/orchestrator/engine/events.js';
import { SAMPLE_EVENTS } from './sample-run.js';

interface Element {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: Element[];
  text: string;
}

/** A strict little XML reader, enough for what renderSvg writes; throws on anything malformed. */
function parseXml(xml: string): Element {
  const root: Element = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const checkText = (text: string): void => {
    if (/[<>]/.test(text) || /&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(text)) throw new Error(`unescaped text: ${text}`);
  };
  let rest = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    if (lt === -1) {
      if (rest.trim() !== '') throw new Error(`text after the root: ${rest}`);
      break;
    }
    const text = rest.slice(0, lt);
    checkText(text);
    stack.at(-1)!.text += text;
    const gt = rest.indexOf('>', lt);
    if (gt === -1) throw new Error('an unclosed tag');
    const tag = rest.slice(lt + 1, gt);
    rest = rest.slice(gt + 1);
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1)) throw new Error(`</${tag.slice(1)}> closes <${open?.name}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const m = /^([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*\/?$/.exec(tag);
    if (!m) throw new Error(`a malformed tag: <${tag}>`);
    const attributes: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      if (a[1]! in attributes) throw new Error(`a repeated attribute ${a[1]} in <${tag}>`);
      checkText(a[2]!);
      attributes[a[1]!] = a[2]!;
    }
    const element: Element = { name: m[1]!, attributes, children: [], text: '' };
    stack.at(-1)!.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (root.children.length !== 1) throw new Error('not one root element');
  return root.children[0]!;
}

const all = (e: Element): Element[] => [e, ...e.children.flatMap(all)];
const classes = (e: Element): string[] => (e.attributes['class'] ?? '').split(' ');

describe('timeline SVG', () => {
  const timeline = buildTimeline(SAMPLE_EVENTS);
  const svg = renderSvg(timeline, criticalPath(timeline), { minTaskMs: 500 });
  const root = parseXml(svg);
  const rects = all(root).filter((e) => e.name === 'rect');

  it('is one well-formed svg element with a size', () => {
    expect(root.name).toBe('svg');
    expect(root.attributes['xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(Number(root.attributes['width'])).toBe(1200);
    expect(Number(root.attributes['height'])).toBeGreaterThan(100);
  });

  it('has a bar per task of 0.5 s or more, on the critical path in its own class', () => {
    const tasks = rects.filter((r) => classes(r).includes('task'));
    expect(tasks.map((r) => r.children[0]!.text)).toEqual([
      'h1 / base / download: 0.1 s + 2.0 s (changed)',
      'h2 / base / download: 0.0 s + 1.0 s (changed)',
      'h1 / restart / restart service: 2.1 s + 1.0 s (changed)',
      'h2 / restart / restart service: 3.2 s + 0.5 s (changed)',
    ]);
    expect(tasks.map((r) => classes(r).includes('critical'))).toEqual([true, false, true, true]);
    // a row per host per play, and one per play
    expect(rects.filter((r) => classes(r).includes('lane'))).toHaveLength(4);
    expect(rects.filter((r) => classes(r).includes('play'))).toHaveLength(2);
  });

  it('places bars on the time axis, inside the chart', () => {
    const width = Number(root.attributes['width']);
    for (const r of rects) {
      const x = Number(r.attributes['x']);
      const w = Number(r.attributes['width']);
      expect(Number.isFinite(x) && Number.isFinite(w) && w > 0).toBe(true);
      expect(x + w).toBeLessThanOrEqual(width + 0.1);
    }
    const ticks = all(root).filter((e) => e.name === 'text' && classes(e).includes('tick'));
    expect(ticks.map((t) => t.text)).toEqual(['0.0', '0.5', '1.0', '1.5', '2.0', '2.5', '3.0', '3.5']);
    const download = rects.find((r) => r.children[0]?.text.startsWith('h1 / base / download'))!;
    const restart = rects.find((r) => r.children[0]?.text.startsWith('h1 / restart'))!;
    expect(Number(download.attributes['x'])).toBeLessThan(Number(restart.attributes['x']));
    // 2.0 s is twice 1.0 s wide
    expect(Number(download.attributes['width']) / Number(restart.attributes['width'])).toBeCloseTo(2, 1);
  });

  it('escapes names that look like markup', () => {
    const hostile = SAMPLE_EVENTS.map((e) => ('host' in e && e.host === 'h1' ? { ...e, host: 'h<1>&"x"' } : e)) as RunEvent[];
    const t = buildTimeline(hostile);
    const text = renderSvg(t, criticalPath(t), { minTaskMs: 500 });
    expect(() => parseXml(text)).not.toThrow();
    expect(text).toContain('h&lt;1&gt;&amp;&quot;x&quot;');
    expect(escapeXml(`<a href='x'>&</a>`)).toBe('&lt;a href=&apos;x&apos;&gt;&amp;&lt;/a&gt;');
  });

  it('picks a round tick step for any duration', () => {
    expect(tickStep(3680)).toBe(500);
    expect(tickStep(107_000)).toBe(10_000);
    expect(tickStep(40)).toBe(100);
  });

  it('the checker itself refuses malformed XML', () => {
    expect(() => parseXml('<svg><rect></svg>')).toThrow();
    expect(() => parseXml('<svg><text>a < b</text></svg>')).toThrow();
    expect(() => parseXml('<svg><text>a & b</text></svg>')).toThrow();
    expect(() => parseXml('<svg a=1></svg>')).toThrow();
  });
});
