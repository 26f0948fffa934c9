/**
 * The read-only view a factory gets of its task (src/task-context.ts), alone: what it shows, and that
 * nothing can be written through it.
 */
import { contextView, type ContextSource } from '../../src/task-context';

function view(): { context: Record<PropertyKey, unknown>; source: ContextSource & { hidden: string } } {
  const source = { index: 3, batch: 1, attempt: 2, signal: new AbortController().signal, hidden: 'not shown' };
  return { context: new Proxy(source, contextView) as unknown as Record<PropertyKey, unknown>, source };
}

describe('contextView', () => {
  it('shows index, batch, attempt and signal as own, enumerable, read-only properties, and nothing else', () => {
    const { context, source } = view();
    expect({ ...context }).toEqual({ index: 3, batch: 1, attempt: 2, signal: source.signal });
    expect(['index', 'batch', 'attempt', 'signal', 'hidden'].map((key) => key in context)).toEqual([true, true, true, true, false]);
    expect(context.hidden).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(context, 'index')).toEqual({ value: 3, enumerable: true, configurable: true, writable: false });
    expect(Object.getOwnPropertyDescriptor(context, 'hidden')).toBeUndefined();
  });

  it('gives a fresh list of keys each time, so that changing one list changes nothing', () => {
    const { context } = view();
    const keys = Reflect.ownKeys(context);
    keys.push('extra');
    expect(Reflect.ownKeys(context)).toEqual(['index', 'batch', 'attempt', 'signal']);
  });

  it('refuses every write: assignment, definition and deletion', () => {
    const { context, source } = view();
    expect(Reflect.set(context, 'index', 9)).toBe(false);
    expect(Reflect.defineProperty(context, 'batch', { value: 9 })).toBe(false);
    expect(Reflect.deleteProperty(context, 'attempt')).toBe(false);
    // In strict mode (every module) a refused write throws.
    expect(() => {
      context.index = 9;
    }).toThrow(TypeError);
    expect([source.index, source.batch, source.attempt]).toEqual([3, 1, 2]);
  });
});
