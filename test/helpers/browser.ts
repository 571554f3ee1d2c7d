/**
 * A tiny browser for dashboard tests: keeps cookies, follows nothing on its own (every redirect is a
 * step the test sees), and remembers every response body it received, for secret-leak checks.
 */
export interface Page {
  status: number
  url: string
  location: string | undefined
  headers: Headers
  text: string
}

export interface Browser {
  cookies: Map<string, string>
  /** Every response body seen, in order. */
  bodies: string[]
  get(url: string): Promise<Page>
  post(
    url: string,
    form: Record<string, string | string[]>,
    options?: { contentType?: string },
  ): Promise<Page>
  /** Follows redirects from `page` (GET), up to `max` hops; returns every page on the way, last one last. */
  follow(page: Page, max?: number): Promise<Page[]>
  /** Signs in through GET/POST /login; returns the page after the redirect. */
  login(email: string, password: string): Promise<Page>
  /** The CSRF token in a page's form. */
  csrf(page: Page): string
  /**
   * Starts a connect as a person does: opens `/connect/<network>` (the page naming the workspace) and
   * submits its form. Answers the POST's response (303 to the network's consent page).
   */
  connect(path: string): Promise<Page>
}

export function createBrowser(baseUrl: string): Browser {
  const cookies = new Map<string, string>()
  const bodies: string[] = []
  const absolute = (url: string) => new URL(url, baseUrl).toString()

  const remember = (response: Response) => {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const maxAge = attributes.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('max-age='))
      if (maxAge && Number(maxAge.split('=')[1]) <= 0) cookies.delete(name)
      else cookies.set(name, value)
    }
  }

  const request = async (url: string, init: RequestInit): Promise<Page> => {
    const target = absolute(url)
    const headers = new Headers(init.headers)
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const response = await fetch(target, { ...init, headers, redirect: 'manual' })
    remember(response)
    const text = await response.text()
    bodies.push(text)
    const location = response.headers.get('location') ?? undefined
    return {
      status: response.status,
      url: target,
      location: location ? new URL(location, target).toString() : undefined,
      headers: response.headers,
      text,
    }
  }

  const browser: Browser = {
    cookies,
    bodies,
    get: (url) => request(url, { method: 'GET' }),
    post(url, form, options = {}) {
      const body = new URLSearchParams()
      for (const [key, value] of Object.entries(form)) {
        for (const item of Array.isArray(value) ? value : [value]) body.append(key, item)
      }
      return request(url, {
        method: 'POST',
        headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' },
        body: body.toString(),
      })
    },
    async follow(page, max = 10) {
      const pages = [page]
      let current = page
      while (current.status >= 300 && current.status < 400 && current.location && pages.length <= max) {
        current = await browser.get(current.location)
        pages.push(current)
      }
      return pages
    },
    async login(email, password) {
      const form = await browser.get('/login')
      const answer = await browser.post('/login', {
        csrf: browser.csrf(form),
        email,
        password,
        next: '/channels',
      })
      if (answer.status !== 303)
        throw new Error(`login answered ${answer.status}: ${answer.text.slice(0, 300)}`)
      return (await browser.follow(answer)).at(-1)!
    },
    async connect(path) {
      const confirm = await browser.get(path)
      if (confirm.status !== 200)
        throw new Error(`${path} answered ${confirm.status}: ${confirm.text.slice(0, 300)}`)
      const start = confirm.text.indexOf('<form method="post" action="/connect/')
      if (start < 0) throw new Error(`${path} shows no connect form`)
      const { action, fields } = formFields(confirm.text.slice(start))
      const form: Record<string, string[]> = {}
      for (const [name, value] of fields) form[name] = [...(form[name] ?? []), value]
      return browser.post(action, form)
    },
    csrf(page) {
      const match = /name="csrf" value="([^"]+)"/.exec(page.text)
      if (!match) throw new Error(`no CSRF field on ${page.url}`)
      return match[1]!
    },
  }
  return browser
}

/** The hidden and visible fields of the first form on a page (sandbox consent pages). */
export function formFields(html: string): { action: string; fields: Array<[string, string]> } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] ?? ''
  const fields: Array<[string, string]> = []
  for (const match of html.matchAll(/<input([^>]*)>/g)) {
    const attrs = match[1]!
    const name = /name="([^"]+)"/.exec(attrs)?.[1]
    const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? ''
    const type = /type="([^"]+)"/.exec(attrs)?.[1] ?? 'text'
    if (!name) continue
    if ((type === 'checkbox' || type === 'radio') && !/\bchecked\b/.test(attrs)) continue
    fields.push([name, decodeEntities(value)])
  }
  return { action: decodeEntities(action), fields }
}

export const decodeEntities = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
