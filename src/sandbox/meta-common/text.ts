/**
 * How the Meta simulators store copy (a Page post's message, a video's description, an Instagram caption, a
 * thread's text): NFC-normalised, line breaks as `\n`, without leading or trailing spacing. What Meta answers
 * when the copy is read back, so a lookup that compares copy byte for byte fails as it would against Meta.
 */
export const storedCopy = (text: string | undefined): string =>
  (text ?? '').normalize('NFC').replace(/\r\n?/g, '\n').trim()
