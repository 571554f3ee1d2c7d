/// <reference lib="dom" />

/**
 * A Compose draft kept in the browser (localStorage) as the person writes, so a reload or a closed tab
 * loses nothing: every field's name and value, in order, except the CSRF token and the confirmation.
 */

type Fields = Array<[string, string]>

const SKIPPED = new Set(['csrf', 'youtubeConfirm', 'intent'])

export function createDraftStore(form: HTMLFormElement, key: string) {
  const fieldsOf = (): Fields =>
    [...new FormData(form)]
      .filter(([name, value]) => !SKIPPED.has(name) && typeof value === 'string')
      .map(([name, value]) => [name, value as string])

  return {
    save() {
      const fields = fieldsOf()
      const empty = fields.every(([name, value]) => name === 'timezone' || value.trim() === '')
      try {
        if (empty) localStorage.removeItem(key)
        else localStorage.setItem(key, JSON.stringify(fields))
      } catch {}
    },
    clear() {
      try {
        localStorage.removeItem(key)
      } catch {}
    },
    kept(): Fields | undefined {
      try {
        const raw = localStorage.getItem(key)
        return raw ? (JSON.parse(raw) as Fields) : undefined
      } catch {
        return undefined
      }
    },
    /** Puts kept fields back: boxes ticked by value, repeated fields (the thread) in order. */
    restore(fields: Fields, addItem: () => void) {
      const threadCount = fields.filter(([name]) => name === 'threadContent').length
      while (form.querySelectorAll('[name="threadContent"]').length < threadCount) addItem()
      const seen = new Map<string, number>()
      for (const box of form.querySelectorAll<HTMLInputElement>('input[type="checkbox"][name="profile"]'))
        box.checked = fields.some(([name, value]) => name === 'profile' && value === box.value)
      for (const [name, value] of fields) {
        if (name === 'profile') continue
        const index = seen.get(name) ?? 0
        seen.set(name, index + 1)
        const field = form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
          `[name="${CSS.escape(name)}"]`,
        )[index]
        if (field) field.value = value
      }
    },
  }
}
