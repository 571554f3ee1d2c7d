/**
 * A person's own words inside a message Herald rewrites for people: addresses, file names, handles and
 * quoted text. The words rules set them aside before any rule runs and put them back after, so no rule for
 * an API's names ever rewrites a URL ending `menus.list`, a handle like `@LEMON_CAKE` or quoted copy.
 */

const UNTOUCHED =
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s)"”]+|"[^"]*"|“[^”]*”|@[\w.-]+|\b[\w-]+(?: [\w-]+){0,2}\.(?:png|jpe?g|gif|webp|heic|mp4|mov|webm)\b/gi

/** `text` with a person's words replaced by markers, and the function that puts them back. */
export function setAside(text: string): { text: string; restore(rewritten: string): string } {
  const kept: string[] = []
  const masked = text.replace(UNTOUCHED, (found) => `\uE000${kept.push(found) - 1}\uE001`)
  return {
    text: masked,
    restore: (rewritten) => rewritten.replace(/\uE000(\d+)\uE001/g, (_m, i: string) => kept[Number(i)] ?? ''),
  }
}
