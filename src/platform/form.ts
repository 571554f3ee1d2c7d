/** A parsed `application/x-www-form-urlencoded` body: a field sent more than once keeps every value. */
export type FormBody = Record<string, string | string[]>

export function parseForm(text: string): FormBody {
  const out: FormBody = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const current = out[key]
    out[key] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value]
  }
  return out
}

/**
 * One query or form value as a page reads it: the first when it was sent more than once, undefined when it
 * was not sent as text. A page never passes an array on to a query that expects one value.
 */
export function firstValue(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : undefined
}
