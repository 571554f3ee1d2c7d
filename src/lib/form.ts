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
