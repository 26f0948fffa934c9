// Reading a response's headers, wherever the task's value or error keeps them.

/** What the readers look in, when a value has it: headers with a `get()`, on the value or on its `response`. */
interface HeaderCarrier {
  readonly headers: { get(name: string): unknown };
  readonly response: HeaderCarrier;
}

/**
 * A header's value as it was sent, if it is a string: read through `headers.get(name)` on `carrier`
 * itself or on its `response`. That covers Angular's `HttpResponse` and `HttpErrorResponse`, a fetch
 * `Response` (returned, thrown, or carried by ky's and ofetch's errors), axios' responses and errors,
 * and anything else with a `get()`. Never throws: headers of another shape, or a `get` that throws,
 * give `undefined`.
 */
export function headerOf(carrier: unknown, name: string): string | undefined {
  const held = carrier as HeaderCarrier;
  return header(() => held.headers, name) ?? header(() => held.response.headers, name);
}

/** The header `name` of the headers `find` gives. Headers of another shape throw while being read. */
function header(find: () => { get(name: string): unknown }, name: string): string | undefined {
  let value: unknown;
  try {
    value = find().get(name);
  } catch {
    // A missing or unreadable header (a throwing getter, proxy or get()), not a failure of the caller's code.
  }
  return typeof value === 'string' ? value : undefined;
}
