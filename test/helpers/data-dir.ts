import { rmSync } from 'node:fs'

/**
 * Removes a test's data folder. The media cache makes its folders at start without holding the start up for
 * them, so a Herald closed at once can still be making one while the folder goes (ENOTEMPTY): Node tries the
 * removal again a few times before it gives up.
 */
export const removeDataDir = (dir: string) =>
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 })
